package dev.idemproxy.core.receipt;

import dev.idemproxy.core.route.ReceiptPolicy;

/**
 * What the upstream's receipt endpoint said about a call whose outcome was unknown.
 * This class is immutable.
 *
 * @param result the JSON at {@code resultPointer} (SUCCESS only), else null
 * @param detail why the answer is UNRESOLVED, for logs and the DLQ
 */
public record ReceiptAnswer(Status status, byte[] result, String detail) {
    /** The receipt statuses of docs/configuration.md, plus UNRESOLVED when the receipt could not be read. */
    public enum Status { SUCCESS, FAILED, PROCESSING, NOT_FOUND, UNRESOLVED }

    static ReceiptAnswer unresolved(String detail) {
        return new ReceiptAnswer(Status.UNRESOLVED, null, detail);
    }

    /** Interprets a receipt response: 404 is NOT_FOUND; 2xx bodies are read at the pointers. */
    public static ReceiptAnswer parse(int httpStatus, byte[] body, ReceiptPolicy policy) {
        if (httpStatus == 404) {
            return new ReceiptAnswer(Status.NOT_FOUND, null, null);
        }
        if (httpStatus < 200 || httpStatus > 299) {
            return unresolved("receipt endpoint answered " + httpStatus);
        }
        String s = dev.idemproxy.core.idempotency.CanonicalJson.textAt(body, policy.statusPointer()).orElse(null);
        if (s == null) {
            return unresolved("no receipt status at " + policy.statusPointer());
        }
        switch (s.trim().toUpperCase(java.util.Locale.ROOT)) {
            case "SUCCESS":
                byte[] result = dev.idemproxy.core.idempotency.CanonicalJson.at(body, policy.resultPointer()).orElse(null);
                return result == null ? unresolved("SUCCESS without a result at " + policy.resultPointer())
                        : new ReceiptAnswer(Status.SUCCESS, result, null);
            case "FAILED":
                return new ReceiptAnswer(Status.FAILED, null, null);
            case "PROCESSING":
                return new ReceiptAnswer(Status.PROCESSING, null, null);
            case "NOT_FOUND":
                return new ReceiptAnswer(Status.NOT_FOUND, null, null);
            default:
                return unresolved("unknown receipt status '" + s + "'");
        }
    }
}
