package dev.idemproxy.core.upstream;

import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * Receives what one leased upstream connection reads, on the connection's event loop (which
 * is the client's). Ownership: {@link #onResponseContent} receives a reference it must release
 * or pass on.
 */
public interface UpstreamListener {
    /** The final (non-1xx) response head. */
    void onResponseHead(HttpResponse response);

    /** A piece of the response body; the last one is a {@code LastHttpContent}. */
    void onResponseContent(HttpContent content);

    /**
     * A whole response read at once: its head and its last (often only) content, which the
     * listener must release or pass on. By default the two callbacks above, in turn; a
     * listener may write both as one message instead.
     */
    default void onFullResponse(HttpResponse head, LastHttpContent last) {
        onResponseHead(head);
        onResponseContent(last);
    }

    /** The end of one read batch: a good moment to flush towards the client. */
    void onReadComplete();

    /** The connection's writability changed (back-pressure on the request body). */
    void onWritabilityChanged(boolean writable);

    /** The connection closed or failed before the listener was detached. */
    void onUpstreamClosed(Throwable cause);

    /** No bytes moved for the route's idle timeout while leased. */
    void onUpstreamIdle();
}
