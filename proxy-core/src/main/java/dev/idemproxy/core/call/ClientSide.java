package dev.idemproxy.core.call;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;

/**
 * The client leg as a protected call sees it. Writes after the client has gone are released
 * silently: the call runs to its end regardless (docs/idempotency.md). Used on the client's loop only.
 */
public interface ClientSide {
    /*
     * A settled execution always ends its answer in exactly one of: the last content, problem,
     * replay, or abort; the client side learns that the call is done with it from those.
     */
    EventLoop loop();

    ByteBufAllocator alloc();

    /** The final response head; headers are the call's to set before this. */
    void head(HttpResponse response);

    /** Body content; the last one is a {@code LastHttpContent}. Ownership passes to the client side. */
    void content(HttpContent content);

    void flush();

    boolean writable();

    /**
     * A proxy-made answer ({@code application/problem+json}, headers set) when no upstream response
     * could be passed on. Ownership passes to the client side.
     */
    void problem(FullHttpResponse problem);

    /** A whole stored or synthesised response (the receipt's answer), marked with the call's id and attempts. */
    void replay(dev.idemproxy.core.store.StoredResponse response, String callId, int attempts);

    /** Cuts the client connection: a response under way cannot be completed. */
    void abort();
}
