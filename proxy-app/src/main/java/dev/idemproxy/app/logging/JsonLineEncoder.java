package dev.idemproxy.app.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.util.CachingDateFormatter;
import dev.idemproxy.core.util.LogValues;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.ZoneOffset;
import java.util.List;
import org.slf4j.event.KeyValuePair;

/**
 * One JSON object per line for {@code --log-format json}:
 * {@code {"timestamp":"2026-12-01T23:36:39.643Z","level":"INFO","logger":"idemproxy.calls",
 * "thread":"…",}<em>the event's key-value pairs</em>{@code ,"message":"…"}} and, when the event
 * carries one, {@code "exception":"<stack trace>"}; then {@code \n}.
 *
 * <p>The key-value pairs are top-level fields, so a call line (CONTRACT §9) reads as
 * {@code "call":"…","biz":null,"try":2,"route":"orders","key":"k-1","status":201,
 * "outcome":"executed","ms":12,"reason":"executed"}: a number is written as a JSON number, a
 * boolean as a boolean, null as {@code null}, anything else as its {@code toString()} in a
 * string. A pair named like one of the fixed fields is left out rather than written twice. The
 * timestamp is UTC with milliseconds, whatever the JVM's time zone.
 *
 * <p>Strings are escaped by hand as RFC 8259 asks ({@code "}, {@code \}, and every C0 control
 * character), and with them every other character a log value escapes ({@link LogValues#isControl}:
 * DEL, the C1 controls such as U+0085, U+2028 and U+2029) and half a surrogate pair, all as
 * <code>&#92;uXXXX</code>: still JSON, read back as the same string, and one line whatever a line
 * reader takes for a line break. Other characters are written as UTF-8. A string with nothing to
 * escape, a call line's usual case, is one UTF-8 write. No reflection and no {@code String} per
 * field: the log writer has a batch encoded straight into its buffer ({@link #encodeInto}).
 * This class is thread-safe.
 */
public final class JsonLineEncoder extends LineEncoder {
    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final CachingDateFormatter date = new CachingDateFormatter("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", ZoneOffset.UTC);




    @Override
    void encodeInto(ILoggingEvent event, ByteBuf out) {
        ByteBufUtil.writeAscii(out, "{\"timestamp\":\"");
        ByteBufUtil.writeAscii(out, date.format(event.getTimeStamp()));
        ByteBufUtil.writeAscii(out, "\",\"level\":\"");
        ByteBufUtil.writeAscii(out, event.getLevel().toString());
        ByteBufUtil.writeAscii(out, "\",\"logger\":");
        writeString(out, event.getLoggerName());
        ByteBufUtil.writeAscii(out, ",\"thread\":");
        writeString(out, event.getThreadName());
        List<KeyValuePair> pairs = event.getKeyValuePairs();
        if (pairs != null) {
            for (int i = 0, n = pairs.size(); i < n; i++) {
                KeyValuePair p = pairs.get(i);
                if (p == null || p.key == null || isFixedField(p.key)) {
                    continue;
                }
                out.writeByte(',');
                writeString(out, p.key);
                out.writeByte(':');
                writeValue(out, p.value);
            }
        }
        ByteBufUtil.writeAscii(out, ",\"message\":");
        writeString(out, event.getFormattedMessage());
        IThrowableProxy thrown = event.getThrowableProxy();
        if (thrown != null) {
            ByteBufUtil.writeAscii(out, ",\"exception\":");
            writeString(out, ThrowableProxyUtil.asString(thrown));
        }
        ByteBufUtil.writeAscii(out, "}\n");
    }

    private static boolean isFixedField(String key) {
        return switch (key) {
            case "timestamp", "level", "logger", "thread", "message", "exception" -> true;
            default -> false;
        };
    }

    private static void writeValue(ByteBuf out, Object v) {
        if (v == null) {
            ByteBufUtil.writeAscii(out, "null");
        } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            writeLong(out, ((Number) v).longValue());
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isFinite(d)) {
                ByteBufUtil.writeAscii(out, v.toString());  // e.g. 0.5 or 1.0E10, both JSON numbers
            } else {
                writeString(out, v.toString());              // NaN and Infinity are not
            }
        } else if (v instanceof BigInteger || v instanceof BigDecimal) {
            ByteBufUtil.writeAscii(out, v.toString());
        } else if (v instanceof Boolean) {
            ByteBufUtil.writeAscii(out, v.toString());
        } else {
            writeString(out, v.toString());
        }
    }

    /** Writes {@code v}'s decimal digits without making a {@code String} of them. */
    static void writeLong(ByteBuf out, long v) {
        if (v == Long.MIN_VALUE) {
            ByteBufUtil.writeAscii(out, Long.toString(v));
            return;
        }
        if (v < 0) {
            out.writeByte('-');
            v = -v;
        }
        int digits = 1;
        for (long rest = v / 10; rest != 0; rest /= 10) {
            digits++;
        }
        out.ensureWritable(digits);
        int end = out.writerIndex() + digits;
        for (int i = end - 1; i >= out.writerIndex(); i--) {
            out.setByte(i, '0' + (int) (v % 10));
            v /= 10;
        }
        out.writerIndex(end);
    }

    /** Writes {@code s} as a JSON string, quotes included; {@code null} for null. */
    static void writeString(ByteBuf out, String s) {
        if (s == null) {
            ByteBufUtil.writeAscii(out, "null");
            return;
        }
        out.writeByte('"');
        int start = 0;
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;  // a pair: written as its UTF-8
                continue;
            }
            if (!LogValues.isControl(c) && c != '"' && c != '\\' && !Character.isSurrogate(c)) {
                continue;
            }
            if (i > start) {
                ByteBufUtil.writeUtf8(out, s, start, i);
            }
            writeEscape(out, c);
            start = i + 1;
        }
        if (start < n) {
            ByteBufUtil.writeUtf8(out, s, start, n);
        }
        out.writeByte('"');
    }

    private static void writeEscape(ByteBuf out, char c) {
        out.writeByte('\\');
        switch (c) {
            case '"': out.writeByte('"'); return;
            case '\\': out.writeByte('\\'); return;
            case '\n': out.writeByte('n'); return;
            case '\r': out.writeByte('r'); return;
            case '\t': out.writeByte('t'); return;
            case '\b': out.writeByte('b'); return;
            case '\f': out.writeByte('f'); return;
            default:
                out.writeByte('u');
                out.writeByte(HEX[(c >> 12) & 0xF]);
                out.writeByte(HEX[(c >> 8) & 0xF]);
                out.writeByte(HEX[(c >> 4) & 0xF]);
                out.writeByte(HEX[c & 0xF]);
        }
    }
}
