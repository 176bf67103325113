package dev.idemproxy.app.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.encoder.EncoderBase;
import ch.qos.logback.core.util.CachingDateFormatter;
import java.nio.charset.StandardCharsets;

/**
 * The text log line, {@code 2026-12-01T23:36:39.643Z INFO  [thread] Logger - message}, then the
 * stack trace if there is one: what Logback's {@code PatternLayoutEncoder} writes for
 * {@code %d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{0} - %msg%n}, made directly.
 *
 * <p>A busy proxy writes a line per protected call. Through the pattern's chain of converters the
 * line took a third of the log writer's time; here the rest is appended as it is, and the date
 * comes from the formatter {@code %d} itself uses (Logback's {@code CachingDateFormatter}, in the
 * JVM's default time zone, which formats a millisecond once however many lines share it). In a
 * warm loop a line costs about 70% of the pattern's time; in the proxy the writer's share of
 * a replay hardly moved: most of its time goes to reading events the event loop wrote 10 ms
 * earlier, and to the write itself. This class is thread-safe.
 */
public final class TextLineEncoder extends EncoderBase<ILoggingEvent> {
    private final CachingDateFormatter date = new CachingDateFormatter("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");

    @Override
    public byte[] headerBytes() {
        return null;
    }

    @Override
    public byte[] footerBytes() {
        return null;
    }

    @Override
    public byte[] encode(ILoggingEvent event) {
        String message = event.getFormattedMessage();
        String thread = event.getThreadName();
        StringBuilder b = new StringBuilder(64 + (thread == null ? 4 : thread.length())
                + (message == null ? 4 : message.length()));
        b.append(date.format(event.getTimeStamp())).append(' ');
        String level = event.getLevel().toString();
        b.append(level);
        for (int i = level.length(); i < 5; i++) {
            b.append(' ');
        }
        b.append(" [").append(thread).append("] ");
        appendLastSegment(b, event.getLoggerName());
        b.append(" - ").append(message).append(CoreConstants.LINE_SEPARATOR);
        IThrowableProxy thrown = event.getThrowableProxy();
        if (thrown != null) {
            b.append(ThrowableProxyUtil.asString(thrown));
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** What {@code %logger{0}} prints: the name after its last dot. */
    private static void appendLastSegment(StringBuilder b, String loggerName) {
        if (loggerName == null) {
            b.append("null");
            return;
        }
        b.append(loggerName, loggerName.lastIndexOf('.') + 1, loggerName.length());
    }
}
