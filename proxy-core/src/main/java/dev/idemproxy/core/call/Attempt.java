package dev.idemproxy.core.call;

import dev.idemproxy.core.call.CallEvent.Timer;
import dev.idemproxy.core.call.CallEvent.TimerKind;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.FailureClass;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.upstream.UpstreamConnection;
import dev.idemproxy.core.upstream.UpstreamListener;
import dev.idemproxy.core.util.ProxyHeaders;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;

/**
 * The upstream leg of a forwarded call's attempts: leases a connection for each attempt, sends
 * the buffered request with the call's key, id, attempt number and time left, times the attempt,
 * counts it in {@code idemproxy_upstream_attempts_total}, and turns what the connection reads into
 * events at the call's door. It decides nothing. Not thread-safe: used on the call's event loop.
 */
final class Attempt implements UpstreamListener {
    /** What became of a connection that arrived. */
    enum Connect {
        /** The request went out on it. */
        SENT,
        /** None came: the attempt failed to connect. */
        FAILED,
        /** It came for an attempt already over: closed unused. */
        IGNORED
    }

    /** An answered attempt's metric result by status / 100, made once. */
    private static final String[] STATUS_CLASSES = {null, "1xx", "2xx", "3xx", "4xx", "5xx"};

    private final CallContext cx;
    private int number;
    private UpstreamConnection conn;
    /**
     * The last attempt already judged a failure: its connection, should it still arrive (a connect
     * or TLS handshake slower than the attempt's time), must not carry the request.
     */
    private int failedAttempt;
    private ScheduledFuture<?> timer;
    private long startNanos;
    private long millis;
    /** The last attempt counted in {@code upstream_attempts_total}: each is counted once. */
    private int recordedAttempt;

    Attempt(CallContext cx) {
        this.cx = cx;
    }

    int number() {
        return number;
    }

    /** The attempt's connection; null before it came and once it is given up. */
    UpstreamConnection conn() {
        return conn;
    }

    /** The attempt's time, in milliseconds, for messages. */
    long millis() {
        return millis;
    }

    /** Whether this attempt was counted at its answer's head. */
    boolean headCame() {
        return number == recordedAttempt;
    }

    /** Starts the next attempt: asks for a connection and times it (its {@code perTry}, or the time left). */
    void next() {
        int n = ++number;
        startNanos = cx.services().ticker().nanos();
        cx.watch().tryStarted(n, startNanos);
        cx.door().when(cx.services().upstreams().acquire(cx.call().route(), cx.door().loop(), this),
                (c, failure) -> new CallEvent.Connected(n, c, failure));
        Duration wait = cx.deadline().attemptTimeout(cx.call().route().timeouts().perTry());
        millis = Math.max(1, wait.toMillis());
        // In nanoseconds, not whole milliseconds: a timer cut short by the deadline must not fire
        // before it, or the failure would be judged with time still left (a read-timeout, not
        // deadline-exceeded).
        timer = cx.door().after(Math.max(1, wait.toNanos()), new Timer(TimerKind.ATTEMPT, n));
    }

    /** A connection (or its failure) for attempt {@code c.attempt()}: the request goes out on it, unless that attempt is over. */
    Connect connected(CallEvent.Connected c) {
        if (c.attempt() != number || c.attempt() == failedAttempt) {
            if (c.conn() != null) {
                c.conn().release(false);
            }
            return Connect.IGNORED;
        }
        if (c.failure() != null) {
            return Connect.FAILED;
        }
        conn = c.conn();
        int n = number;
        conn.channel().writeAndFlush(request(n)).addListener(w -> {
            if (!w.isSuccess()) {
                cx.door().enter(new CallEvent.SendFailed(n, w.cause()));
            }
        });
        return Connect.SENT;
    }

    private FullHttpRequest request(int n) {
        ProxyCall call = cx.call();
        // No trailer object: the request goes with a Content-Length, whose encoding writes none.
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, call.request().method(), call.request().uri(),
                call.body().retainedDuplicate(), DefaultHttpHeadersFactory.headersFactory().newHeaders(), EmptyHttpHeaders.INSTANCE);
        HttpHeaders h = req.headers();
        h.set(cx.upstreamHeaders());
        h.remove(HttpHeaderNames.TRANSFER_ENCODING);
        h.set(HttpHeaderNames.CONTENT_LENGTH, ProxyHeaders.number(call.body().readableBytes()));
        CallIdentity id = cx.identity();
        if (id.key() != null) {
            h.set(id.keyHeader(), id.key());
        }
        h.set(CallIdentity.X_CALL_ID, id.callId());
        h.set(CallIdentity.X_ATTEMPT, ProxyHeaders.number(n));
        h.set(CallIdentity.X_REQUEST_TIMEOUT_MS, ProxyHeaders.number(Math.max(0, cx.deadline().remainingMillis())));
        cx.watch().upstreamRequest(n, h);
        return req;
    }

    /** The request of {@code f.attempt()} could not be written: true when that is this attempt's, whose connection is then given up. */
    boolean sendFailed(CallEvent.SendFailed f) {
        if (f.attempt() != number || conn == null) {
            return false;
        }
        releaseConn(false);
        return true;
    }

    /** The attempt's time ran out: its connection is given up; a read-timeout when the request went, else a connect failure. */
    FailureClass timedOut() {
        boolean sent = conn != null;
        releaseConn(false);
        return sent ? FailureClass.READ_TIMEOUT : FailureClass.CONNECT_FAILURE;
    }

    /** The attempt ended with {@code outcome}: its watch is told. */
    void ended(AttemptOutcome outcome) {
        cx.watch().tryEnded(number, outcome, cx.services().ticker().nanos());
    }

    /** A retry after {@code d}'s delay: logged, and the next attempt timed. */
    void retryAfter(RetryDecision d) {
        cx.services().log().retry(cx.call().route().name(), cx.identity().callId(), cx.identity().bizId(), number, d.spelling(),
                d.delay().toMillis());
        cx.door().after(d.delay().toNanos(), new Timer(TimerKind.BACKOFF, number));
    }

    /** Pauses or resumes reading the answer (back-pressure from the client). */
    void read(boolean read) {
        if (conn != null) {
            conn.channel().config().setAutoRead(read);
        }
    }

    /** Ends the lease on the connection: back to its pool when {@code reusable}. */
    void releaseConn(boolean reusable) {
        UpstreamConnection c = conn;
        conn = null;
        if (c != null) {
            c.release(reusable);
        }
    }

    /** The connection closed under the attempt. */
    void lost() {
        conn = null;
    }

    /** The answer's head came: the attempt's time stops, and it is counted by its status class. */
    void answered(int status) {
        stopTimer();
        int statusClass = status / 100;
        record(statusClass >= 1 && statusClass <= 5 ? STATUS_CLASSES[statusClass] : statusClass + "xx");
    }

    /** The attempt failed: a connection for it that still comes is closed; counted under {@code result} unless null. */
    void failed(String result) {
        failedAttempt = number;
        stopTimer();
        if (result != null) {
            record(result);
        }
    }

    private void record(String result) {
        recordedAttempt = number;
        cx.services().metrics().upstreamAttempt(cx.call().route().name(), result,
                Duration.ofNanos(cx.services().ticker().nanos() - startNanos));
    }

    void stopTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    @Override
    public void onResponseHead(HttpResponse response) {
        cx.door().enter(new CallEvent.Head(response));
    }

    @Override
    public void onResponseContent(HttpContent content) {
        cx.door().enter(new CallEvent.Content(content));
    }

    @Override
    public void onReadComplete() {
        cx.door().enter(CallEvent.Signal.READ_COMPLETE);
    }

    @Override
    public void onWritabilityChanged(boolean writable) {
        // The request is one buffered message; nothing to pace.
    }

    @Override
    public void onUpstreamClosed(Throwable cause) {
        cx.door().enter(new CallEvent.UpstreamClosed(cause));
    }

    @Override
    public void onUpstreamIdle() {
        cx.door().enter(CallEvent.Signal.UPSTREAM_IDLE);
    }
}
