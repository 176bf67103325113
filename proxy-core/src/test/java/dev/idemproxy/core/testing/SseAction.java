package dev.idemproxy.core.testing;

import static java.util.Objects.requireNonNull;

import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.time.Duration;
import java.util.List;

/**
 * A Server-Sent Events response ({@code text/event-stream}, chunked) whose events go out with a real
 * gap between them, scheduled on the connection's event loop (never blocking it). The first event
 * is sent with the head. Tests use {@link #eventsSent()} and {@link #awaitEventsSent} to show an
 * event reached the client before a later one was even sent. Thread-safe; the counter adds up over
 * every run of this action. Built by {@link UpstreamAction#sse}.
 */
public final class SseAction extends UpstreamAction {

    private final List<String> events;
    private final Duration gap;
    private final AwaitableCounter sent = new AwaitableCounter();

    SseAction(List<String> events, Duration gap) {
        this.events = List.copyOf(events);
        this.gap = requireNonNull(gap, "gap");
    }

    /** The number of events whose write has completed (flushed to the socket), over all runs. */
    public long eventsSent() {
        return sent.get();
    }

    /** Waits until at least {@code n} events were sent; false on timeout. */
    public boolean awaitEventsSent(long n, Duration timeout) throws InterruptedException {
        return sent.awaitAtLeast(n, timeout);
    }

    /** The wire form of one event: a {@code data:} line per line of {@code data}, then a blank line. */
    static String frame(String data) {
        StringBuilder sb = new StringBuilder();
        for (String line : data.split("\n", -1)) {
            sb.append("data: ").append(line).append('\n');
        }
        return sb.append('\n').toString();
    }

    @Override
    void respond(Exchange ex) {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream");
        head.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
        HttpUtil.setTransferEncodingChunked(head, true);
        ex.writeHead(head);
        sendFrom(ex, 0);
    }

    private void sendFrom(Exchange ex, int i) {
        if (!ex.active()) {
            return;
        }
        if (i == events.size()) {
            ex.finish(ex.write(LastHttpContent.EMPTY_LAST_CONTENT));
            return;
        }
        // Counted as it is written, not when the write's future completes: the proxy may forward
        // the event and the client read it before that listener would run.
        sent.increment();
        ex.write(new DefaultHttpContent(ByteBufUtil.writeUtf8(ex.alloc(), frame(events.get(i)))));
        if (i + 1 == events.size()) {
            sendFrom(ex, i + 1);
        } else {
            ex.schedule(() -> sendFrom(ex, i + 1), gap);
        }
    }
}
