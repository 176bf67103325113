package dev.idemproxy.core.call;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.Future;

/**
 * The client leg as a {@link ProtectedCall} sees it: the client connection's loop, and the writes
 * of the call's answer. Writes after the client has gone are released silently: a forwarded call
 * runs to its end regardless (docs/idempotency.md). Every call ends its answer with exactly one
 * of {@link #answer}, {@link #last}, {@link #whole} or {@link #abort}; the futures say when that
 * last write left (or failed). The call counts the body bytes of its answer's end itself, before
 * its log line; the client side counts those it streams ({@link #content}). Ownership of what is
 * written passes to the client side. Used on the client's loop only.
 */
public interface ClientSide {
    EventLoop loop();

    ByteBufAllocator alloc();

    /** A whole answer of the gate's (a replay, a refusal): nothing was forwarded. */
    void answer(FullHttpResponse response);

    /**
     * The call is forwarded: it counts in flight (a drain waits for it) until {@link #ended}, runs
     * on when its client leaves, and its request is rewritten for the upstream.
     */
    void forwarded();

    /** The final response head; its headers are the call's to set before this. */
    void head(HttpResponse response);

    /** A piece of the body, not the last. */
    void content(HttpContent content);

    void flush();

    boolean writable();

    /** The answer's last piece. */
    Future<Void> last(LastHttpContent last);

    /** A whole answer (a problem, a receipt's result), its headers set. */
    Future<Void> whole(FullHttpResponse response);

    /** Cuts the client connection: the answer under way cannot be completed. */
    Future<Void> abort();

    /** The answer's end is on the wire (or failed to get there): the call no longer counts in flight. */
    void ended();
}
