package dev.idemproxy.core.call;

import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.util.Ticker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * One line per finished call (CONTRACT §9), {@code [call=ID][biz=ID][try=N] route=… key=…
 * status=… outcome=… ms=…}, with the same fields as key-value pairs for the JSON layout; and
 * the {@code idemproxy_requests_total} count. A call with a label (an MCP tool call) adds
 * {@code tool=NAME} after {@code ms}, and its dialect counts it too ({@link CallDialect#finished}). Every line is at INFO (logger
 * {@code idemproxy.calls}), except a pass-through call's on a route whose {@code log.passThrough}
 * is false, which is at DEBUG (see {@link #passedThrough}). Headers and bodies are never logged.
 * This class is thread-safe.
 *
 * <p>The calls logger writes nothing else, so it has exactly one line per call: a retry is not a
 * call's end. Each retry decision goes to {@code idemproxy.retries} at DEBUG ({@link #retry}), as
 * Envoy's access log has one entry per request with its attempt count while its router's retry
 * decisions are debug logging; the call's line keeps the attempts ({@code try=N}) and the reason
 * the last decision gave.
 *
 * <p>The key-value pairs are attached only when the layout writes them ({@code keyValues}): the
 * text layout prints the message alone, and building eight pairs per call for it was a thirtieth
 * of a replay's event-loop time. A field the text shows as {@code -} (no call id, business id or
 * key) is a null value; {@code try}, {@code status} and {@code ms} are numbers; {@code reason} is
 * there only when the text has it.
 */
public final class CallLog {
    private static final Logger LOG = LoggerFactory.getLogger("idemproxy.calls");
    private static final Logger RETRIES = LoggerFactory.getLogger("idemproxy.retries");

    private final ProxyMetrics metrics;
    private final boolean keyValues;
    private final Ticker ticker;

    /** @param keyValues whether to attach the line's fields as key-value pairs (the JSON layout's) */
    public CallLog(ProxyMetrics metrics, boolean keyValues) {
        this(metrics, keyValues, Ticker.system());
    }

    /** @param ticker the time source a call's {@code startNanos} was read from */
    public CallLog(ProxyMetrics metrics, boolean keyValues, Ticker ticker) {
        this.metrics = metrics;
        this.keyValues = keyValues;
        this.ticker = ticker;
    }

    public ProxyMetrics metrics() {
        return metrics;
    }

    /**
     * A routed call's line at INFO, with its label ({@code tool=}) when it has one; its dialect
     * counts it in its own metrics.
     *
     * @param callId null for calls that never got one
     * @param detail an extra reason (the retry decision's), or null
     */
    public void finished(ProxyCall call, CallOutcome outcome, int status, String callId, String bizId, String key,
            int attempts, String detail) {
        call.dialect().finished(call, outcome);
        finished(true, call.route().name(), outcome, status, call.startNanos(), callId, bizId, key, attempts, detail,
                call.label());
    }

    /**
     * A call's line at INFO.
     *
     * @param callId null for calls that never got one
     * @param detail an extra reason (the retry decision's), or null
     */
    public void finished(String route, CallOutcome outcome, int status, long startNanos, String callId, String bizId,
            String key, int attempts, String detail) {
        finished(true, route, outcome, status, startNanos, callId, bizId, key, attempts, detail, null);
    }

    /**
     * A pass-through call's line: at INFO, or at DEBUG when {@code atInfo} is false (the route's
     * {@code log.passThrough}), which costs nothing but the count while DEBUG is off.
     */
    public void passedThrough(boolean atInfo, String route, boolean failed, int status, long startNanos) {
        finished(atInfo, route, failed ? CallOutcome.FAILED : CallOutcome.FORWARDED, status, startNanos, null, null, null, 1,
                null, null);
    }

    /** A pass-through call's line (as {@link #passedThrough(boolean, String, boolean, int, long)}), with its label; its dialect counts it. */
    public void passedThrough(ProxyCall call, boolean failed, int status) {
        CallOutcome outcome = failed ? CallOutcome.FAILED : CallOutcome.FORWARDED;
        call.dialect().finished(call, outcome);
        finished(call.route().log().passThrough(), call.route().name(), outcome, status, call.startNanos(), null, null, null, 1,
                null, call.label());
    }

    private void finished(boolean atInfo, String route, CallOutcome outcome, int status, long startNanos, String callId,
            String bizId, String key, int attempts, String detail, String label) {
        metrics.request(route, outcome);
        if (atInfo ? !LOG.isInfoEnabled() : !LOG.isDebugEnabled()) {
            return;
        }
        long ms = (ticker.nanos() - startNanos) / 1_000_000L;
        String line = "[call=" + dash(callId) + "][biz=" + dash(bizId) + "][try=" + attempts + "] route=" + route
                + " key=" + dash(key) + " status=" + status + " outcome=" + outcome.spelling() + " ms=" + ms
                + (label == null ? "" : " tool=" + safe(label)) + (detail == null ? "" : " reason=" + detail);
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
                .addKeyValue("outcome", outcome.spelling()).addKeyValue("ms", ms);
        if (label != null) {
            e.addKeyValue("tool", label);
        }
        if (detail != null) {
            e.addKeyValue("reason", detail);
        }
        e.log(line);
    }

    /**
     * A client-supplied value (a tool's name) as one field of the line: as it is when it holds
     * only letters, digits and {@code _ - . / :}; else quoted with JSON escaping, every control or
     * non-ASCII character as a JSON \\u escape, so no value can forge a field or a line (CONTRACT
     * §12). At most 128 characters, then {@code …}.
     */
    static String safe(String value) {
        boolean plain = !value.isEmpty() && value.length() <= 128;
        for (int i = 0; plain && i < value.length(); i++) {
            char c = value.charAt(i);
            plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'
                    || c == '.' || c == '/' || c == ':';
        }
        if (plain) {
            return value;
        }
        StringBuilder b = new StringBuilder(value.length() + 8).append('"');
        int n = Math.min(value.length(), 128);
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append(value.length() > n ? "\\u2026" : "").append('"').toString();
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
        e.log("[call={}][biz={}][try={}] route={} retrying in {} ms: {}", callId, dash(bizId), attempt, route, delayMillis, reason);
    }

    private static String dash(String s) {
        return s == null ? "-" : s;
    }
}
