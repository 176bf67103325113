package dev.idemproxy.core.call;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponse;

/**
 * Reads a pass-through call's answer as it streams to the client, without holding or delaying
 * it: an MCP route's {@code tools/list} answers feed its tool catalogue this way. It never takes
 * ownership of what it is shown and copies what it keeps; it keeps a bounded amount. Not
 * thread-safe: one per call, used on the call's event loop.
 */
public interface ResponseObserver {
    /** The answer's head. */
    void head(HttpResponse head);

    /**
     * A piece of the body, in order; {@code last} for the final one. The buffer's indices are
     * left as they are, and the buffer is not retained.
     */
    void content(ByteBuf content, boolean last);
}
