package dev.idemproxy.app.admin;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;

/**
 * A listing's page cursor as clients see it: the store's own cursor behind a mark naming the
 * listing, in unpadded base64url, so that a value this API never gave out (valid base64url or not,
 * or another listing's) is told apart and answered 400 instead of an empty page. Immutable.
 *
 * @param mark  the listing's mark, e.g. {@code dlq1:}
 * @param valid what a store cursor of this listing may be
 */
record PageCursor(String mark, Predicate<String> valid) {

    /** {@code storeCursor} as clients get it. */
    String encode(String storeCursor) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString((mark + storeCursor).getBytes(StandardCharsets.UTF_8));
    }

    /** The store's cursor in {@code cursor}, or null when it is not one {@link #encode} made. */
    String decode(String cursor) {
        String decoded;
        try {
            decoded = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (!decoded.startsWith(mark)) {
            return null;
        }
        String storeCursor = decoded.substring(mark.length());
        return !storeCursor.isEmpty() && valid.test(storeCursor) ? storeCursor : null;
    }

    /** The {@code nextCursor} of a page whose store cursor is {@code storeNext}: null on the last page. */
    String next(String storeNext) {
        return storeNext == null ? null : encode(storeNext);
    }

    /** The 400 for a {@code cursor} parameter {@link #decode} refused. */
    static CompletionStage<AdminResponse> refused(String cursor) {
        return AdminResponse.problem(400, "bad-request", "Bad request",
                "cursor '" + cursor + "' (expected: the nextCursor of an earlier page)").completed();
    }
}
