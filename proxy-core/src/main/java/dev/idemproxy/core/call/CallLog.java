package dev.idemproxy.core.call;

import dev.idemproxy.core.util.LogValues;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.secret.Redactor;
import dev.idemproxy.core.util.Ticker;
import java.net.URI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * One line per finished call and the {@code idemproxy_requests_total} count:
 * <pre>
 * [call=ID][biz=ID][try=N] route=R key=K status=S outcome=O ms=M method=M path=P upstream=H in=I out=O[ reason=X]
 * </pre>
 * The first fields come first, in a fixed order with single spaces, so a reader of
 * {@code route=… key=… status=… outcome=… ms=…} still finds them; then the request's method, its
 * path and query as the proxy forwards it (secret query values as {@code ***}, {@link Redactor}),
 * the upstream's {@code host[:port]}, the request body bytes received from the client and the
 * response body bytes written to it; then the reason, when there is one. Every value a client can
 * choose goes through {@link LogValues}: its text cannot forge a field or a line. The same fields go to the
 * JSON layout as key-value pairs. Every line is at INFO (logger {@code idemproxy.calls}), except
 * a pass-through call's on a route whose {@code log.passThrough} is false, which is at DEBUG (see
 * {@link #passedThrough}). A call with a label (an MCP tool call) adds {@code tool=NAME} before
 * the reason, and its dialect counts it too ({@link CallDialect#finished}). Headers and bodies are
 * never logged. This class is thread-safe.
 *
 * <p>The calls logger writes nothing else, so it has exactly one line per call: a retry is not a
 * call's end. Each retry decision goes to {@code idemproxy.retries} at DEBUG ({@link #retry}), as
 * Envoy's access log has one entry per request with its attempt count while its router's retry
 * decisions are debug logging; the call's line keeps the attempts ({@code try=N}) and the reason
 * the last decision gave.
 *
 * <p>The key-value pairs are attached only when the layout writes them ({@code keyValues}): the
 * text layout prints the message alone, and building a dozen pairs per call for it was a
 * thirtieth of a replay's event-loop time. A field the text shows as {@code -} (no call id,
 * business id, key, method, path or upstream) is a null value; {@code try}, {@code status},
 * {@code ms}, {@code in} and {@code out} are numbers; {@code reason} is there only when the text
 * has it.
 */
public final class CallLog {
    private static final Logger LOG = LoggerFactory.getLogger("idemproxy.calls");
    private static final Logger RETRIES = LoggerFactory.getLogger("idemproxy.retries");

    private final ProxyMetrics metrics;
    private final boolean keyValues;
    private final Redactor redactor;
    private final Ticker ticker;
    /** The last upstream named in a line and its text there: most lines name the one a route has. */
    private volatile UpstreamText lastUpstream;

    private record UpstreamText(URI upstream, String text) {}

    /** @param keyValues whether to attach the line's fields as key-value pairs (the JSON layout's) */
    public CallLog(ProxyMetrics metrics, boolean keyValues) {
        this(metrics, keyValues, Redactor.BUILT_IN, Ticker.system());
    }

    /** As below, on the JVM's ticker. */
    public CallLog(ProxyMetrics metrics, boolean keyValues, Redactor redactor) {
        this(metrics, keyValues, redactor, Ticker.system());
    }

    /**
     * @param keyValues whether to attach the line's fields as key-value pairs (the JSON layout's)
     * @param redactor  what a logged path shows of its query
     * @param ticker    the time source a call's {@code startNanos} was read from
     */
    public CallLog(ProxyMetrics metrics, boolean keyValues, Redactor redactor, Ticker ticker) {
        this.metrics = metrics;
        this.keyValues = keyValues;
        this.redactor = redactor;
        this.ticker = ticker;
    }

    public ProxyMetrics metrics() {
        return metrics;
    }

    /**
     * A call's line at INFO; its method, path, upstream and byte counts come from {@code call}.
     *
     * @param callId null for calls that never got one
     * @param detail an extra reason (the retry decision's), or null
     */
    public void finished(ProxyCall call, CallOutcome outcome, int status, String callId, String bizId, String key, int attempts,
            String detail) {
        call.dialect().finished(call, outcome);
        line(true, call.route().name(), outcome, status, call.startNanos(), callId, bizId, key, attempts, detail,
                call.request().method().name(), call.pathAndQuery(), call.route().upstream(), call.bytesIn(), call.bytesOut(),
                call.label());
    }

    /**
     * A pass-through call's line: at INFO, or at DEBUG when the route's {@code log.passThrough}
     * is false, which costs nothing but the count while DEBUG is off.
     */
    public void passedThrough(ProxyCall call, boolean failed, int status) {
        CallOutcome outcome = failed ? CallOutcome.FAILED : CallOutcome.FORWARDED;
        call.dialect().finished(call, outcome);
        line(call.route().log().passThrough(), call.route().name(), outcome, status, call.startNanos(), null, null, null, 1, null,
                call.request().method().name(), call.pathAndQuery(), call.route().upstream(), call.bytesIn(), call.bytesOut(),
                call.label());
    }

    /**
     * The line of a request refused before it had a route (no route matched, an unusable target):
     * what is known of it, no upstream.
     *
     * @param target   the request target as sent
     * @param bytesOut the body bytes of the answer
     */
    public void refused(String route, CallOutcome outcome, int status, long startNanos, String method, String target,
            long bytesOut, String detail) {
        line(true, route, outcome, status, startNanos, null, null, null, 0, detail, method, target, null, 0, bytesOut, null);
    }

    /**
     * A line at INFO of a call known only by its route (no request at hand): method, path and
     * upstream are {@code -}, the byte counts 0.
     *
     * @param callId null for calls that never got one
     * @param detail an extra reason, or null
     */
    public void finished(String route, CallOutcome outcome, int status, long startNanos, String callId, String bizId,
            String key, int attempts, String detail) {
        line(true, route, outcome, status, startNanos, callId, bizId, key, attempts, detail, null, null, null, 0, 0, null);
    }

    private void line(boolean atInfo, String route, CallOutcome outcome, int status, long startNanos, String callId,
            String bizId, String key, int attempts, String detail, String method, String target, URI upstream, long in,
            long out, String label) {
        metrics.request(route, outcome);
        if (atInfo ? !LOG.isInfoEnabled() : !LOG.isDebugEnabled()) {
            return;
        }
        long ms = (ticker.nanos() - startNanos) / 1_000_000L;
        String path = redactor.target(target);
        // One concatenation, sized once (a StringBuilder grown field by field cost twice as much).
        // The call id (ours: hex) and the route (a config name, [A-Za-z0-9_.-]) are written as they
        // are; everything a client can choose goes through LogValues, which returns a value that
        // needs nothing as it is.
        String line = "[call=" + (callId == null ? "-" : callId) + "][biz=" + LogValues.of(bizId) + "][try=" + attempts
                + "] route=" + route + " key=" + LogValues.of(key) + " status=" + status + " outcome=" + outcome.spelling()
                + " ms=" + ms + " method=" + LogValues.of(method) + " path=" + LogValues.of(path) + " upstream="
                + upstreamText(upstream) + " in=" + in + " out=" + out + (label == null ? "" : " tool=" + LogValues.of(label))
                + (detail == null ? "" : " reason=" + LogValues.of(detail));
        if (!keyValues) {
            // The plain call, not the fluent builder: that builds an event of slf4j's, which logback
            // then copies into its own.
            if (atInfo) {
                LOG.info(line);
            } else {
                LOG.debug(line);
            }
            return;
        }
        LoggingEventBuilder e = atInfo ? LOG.atInfo() : LOG.atDebug();
        e.addKeyValue("call", callId).addKeyValue("biz", bizId).addKeyValue("try", attempts)
                .addKeyValue("route", route).addKeyValue("key", key).addKeyValue("status", status)
                .addKeyValue("outcome", outcome.spelling()).addKeyValue("ms", ms)
                .addKeyValue("method", method).addKeyValue("path", path)
                .addKeyValue("upstream", upstream == null ? null
                        : upstream.getPort() > 0 ? upstream.getHost() + ":" + upstream.getPort() : upstream.getHost())
                .addKeyValue("in", in).addKeyValue("out", out);
        if (label != null) {
            e.addKeyValue("tool", label);
        }
        if (detail != null) {
            e.addKeyValue("reason", detail);
        }
        e.log(line);
    }

    /**
     * Counts a retry and, while DEBUG is on for logger {@code idemproxy.retries}, logs it: {@code
     * [call=ID][biz=ID][try=N] route=… retrying in N ms: REASON}, where {@code try} is the attempt
     * that failed. Never a line of the calls logger (see the class comment).
     */
    public void retry(String route, String callId, String bizId, int attempt, String reason, long delayMillis) {
        metrics.retry(route, reason);
        if (!RETRIES.isDebugEnabled()) {
            return;
        }
        LoggingEventBuilder e = RETRIES.atDebug();
        if (keyValues) {
            e.addKeyValue("call", callId).addKeyValue("biz", bizId).addKeyValue("try", attempt).addKeyValue("route", route)
                    .addKeyValue("delayMs", delayMillis).addKeyValue("reason", reason);
        }
        e.log("[call={}][biz={}][try={}] route={} retrying in {} ms: {}", LogValues.of(callId), LogValues.of(bizId), attempt,
                LogValues.of(route), delayMillis, LogValues.of(reason));
    }

    /** {@code upstream} as a line shows it ({@code host:port}, or {@code -}), made once per upstream in a row. */
    private String upstreamText(URI upstream) {
        if (upstream == null) {
            return "-";
        }
        UpstreamText last = lastUpstream;
        if (last != null && last.upstream() == upstream) {
            return last.text();
        }
        String text = upstream.getPort() > 0 ? LogValues.of(upstream.getHost()) + ":" + upstream.getPort()
                : LogValues.of(upstream.getHost());
        lastUpstream = new UpstreamText(upstream, text);
        return text;
    }
}
