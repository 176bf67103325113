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
 * An upstream answer kept whole before it goes to the client, for one of two reasons:
 * <ul>
 *   <li>its dialect judges it only once it has read all of it ({@link CallDialect#holdsAnswer}: an
 *       MCP answer, a 200 whatever the tool did, is judged by the JSON-RPC response in its body);
 *       then {@link #outcome} is null until it is judged;</li>
 *   <li>it is an unknown 5xx whose receipt is asked about: if the check does not resolve, the call
 *       answers and stores this response as it came (CONTRACT §5: an unknown outcome that may not
 *       be repeated is stored "as it was"); {@link #outcome} is its class, given at its head.</li>
 * </ul>
 * The body is copied to the heap as it arrives, up to a limit (the route's
 * {@code maxResponseBody}), and each piece is released at once, so nothing pooled is held while
 * a receipt is polled, and the upstream connection goes back to its pool when the body is in.
 * Not thread-safe: used on the call's event loop.
 */
final class HeldAnswer {
    final HttpResponse head;
    /** The class given at its head (held for a receipt check); null for an answer judged once whole. */
    final AttemptOutcome outcome;
    private final long limit;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private HttpHeaders trailers;
    private boolean complete;

    HeldAnswer(HttpResponse head, AttemptOutcome outcome, long limit) {
        this.head = head;
        this.outcome = outcome;
        this.limit = limit;
    }

    /**
     * Copies {@code content} and releases it. Returns false, keeping nothing of it and leaving it
     * to the caller (unreleased), when the body would grow past the limit.
     */
    boolean add(HttpContent content) {
        ByteBuf b = content.content();
        int n = b.readableBytes();
        if (body.size() + (long) n > limit) {
            return false;
        }
        try {
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

    /** The body held so far (a copy). */
    byte[] body() {
        return body.toByteArray();
    }

    /** The body held so far (and its trailers, once complete) as one content, in a buffer of {@code alloc} that the caller owns. */
    HttpContent asContent(ByteBufAllocator alloc, boolean last) {
        ByteBuf b = alloc.buffer(body.size());
        try {
            body.writeTo(new io.netty.buffer.ByteBufOutputStream(b));
        } catch (java.io.IOException e) {
            b.release();
            throw new java.io.UncheckedIOException(e);
        }
        if (!last) {
            return new io.netty.handler.codec.http.DefaultHttpContent(b);
        }
        DefaultLastHttpContent l = new DefaultLastHttpContent(b);
        if (trailers != null) {
            l.trailingHeaders().set(trailers);
        }
        return l;
    }
}
