package dev.idemproxy.app.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;
import org.slf4j.event.KeyValuePair;

class JsonLineEncoderTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final LoggerContext context = new LoggerContext();
    private final JsonLineEncoder encoder = new JsonLineEncoder();

    JsonLineEncoderTest() {
        encoder.setContext(context);
        encoder.start();
    }

    @Test
    void aCallLinesPairsAreTopLevelFieldsWithTheirTypes() throws Exception {
        LoggingEvent e = event("idemproxy.calls", Level.INFO,
                "[call=c-1][biz=-][try=2] route=orders key=k-9 status=201 outcome=executed ms=12 reason=executed", null);
        e.addKeyValuePair(new KeyValuePair("call", "c-1"));
        e.addKeyValuePair(new KeyValuePair("biz", null));
        e.addKeyValuePair(new KeyValuePair("try", 2));
        e.addKeyValuePair(new KeyValuePair("route", "orders"));
        e.addKeyValuePair(new KeyValuePair("key", "k-9"));
        e.addKeyValuePair(new KeyValuePair("status", 201));
        e.addKeyValuePair(new KeyValuePair("outcome", "executed"));
        e.addKeyValuePair(new KeyValuePair("ms", 12L));
        e.addKeyValuePair(new KeyValuePair("reason", "executed"));

        String line = line(e);
        assertThat(line).isEqualTo("{\"timestamp\":\"2026-12-01T23:36:39.643Z\",\"level\":\"INFO\",\"logger\":\"idemproxy.calls\","
                + "\"thread\":\"idemproxy-io-1-1\",\"call\":\"c-1\",\"biz\":null,\"try\":2,\"route\":\"orders\",\"key\":\"k-9\","
                + "\"status\":201,\"outcome\":\"executed\",\"ms\":12,\"reason\":\"executed\",\"message\":\"[call=c-1][biz=-][try=2] "
                + "route=orders key=k-9 status=201 outcome=executed ms=12 reason=executed\"}\n");
        JsonNode json = JSON.readTree(line);
        assertThat(json.get("status").isInt()).isTrue();
        assertThat(json.get("try").isInt()).isTrue();
        assertThat(json.get("ms").isNumber()).isTrue();
        assertThat(json.get("biz").isNull()).isTrue();
    }

    @Test
    void theTimestampIsUtcWhateverTheJvmsZone() throws Exception {
        TimeZone before = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("Asia/Kolkata"));
        try {
            JsonLineEncoder inKolkata = new JsonLineEncoder();
            inKolkata.setContext(context);
            inKolkata.start();
            LoggingEvent e = event("x", Level.WARN, "m", null);
            e.setTimeStamp(7L);
            String text = new String(inKolkata.encode(e), StandardCharsets.UTF_8);
            assertThat(JSON.readTree(text).get("timestamp").asText()).isEqualTo("1970-01-01T00:00:00.007Z");
        } finally {
            TimeZone.setDefault(before);
        }
    }

    @Test
    void quotesBackslashesControlCharactersAndNonAsciiAreEscapedOrWrittenAsUtf8() throws Exception {
        String message = "say \"hi\" C:\\tmp\\x\nnext\r\tline \u0001\u001f\u007f\u0085\u009f über ✓ 東京 \uD83D\uDE00 \u2028\u2029end";
        String line = line(event("idemproxy.calls", Level.INFO, message, null));

        assertThat(line).contains("say \\\"hi\\\" C:\\\\tmp\\\\x\\nnext\\r\\tline \\u0001\\u001f\\u007f\\u0085\\u009f über ✓ 東京 \uD83D\uDE00"
                + " \\u2028\\u2029end");
        assertThat(line.indexOf('\n')).isEqualTo(line.length() - 1);
        assertThat(JSON.readTree(line).get("message").asText()).isEqualTo(message);
    }

    @Test
    void anyStringReadsBackAsItself() throws Exception {
        SplittableRandom random = new SplittableRandom(20261201);
        char[] alphabet = "aZ09 \"\\/\n\r\t\b\f\u0000\u0001\u001f\u007f\u0080\u0085\u009fé✓東\u2028\u2029{}[]:,".toCharArray();
        for (int round = 0; round < 2_000; round++) {
            StringBuilder sb = new StringBuilder();
            for (int i = random.nextInt(40); i > 0; i--) {
                sb.append(random.nextInt(8) == 0 ? "\uD83D\uDE00" : String.valueOf(alphabet[random.nextInt(alphabet.length)]));
            }
            String s = sb.toString();
            LoggingEvent e = event("idemproxy.calls", Level.INFO, s, null);
            e.addKeyValuePair(new KeyValuePair("biz", s));
            JsonNode json = JSON.readTree(line(e));
            assertThat(json.get("message").asText()).isEqualTo(s);
            assertThat(json.get("biz").asText()).isEqualTo(s);
        }
    }

    @Test
    void aLoneSurrogateIsEscapedAndStillMakesValidJson() throws Exception {
        String line = line(event("x", Level.INFO, "a\uD800b\uDC00", null));
        assertThat(line).contains("\"message\":\"a\\ud800b\\udc00\"");
        assertThat(JSON.readTree(line).get("message").asText()).isEqualTo("a\uD800b\uDC00");
    }

    @Test
    void anExceptionIsItsStackTraceInOneField() throws Exception {
        String line = line(event("dev.idemproxy.app.wiring.Assembly", Level.ERROR, "cannot start",
                new IllegalStateException("outer \"q\"", new java.io.IOException("inner ✓"))));

        assertThat(line.indexOf('\n')).isEqualTo(line.length() - 1);
        JsonNode json = JSON.readTree(line);
        assertThat(json.get("level").asText()).isEqualTo("ERROR");
        assertThat(json.get("message").asText()).isEqualTo("cannot start");
        assertThat(json.get("exception").asText()).startsWith("java.lang.IllegalStateException: outer \"q\"")
                .contains("\tat dev.idemproxy.app.logging.JsonLineEncoderTest", "Caused by: java.io.IOException: inner ✓");
    }

    @Test
    void aLineWithoutPairsOrExceptionHasTheFixedFieldsOnly() throws Exception {
        JsonNode json = JSON.readTree(line(event("dev.idemproxy.core.ProxyServer", Level.INFO, "listening on 127.0.0.1:1", null)));
        List<String> names = new ArrayList<>();
        json.fieldNames().forEachRemaining(names::add);
        assertThat(names).containsExactly("timestamp", "level", "logger", "thread", "message");
        assertThat(json.get("logger").asText()).isEqualTo("dev.idemproxy.core.ProxyServer");
    }

    @Test
    void pairsNamedLikeAFixedFieldAreLeftOutAndOtherValuesKeepTheirTypes() throws Exception {
        LoggingEvent e = event("x", Level.INFO, "the message", null);
        e.addKeyValuePair(new KeyValuePair("message", "not this"));
        e.addKeyValuePair(new KeyValuePair("level", "nor this"));
        e.addKeyValuePair(new KeyValuePair("ok", true));
        e.addKeyValuePair(new KeyValuePair("ratio", 0.5));
        e.addKeyValuePair(new KeyValuePair("nan", Double.NaN));
        e.addKeyValuePair(new KeyValuePair("big", new java.math.BigInteger("123456789012345678901234567890")));
        e.addKeyValuePair(new KeyValuePair("path", java.nio.file.Path.of("/a/\"b\"")));

        String line = line(e);
        JsonNode json = JSON.readTree(line);
        assertThat(line).containsOnlyOnce("\"message\":").containsOnlyOnce("\"level\":");
        assertThat(json.get("message").asText()).isEqualTo("the message");
        assertThat(json.get("level").asText()).isEqualTo("INFO");
        assertThat(json.get("ok").isBoolean()).isTrue();
        assertThat(json.get("ratio").asDouble()).isEqualTo(0.5);
        assertThat(json.get("nan").asText()).isEqualTo("NaN");
        assertThat(json.get("big").isIntegralNumber()).isTrue();
        assertThat(json.get("path").asText()).isEqualTo("/a/\"b\"");
    }

    @Test
    void numbersAreWrittenDigitForDigit() {
        long[] values = {0, 1, 9, 10, 99, 100, 12_345, -1, -10, Integer.MAX_VALUE, Integer.MIN_VALUE, Long.MAX_VALUE,
            Long.MIN_VALUE, Long.MIN_VALUE + 1};
        for (long v : values) {
            ByteBuf b = Unpooled.buffer(1);
            b.writeByte('x');
            JsonLineEncoder.writeLong(b, v);
            assertThat(b.toString(StandardCharsets.US_ASCII)).isEqualTo("x" + v);
            b.release();
        }
    }

    @Test
    void linesEncodedIntoOneSmallBufferAreTheLinesOneAfterTheOther() {
        ByteBuf batch = Unpooled.buffer(1);  // grows on the way, in the middle of lines
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (String m : List.of("first", "über ✓ 東京", "two\nlines", "")) {
            LoggingEvent e = event("idemproxy.calls", Level.INFO, m, null);
            e.addKeyValuePair(new KeyValuePair("status", 503));
            encoder.encodeInto(e, batch);
            expected.writeBytes(encoder.encode(e));
        }
        assertThat(ByteBufUtil.getBytes(batch)).isEqualTo(expected.toByteArray());
        assertThat(batch.toString(StandardCharsets.UTF_8).split("\n")).hasSize(4);
        batch.release();
    }

    private String line(LoggingEvent e) {
        return new String(encoder.encode(e), StandardCharsets.UTF_8);
    }

    private LoggingEvent event(String loggerName, Level level, String message, Throwable thrown) {
        Logger logger = context.getLogger(loggerName);
        LoggingEvent e = new LoggingEvent(Logger.class.getName(), logger, level, message, thrown, null);
        e.setTimeStamp(1_796_168_199_643L);
        e.setThreadName("idemproxy-io-1-1");
        return e;
    }
}
