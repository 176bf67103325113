package dev.idemproxy.core.forward;

import dev.idemproxy.core.metrics.ProxyMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * One line per CONNECT at INFO on logger {@code idemproxy.connect} (CONTRACT §11), and the
 * {@code idemproxy_connect_total{result}} count: {@code CONNECT target=host:port result=… ms=…}
 * plus, for an interception, how the client's TLS handshake ended ({@code tls=ok}, or the
 * reason), and for a tunnel the bytes each way ({@code up} client to target, {@code down} back).
 * A CONNECT the proxy could not serve is logged with {@code result=unreachable} (502) or
 * {@code result=rejected} (400) and not counted. Values that could break a field are quoted with
 * JSON escaping. This class is thread-safe.
 */
final class ConnectLog {
    private static final Logger LOG = LoggerFactory.getLogger("idemproxy.connect");

    private final ProxyMetrics metrics;
    private final boolean keyValues;

    ConnectLog(ProxyMetrics metrics, boolean keyValues) {
        this.metrics = metrics;
        this.keyValues = keyValues;
    }

    /** Counts a CONNECT that was answered 200 (intercepted, tunnelled) or 403 (refused). */
    void counted(ConnectResult result) {
        metrics.connect(result.spelling());
    }

    void intercepted(ConnectTarget target, long startNanos, String tls) {
        line(target.authority(), ConnectResult.INTERCEPTED.spelling(), startNanos, "tls", tls, null, -1, -1);
    }

    void tunnelled(ConnectTarget target, long startNanos, long up, long down) {
        line(target.authority(), ConnectResult.TUNNELLED.spelling(), startNanos, null, null, null, up, down);
    }

    void refused(ConnectTarget target, long startNanos) {
        line(target.authority(), ConnectResult.REFUSED.spelling(), startNanos, null, null, null, -1, -1);
    }

    /** A CONNECT answered with a problem: {@code result} is {@code unreachable} or {@code rejected}. */
    void failed(String target, String result, long startNanos, String reason) {
        line(target, result, startNanos, null, null, reason, -1, -1);
    }

    private void line(String target, String result, long startNanos, String tlsKey, String tls, String reason, long up, long down) {
        if (!LOG.isInfoEnabled()) {
            return;
        }
        long ms = (System.nanoTime() - startNanos) / 1_000_000L;
        StringBuilder sb = new StringBuilder(96).append("CONNECT target=").append(quoted(target)).append(" result=").append(result);
        if (tlsKey != null) {
            sb.append(' ').append(tlsKey).append('=').append(quoted(tls));
        }
        if (up >= 0) {
            sb.append(" up=").append(up).append(" down=").append(down);
        }
        sb.append(" ms=").append(ms);
        if (reason != null) {
            sb.append(" reason=").append(quoted(reason));
        }
        if (!keyValues) {
            LOG.info(sb.toString());
            return;
        }
        LoggingEventBuilder e = LOG.atInfo().addKeyValue("target", target).addKeyValue("result", result);
        if (tlsKey != null) {
            e.addKeyValue(tlsKey, tls);
        }
        if (up >= 0) {
            e.addKeyValue("up", up).addKeyValue("down", down);
        }
        e.addKeyValue("ms", ms);
        if (reason != null) {
            e.addKeyValue("reason", reason);
        }
        e.log(sb.toString());
    }

    /** {@code value} as it is, or JSON-quoted when it holds a space, a quote, {@code =}, {@code ]} or a control character. */
    static String quoted(String value) {
        boolean plain = !value.isEmpty();
        for (int i = 0; i < value.length() && plain; i++) {
            char c = value.charAt(i);
            plain = c > 0x20 && c < 0x7f && c != '"' && c != '=' && c != ']' && c != '\\';
        }
        if (plain) {
            return value;
        }
        StringBuilder sb = new StringBuilder(value.length() + 8).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029') {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
