package dev.idemproxy.core.call;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A client leg that writes down what the call gives it, in order ({@link #writes}), as short
 * words: {@code answer 200}, {@code head 201}, {@code content 5}, {@code last}, {@code whole 504},
 * {@code abort}; the bytes of the answer's body ({@link #body}); and whether it was forwarded and
 * ended. Every write succeeds at once. Its buffers are released at {@link #close}.
 */
final class RigClient implements ClientSide {
    final List<String> writes = new ArrayList<>();
    final StringBuilder body = new StringBuilder();
    final List<Object> held = new ArrayList<>();
    boolean writable = true;
    boolean forwarded;
    int ended;
    HttpResponse lastHead;
    FullHttpResponse lastWhole;
    private final EventLoop loop;
    private final ByteBufAllocator alloc;

    RigClient(EventLoop loop, ByteBufAllocator alloc) {
        this.loop = loop;
        this.alloc = alloc;
    }

    @Override
    public EventLoop loop() {
        return loop;
    }

    @Override
    public ByteBufAllocator alloc() {
        return alloc;
    }

    @Override
    public void answer(FullHttpResponse response) {
        writes.add("answer " + response.status().code());
        lastWhole = response;
        keep(response);
    }

    @Override
    public void forwarded() {
        forwarded = true;
    }

    @Override
    public void head(HttpResponse response) {
        writes.add("head " + response.status().code());
        lastHead = response;
    }

    @Override
    public void content(HttpContent content) {
        writes.add("content " + content.content().readableBytes());
        keep(content);
    }

    @Override
    public void flush() {
    }

    @Override
    public boolean writable() {
        return writable;
    }

    @Override
    public Future<Void> last(LastHttpContent last) {
        writes.add("last");
        keep(last);
        return loop.newSucceededFuture(null);
    }

    @Override
    public Future<Void> whole(FullHttpResponse response) {
        writes.add("whole " + response.status().code());
        lastWhole = response;
        keep(response);
        return loop.newSucceededFuture(null);
    }

    @Override
    public Future<Void> abort() {
        writes.add("abort");
        return loop.newSucceededFuture(null);
    }

    @Override
    public void ended() {
        ended++;
    }

    private void keep(Object o) {
        if (o instanceof io.netty.buffer.ByteBufHolder h) {
            body.append(h.content().toString(StandardCharsets.UTF_8));
        }
        held.add(o);
    }

    void close() {
        held.forEach(ReferenceCountUtil::release);
        held.clear();
    }
}
