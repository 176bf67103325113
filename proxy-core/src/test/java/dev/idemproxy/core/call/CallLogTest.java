package dev.idemproxy.core.call;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.metrics.ProxyMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class CallLogTest {
    private final Logger logger = (Logger) LoggerFactory.getLogger("idemproxy.calls");
    private final ListAppender<ILoggingEvent> events = new ListAppender<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private Level before;

    @BeforeEach
    void capture() {
        before = logger.getLevel();
        logger.setLevel(Level.INFO);
        events.start();
        logger.addAppender(events);
    }

    @AfterEach
    void release() {
        logger.detachAppender(events);
        logger.setLevel(before);
    }

    @Test
    void aProtectedCallsLineCarriesItsFieldsAsPairsForTheJsonLayout() {
        new CallLog(new ProxyMetrics(registry), true).finished("orders", CallOutcome.REPLAYED, 201,
                System.nanoTime(), "c-1", "b-7", "k-9", 1, null);

        ILoggingEvent e = single();
        assertThat(e.getFormattedMessage())
                .startsWith("[call=c-1][biz=b-7][try=1] route=orders key=k-9 status=201 outcome=replayed ms=");
        Map<String, Object> kv = pairs(e);
        assertThat(kv).containsEntry("call", "c-1").containsEntry("biz", "b-7").containsEntry("try", 1)
                .containsEntry("route", "orders").containsEntry("key", "k-9").containsEntry("status", 201)
                .containsEntry("outcome", "replayed").containsKey("ms");
    }

    @Test
    void withoutPairsTheLineIsTheSame() {
        new CallLog(new ProxyMetrics(registry), false).finished("orders", CallOutcome.REPLAYED, 201,
                System.nanoTime(), "c-1", null, "k-9", 2, "upstream 503");

        ILoggingEvent e = single();
        assertThat(e.getFormattedMessage())
                .startsWith("[call=c-1][biz=-][try=2] route=orders key=k-9 status=201 outcome=replayed ms=")
                .endsWith(" reason=upstream 503");
        assertThat(e.getKeyValuePairs()).isNullOrEmpty();
    }

    @Test
    void aPassThroughCallLogsItsLineAtInfo() {
        new CallLog(new ProxyMetrics(registry), false).passedThrough(true, "files", false, 200, System.nanoTime());
        new CallLog(new ProxyMetrics(registry), false).passedThrough(true, "files", true, 502, System.nanoTime());

        assertThat(events.list).hasSize(2);
        assertThat(events.list).allSatisfy(e -> assertThat(e.getLevel()).isEqualTo(Level.INFO));
        assertThat(events.list.get(0).getFormattedMessage())
                .startsWith("[call=-][biz=-][try=1] route=files key=- status=200 outcome=forwarded ms=");
        assertThat(events.list.get(1).getFormattedMessage()).contains(" status=502 outcome=failed ms=");
    }

    @Test
    void aQuietRoutesPassThroughLineIsAtDebugAndStillCounted() {
        new CallLog(new ProxyMetrics(registry), true).passedThrough(false, "files", false, 200, System.nanoTime());
        assertThat(events.list).isEmpty();

        logger.setLevel(Level.DEBUG);
        new CallLog(new ProxyMetrics(registry), true).passedThrough(false, "files", false, 200, System.nanoTime());
        ILoggingEvent e = single();
        assertThat(e.getLevel()).isEqualTo(Level.DEBUG);
        assertThat(pairs(e)).containsEntry("route", "files").containsEntry("outcome", "forwarded");
        assertThat(registry.find(ProxyMetrics.REQUESTS).counter().count()).isEqualTo(2.0);
    }

    @Test
    void aFieldTheTextShowsAsADashIsANullPair() {
        new CallLog(new ProxyMetrics(registry), true).passedThrough(true, "files", false, 200, System.nanoTime());

        ILoggingEvent e = single();
        assertThat(e.getFormattedMessage()).startsWith("[call=-][biz=-][try=1] route=files key=- status=200");
        Map<String, Object> kv = pairs(e);
        assertThat(kv).containsEntry("call", null).containsEntry("biz", null).containsEntry("key", null)
                .containsEntry("try", 1).containsEntry("status", 200).doesNotContainKey("reason");
        assertThat(kv.get("ms")).isInstanceOf(Long.class);
    }

    @Test
    void aRetryIsCountedAndNeverALineOfTheCallsLogger() {
        Logger retries = (Logger) LoggerFactory.getLogger("idemproxy.retries");
        ListAppender<ILoggingEvent> retryEvents = new ListAppender<>();
        retryEvents.start();
        retries.addAppender(retryEvents);
        Level retriesBefore = retries.getLevel();
        try {
            retries.setLevel(Level.INFO);
            new CallLog(new ProxyMetrics(registry), true).retry("orders", "c-1", null, 2, "upstream-503", 120);
            assertThat(retryEvents.list).isEmpty();

            retries.setLevel(Level.DEBUG);
            new CallLog(new ProxyMetrics(registry), true).retry("orders", "c-1", null, 2, "upstream-503", 120);
            new CallLog(new ProxyMetrics(registry), false).retry("orders", "c-1", null, 2, "upstream-503", 120);

            assertThat(events.list).isEmpty();
            assertThat(retryEvents.list).hasSize(2).allSatisfy(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.DEBUG);
                assertThat(e.getFormattedMessage()).isEqualTo("[call=c-1][biz=-][try=2] route=orders retrying in 120 ms: upstream-503");
            });
            assertThat(pairs(retryEvents.list.get(0))).containsEntry("reason", "upstream-503").containsEntry("delayMs", 120L)
                    .containsEntry("try", 2);
            assertThat(retryEvents.list.get(1).getKeyValuePairs()).isNullOrEmpty();
            assertThat(registry.find(ProxyMetrics.RETRIES).counter().count()).isEqualTo(3.0);
        } finally {
            retries.detachAppender(retryEvents);
            retries.setLevel(retriesBefore);
        }
    }

    @Test
    void everyCallIsCountedEvenWhenItsLineIsNotLogged() {
        logger.setLevel(Level.WARN);
        new CallLog(new ProxyMetrics(registry), true).finished("orders", CallOutcome.REPLAYED, 201,
                System.nanoTime(), "c-1", null, "k-9", 1, null);

        assertThat(events.list).isEmpty();
        assertThat(registry.find(ProxyMetrics.REQUESTS).counter()).isNotNull();
        assertThat(registry.find(ProxyMetrics.REQUESTS).counter().count()).isEqualTo(1.0);
    }

    private ILoggingEvent single() {
        assertThat(events.list).hasSize(1);
        return events.list.get(0);
    }

    private static Map<String, Object> pairs(ILoggingEvent e) {
        Map<String, Object> kv = new LinkedHashMap<>();
        assertThat(e.getKeyValuePairs()).isNotNull();
        e.getKeyValuePairs().forEach(p -> kv.put(p.key, p.value));
        return kv;
    }

    @Test
    void aToolCallsLineNamesItsToolAfterMsAndItsDialectCountsIt() {
        McpCalls mcp = new McpCalls().listed();
        ProxyCall call = mcp.planned(McpCalls.post(McpCalls.toolCall("1", "create_ticket", "{}")));
        new CallLog(new ProxyMetrics(mcp.registry), true).finished(call, CallOutcome.EXECUTED, 200, "c-1", null, "d:1", 1, "executed");

        ILoggingEvent e = single();
        assertThat(e.getFormattedMessage()).startsWith("[call=c-1][biz=-][try=1] route=tools key=d:1 status=200 outcome=executed ms=")
                .contains(" tool=create_ticket reason=executed");
        assertThat(pairs(e)).containsEntry("tool", "create_ticket");
        assertThat(mcp.registry.find(ProxyMetrics.MCP_CALLS).tag("outcome", "executed").counter().count()).isEqualTo(1);
    }

    @Test
    void aToolNameThatCouldForgeAFieldIsQuotedAndEscaped() {
        assertThat(CallLog.safe("create_ticket")).isEqualTo("create_ticket");
        assertThat(CallLog.safe("ns/tool.v2:x-y")).isEqualTo("ns/tool.v2:x-y");
        assertThat(CallLog.safe("a b")).isEqualTo("\"a b\"");
        assertThat(CallLog.safe("x status=200")).isEqualTo("\"x status=200\"");
        assertThat(CallLog.safe("q\"\\\n\u2028é")).isEqualTo("\"q\\\"\\\\\\u000a\\u2028\\u00e9\"");
        assertThat(CallLog.safe("")).isEqualTo("\"\"");
        assertThat(CallLog.safe("t".repeat(200))).hasSize(1 + 128 + 6 + 1).endsWith("\\u2026\"");
    }
}
