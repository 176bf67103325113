package dev.idemproxy.app.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.LoggingEvent;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

/** The encoder writes what the pattern it replaces (logback.xml's before it) wrote, byte for byte. */
class TextLineEncoderTest {
    private static final String PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{0} - %msg%n";

    private final LoggerContext context = new LoggerContext();

    @Test
    void writesWhatThePatternWroteInUtc() {
        sameBytesIn("UTC");
    }

    @Test
    void writesWhatThePatternWroteInZonesWithOffsetsAndSummerTime() {
        sameBytesIn("Europe/Paris");
        sameBytesIn("Asia/Kolkata");
        sameBytesIn("America/St_Johns");
    }

    @Test
    void aLineIsTheTextLayoutsLine() {
        TimeZone before = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
        try {
            TextLineEncoder ours = new TextLineEncoder();
            ours.setContext(context);
            ours.start();
            LoggingEvent e = event("idemproxy.calls", Level.INFO, "[call=c-1][biz=-][try=1] route=orders", null,
                    1_796_168_199_643L);
            assertThat(new String(ours.encode(e), StandardCharsets.UTF_8)).isEqualTo(
                    "2026-12-01T23:36:39.643Z INFO  [idemproxy-io-1-1] calls - [call=c-1][biz=-][try=1] route=orders"
                            + System.lineSeparator());
        } finally {
            TimeZone.setDefault(before);
        }
    }

    @Test
    void linesEncodedIntoOneSmallBufferAreTheLinesOneAfterTheOther() {
        TextLineEncoder ours = new TextLineEncoder();
        ours.setContext(context);
        ours.start();
        ByteBuf batch = Unpooled.buffer(1);  // grows on the way, in the middle of lines
        java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
        for (LoggingEvent e : events()) {
            ours.encodeInto(e, batch);
            expected.writeBytes(ours.encode(e));
        }
        assertThat(ByteBufUtil.getBytes(batch)).isEqualTo(expected.toByteArray());
        assertThat(batch.toString(StandardCharsets.UTF_8)).contains("über ✓ 東京", "inner ✓");
        batch.writerIndex(3);
        ByteBufUtil.writeUtf8(batch, "é-x");
        assertThat(batch.toString(StandardCharsets.UTF_8)).endsWith("é-x").hasSize(6);
        batch.release();
    }

    @Test
    void messagesStayOnOneLineWhateverACallCarries() {
        TextLineEncoder ours = new TextLineEncoder();
        ours.setContext(context);
        ours.start();
        String line = new String(ours.encode(event("idemproxy.calls", Level.INFO,
                "[call=c][biz=o-1\r\n2026-12-01T00:00:00.000Z INFO  [x] calls - forged\u0007\tend\\n\u0085a\u2028b\u2029c\u007f] route=r",
                null, 0L)), StandardCharsets.UTF_8);
        assertThat(line).endsWith("[call=c][biz=o-1\\r\\n2026-12-01T00:00:00.000Z INFO  [x] calls - forged\\u0007\tend\\n"
                + "\\u0085a\\u2028b\\u2029c\\u007f] route=r" + System.lineSeparator());
        assertThat(line.strip().lines()).hasSize(1);
    }

    private void sameBytesIn(String zone) {
        TimeZone before = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone(zone));
        try {
            PatternLayoutEncoder theirs = new PatternLayoutEncoder();
            theirs.setContext(context);
            theirs.setPattern(PATTERN);
            theirs.start();
            TextLineEncoder ours = new TextLineEncoder();
            ours.setContext(context);
            ours.start();
            for (LoggingEvent e : events()) {
                // a line break in a message is escaped (see messagesStayOnOneLine); the rest is the pattern's
                LoggingEvent reference = e.getMessage().contains("\n")
                        ? event(e.getLoggerName(), e.getLevel(), e.getMessage().replace("\n", "\\n"), null, e.getTimeStamp())
                        : e;
                assertThat(new String(ours.encode(e), StandardCharsets.UTF_8))
                        .as("%s at %d in %s", e.getMessage(), e.getTimeStamp(), zone)
                        .isEqualTo(new String(theirs.encode(reference), StandardCharsets.UTF_8));
            }
        } finally {
            TimeZone.setDefault(before);
        }
    }

    private List<LoggingEvent> events() {
        List<LoggingEvent> events = new ArrayList<>();
        long[] times = {
            0L, 7L, 99L, 1_000L, 1_796_168_199_643L, 1_796_168_199_999L, 1_796_168_200_000L, 1_796_168_200_005L,
            1_774_746_000_000L,  // 2026-03-29 01:00 UTC, Paris goes to summer time
            1_792_890_000_000L,  // 2026-10-25 01:00 UTC, and back
            1_792_889_999_999L, 4_102_444_800_123L,
        };
        Level[] levels = {Level.TRACE, Level.DEBUG, Level.INFO, Level.WARN, Level.ERROR};
        String[] loggers = {"idemproxy.calls", "dev.idemproxy.core.ProxyServer", "root", "NoDots", "trailing.", "a.b.c.D$Inner"};
        String[] messages = {"[call=c-1][biz=b][try=2] route=r key=k status=201 outcome=replayed ms=3", "", "über ✓ 東京",
            "two\nlines"};
        int i = 0;
        for (long t : times) {
            Level level = levels[i % levels.length];
            String logger = loggers[i % loggers.length];
            String message = messages[i % messages.length];
            events.add(event(logger, level, message, null, t));
            i++;
        }
        events.add(event("dev.idemproxy.app.wiring.Assembly", Level.ERROR, "cannot start",
                new IllegalStateException("outer", new java.io.IOException("inner ✓")), 1_796_168_199_643L));
        events.add(event("x.Y", Level.WARN, "no message on the exception", new RuntimeException(), 1_796_168_199_644L));
        return events;
    }

    private LoggingEvent event(String loggerName, Level level, String message, Throwable thrown, long millis) {
        Logger logger = context.getLogger(loggerName);
        LoggingEvent e = new LoggingEvent(Logger.class.getName(), logger, level, message, thrown, null);
        e.setTimeStamp(millis);
        e.setThreadName("idemproxy-io-1-1");
        return e;
    }
}
