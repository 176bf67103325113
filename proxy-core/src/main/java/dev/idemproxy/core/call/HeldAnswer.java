package dev.idemproxy.core.call;

import dev.idemproxy.core.retry.AttemptOutcome;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.ByteArrayOutputStream;

/**
 * An upstream 5xx kept whole while the route's receipt is asked about it: if the receipt check
 * does not resolve, the call answers and stores this response as it came (CONTRACT §5: an
 * unknown outcome that may not be repeated is stored "as it was"). The body is copied to the
 * heap as it arrives, up to a limit (the route's {@code maxResponseBody}), and each piece is
 * released at once, so nothing pooled is held while the receipt is polled and the upstream
 * connection goes back to its pool when the body is in. Not thread-safe: used on the call's
 * event loop.
 */
final class HeldForReceipt {
    final HttpResponse head;
    final AttemptOutcome outcome;
    private final long limit;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private HttpHeaders trailers;
    private boolean complete;

    HeldForReceipt(HttpResponse head, AttemptOutcome outcome, long limit) {
        this.head = head;
        this.outcome = outcome;
        this.limit = limit;
    }

    /**
     * Copies {@code content} and releases it. Returns false, keeping nothing of it, when the body
     * would grow past the limit.
     */
    boolean add(HttpContent content) {
        try {
            ByteBuf b = content.content();
            int n = b.readableBytes();
            if (body.size() + (long) n > limit) {
                return false;
            }
            b.getBytes(b.readerIndex(), body, n);
            if (content instanceof LastHttpContent) {
                complete = true;
                HttpHeaders t = ((LastHttpContent) content).trailingHeaders();
                trailers = t.isEmpty() ? null : t.copy();
            }
            return true;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            content.release();
        }
    }

    /** True once the last content is in. */
    boolean complete() {
        return complete;
    }

    /** The whole body (and trailers) as one last content, in a buffer of {@code alloc} that the caller owns. */
    LastHttpContent last(ByteBufAllocator alloc) {
        ByteBuf b = alloc.buffer(body.size());
        b.writeBytes(body.toByteArray());
        DefaultLastHttpContent last = new DefaultLastHttpContent(b);
        if (trailers != null) {
            last.trailingHeaders().set(trailers);
        }
        return last;
    }
}
