package dev.idemproxy.core.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * One request/response exchange on a {@link TestUpstream} connection: what the actions use to
 * answer. Confined to the connection's event loop; actions must call it from there only
 * (scheduled tasks run there too).
 */
final class Exchange {

    private final ChannelHandlerContext ctx;
    private final TestUpstream upstream;
    private final HttpRequest head;
    private final long connectionId;
    private final long receivedAtNanos;
    private final boolean keepAlive;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private long bodyLength;
    private RecordedRequest recorded;
    /** Per-exchange state of a streaming action (e.g. the running CRC of an upload). */
    Object actionState;

    Exchange(ChannelHandlerContext ctx, TestUpstream upstream, HttpRequest head, long connectionId) {
        this.ctx = ctx;
        this.upstream = upstream;
        this.head = head;
        this.connectionId = connectionId;
        this.receivedAtNanos = System.nanoTime();
        this.keepAlive = HttpUtil.isKeepAlive(head);
    }

    // --- request side, driven by UpstreamHandler ---

    void countBody(int bytes) {
        bodyLength += bytes;
    }

    void keepBody(ByteBuf content) {
        int room = TestUpstream.MAX_RECORDED_BODY - body.size();
        int n = Math.min(room, content.readableBytes());
        if (n > 0) {
            byte[] bytes = new byte[n];
            content.getBytes(content.readerIndex(), bytes);
            body.write(bytes, 0, n);
        }
    }

    RecordedRequest record(int index, int remotePort) {
        recorded = new RecordedRequest(index, connectionId, remotePort, head.method().name(), head.uri(),
                UpstreamHandler.headers(head.headers()), body.toByteArray(), bodyLength, receivedAtNanos);
        return recorded;
    }

    // --- response side, used by actions ---

    RecordedRequest request() {
        return recorded;
    }

    ChannelHandlerContext ctx() {
        return ctx;
    }

    ByteBufAllocator alloc() {
        return ctx.alloc();
    }

    boolean active() {
        return ctx.channel().isActive();
    }

    /** Writes the response head, marking the connection for close when the request asked for it. */
    ChannelFuture writeHead(HttpResponse response) {
        upstream.responseStarted();
        HttpUtil.setKeepAlive(response, keepAlive);
        return ctx.writeAndFlush(response);
    }

    ChannelFuture write(HttpObject part) {
        return ctx.writeAndFlush(part);
    }

    /** Ends the exchange after {@code last} was written: closes the connection unless kept alive. */
    void finish(ChannelFuture last) {
        if (!keepAlive) {
            last.addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** Writes raw bytes below the HTTP codec (through TLS if any), bypassing the response encoder. */
    ChannelFuture writeRaw(ByteBuf bytes) {
        upstream.responseStarted();
        return ctx.pipeline().context(UpstreamHandler.CODEC).writeAndFlush(bytes);
    }

    void schedule(Runnable task, Duration delay) {
        ctx.executor().schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Closes the connection gracefully (FIN), without a response. */
    void close() {
        ctx.close();
    }

    /**
     * Aborts the connection with a TCP RST: SO_LINGER 0, then a close that skips the pipeline so
     * not even a TLS close_notify goes out.
     */
    void reset() {
        Channel ch = ctx.channel();
        if (!ch.isOpen()) {
            return;
        }
        ch.config().setOption(ChannelOption.SO_LINGER, 0);
        ch.unsafe().close(ch.unsafe().voidPromise());
    }
}
