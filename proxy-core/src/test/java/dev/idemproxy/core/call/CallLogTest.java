package dev.idemproxy.core.call;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.idemproxy.core.mcp.McpCalls;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.dlq.DeadLetterPolicy;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.route.IdsPolicy;
import dev.idemproxy.core.retry.RetryPolicy;
import dev.idemproxy.core.route.LogPolicy;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.route.Timeouts;
import dev.idemproxy.core.secret.Redactor;
import dev.idemproxy.core.route.PoolPolicy;
import dev.idemproxy.core.route.TlsPolicy;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.net.URI;
import java.util.List;
import java.util.Set;
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
        ProxyCall call = call(HttpMethod.POST, "/orders/7?page=2", "http://127.0.0.1:8082");
        call.body(Unpooled.wrappedBuffer(new byte[84]));
        call.addBytesOut(312);
        new CallLog(new ProxyMetrics(registry), true).finished(call, CallOutcome.REPLAYED, 201, "c-1", "b-7", "k-9", 1, null);
        call.releaseBody();

        ILoggingEvent e = single();
        assertThat(e.getFormattedMessage()).matches("\\[call=c-1]\\[biz=b-7]\\[try=1] route=orders key=k-9 status=201 outcome=replayed"
                + " ms=\\d+ method=POST path=\"/orders/7\\?page=2\" upstream=127.0.0.1:8082 in=84 out=312");
        Map<String, Object> kv = pairs(e);
        assertThat(kv.keySet()).containsExactly("call", "biz", "try", "route", "key", "status", "outcome", "ms", "method", "path",
                "upstream", "in", "out");
        assertThat(kv).containsEntry("call", "c-1").containsEntry("biz", "b-7").containsEntry("try", 1)
                .containsEntry("route", "orders").containsEntry("key", "k-9").containsEntry("status", 201)
                .containsEntry("outcome", "replayed").containsEntry("method", "POST").containsEntry("path", "/orders/7?page=2")
                .containsEntry("upstream", "127.0.0.1:8082").containsEntry("in", 84L).containsEntry("out", 312L);
    }

    /** The contract's prefix, as a black-box reader may match it, whatever follows. */
    @Test
    void theContractsFieldsComeFirstInItsOrderWithSingleSpaces() {
        new CallLog(new ProxyMetrics(registry), false).finished(call(HttpMethod.GET, "/orders", "https://api.example.com"),
                CallOutcome.EXECUTED, 200, "c-2", null, "k", 3, "executed");

        assertThat(single().getFormattedMessage()).matches("\\[call=(\\S+)]\\[biz=(\\S+)]\\[try=(\\d+)] route=(\\S+) key=(\\S+)"
                + " status=(\\d+) outcome=(\\S+) ms=(\\d+) .*")
                .endsWith(" method=GET path=/orders upstream=api.example.com in=0 out=0 reason=executed");
    }

    @Test
    void withoutPairsTheLineIsTheSame() {
        new CallLog(new ProxyMetrics(registry), false).finished("orders", CallOutcome.REPLAYED, 201,
                System.nanoTime(), "c-1", null, "k-9", 2, "upstream 503");

        ILoggingEvent e = single();
        assertThat(e.getFormattedMessage())
                .startsWith("[call=c-1][biz=-][try=2] route=orders key=k-9 status=201 outcome=replayed ms=")
                .endsWith(" method=- path=- upstream=- in=0 out=0 reason=\"upstream 503\"");
        assertThat(e.getKeyValuePairs()).isNullOrEmpty();
    }

    @Test
    void clientTextCannotForgeAFieldOrALine() {
        ProxyCall call = call(HttpMethod.POST, "/a%20b/x]y?q=1 status=500", "http://h:1");
        new CallLog(new ProxyMetrics(registry), false).finished(call, CallOutcome.EXECUTED, 201, "c-1",
                "o-1] outcome=forged\u0085next\u2028line", "k\"1\\", 1, null);

        String line = single().getFormattedMessage();
        assertThat(line).startsWith("[call=c-1][biz=\"o-1] outcome=forged\\u0085next\\u2028line\"][try=1] route=orders"
                + " key=\"k\\\"1\\\\\" status=201 outcome=executed ms=")
                .contains(" path=\"/a%20b/x]y?q=1 status=500\" upstream=h:1 ");
        for (char c : line.toCharArray()) {
            assertThat(dev.idemproxy.core.util.LogValues.isControl(c)).isFalse();
        }
    }

    @Test
    void aPathShowsNoSecretQueryValue() {
        new CallLog(new ProxyMetrics(registry), false, Redactor.of(List.of(), List.of("sig"))).finished(
                call(HttpMethod.GET, "/pay?api_key=k1&Sig=s1&page=2", "http://h"), CallOutcome.EXECUTED, 200, "c", null, null, 1,
                null);

        assertThat(single().getFormattedMessage()).contains(" path=\"/pay?api_key=***&Sig=***&page=2\" ").doesNotContain("k1")
                .doesNotContain("s1");
    }

    @Test
    void aRequestRefusedBeforeARouteHasNoUpstream() {
        new CallLog(new ProxyMetrics(registry), true).refused("none", CallOutcome.REJECTED, 404, System.nanoTime(), "GET",
                "/nowhere?token=t", 120, "no_route");

        ILoggingEvent e = single();
        assertThat(e.getFormattedMessage()).contains(" status=404 outcome=rejected ms=")
                .endsWith(" method=GET path=\"/nowhere?token=***\" upstream=- in=0 out=120 reason=no_route");
        assertThat(pairs(e)).containsEntry("upstream", null).containsEntry("out", 120L);
    }

    @Test
    void aPassThroughCallLogsItsLineAtInfo() {
        ProxyCall ok = call(HttpMethod.GET, "/files/a", "http://127.0.0.1:8081");
        ok.addBytesOut(6);
        new CallLog(new ProxyMetrics(registry), false).passedThrough(ok, false, 200);
        new CallLog(new ProxyMetrics(registry), false).passedThrough(call(HttpMethod.GET, "/files/b", "http://127.0.0.1:8081"),
                true, 502);

        assertThat(events.list).hasSize(2);
        assertThat(events.list).allSatisfy(e -> assertThat(e.getLevel()).isEqualTo(Level.INFO));
        assertThat(events.list.get(0).getFormattedMessage())
                .startsWith("[call=-][biz=-][try=1] route=orders key=- status=200 outcome=forwarded ms=")
                .endsWith(" method=GET path=/files/a upstream=127.0.0.1:8081 in=0 out=6");
        assertThat(events.list.get(1).getFormattedMessage()).contains(" status=502 outcome=failed ms=");
    }

    @Test
    void aQuietRoutesPassThroughLineIsAtDebugAndStillCounted() {
        Route quiet = new Route("files", RouteMatch.ANY, URI.create("http://h"), Set.of(), Timeouts.DEFAULT,
                IdempotencyPolicy.DISABLED, RetryPolicy.DEFAULT, IdsPolicy.DEFAULT, null, DeadLetterPolicy.DEFAULT, TlsPolicy.DEFAULT,
                PoolPolicy.DEFAULT, new LogPolicy(false));
        ProxyCall call = new ProxyCall(new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/f"), quiet, "h", "/f",
                System.nanoTime());
        new CallLog(new ProxyMetrics(registry), true).passedThrough(call, false, 200);
        assertThat(events.list).isEmpty();

        logger.setLevel(Level.DEBUG);
        new CallLog(new ProxyMetrics(registry), true).passedThrough(call, false, 200);
        ILoggingEvent e = single();
        assertThat(e.getLevel()).isEqualTo(Level.DEBUG);
        assertThat(pairs(e)).containsEntry("route", "files").containsEntry("outcome", "forwarded");
        assertThat(registry.find(ProxyMetrics.REQUESTS).counter().count()).isEqualTo(2.0);
    }

    @Test
    void aFieldTheTextShowsAsADashIsANullPair() {
        new CallLog(new ProxyMetrics(registry), true).finished("files", CallOutcome.FORWARDED, 200, System.nanoTime(), null, null,
                null, 1, null);

        ILoggingEvent e = single();
        assertThat(e.getFormattedMessage()).startsWith("[call=-][biz=-][try=1] route=files key=- status=200");
        Map<String, Object> kv = pairs(e);
        assertThat(kv).containsEntry("call", null).containsEntry("biz", null).containsEntry("key", null)
                .containsEntry("method", null).containsEntry("path", null).containsEntry("upstream", null)
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
            new CallLog(new ProxyMetrics(registry), false).retry("orders", "c-1", "o 1\n", 2, "upstream-503", 120);
            assertThat(retryEvents.list.get(2).getFormattedMessage()).startsWith("[call=c-1][biz=\"o 1\\u000a\"][try=2]");
            assertThat(pairs(retryEvents.list.get(0))).containsEntry("reason", "upstream-503").containsEntry("delayMs", 120L)
                    .containsEntry("try", 2);
            assertThat(retryEvents.list.get(1).getKeyValuePairs()).isNullOrEmpty();
            assertThat(registry.find(ProxyMetrics.RETRIES).counter().count()).isEqualTo(4.0);
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

    private static ProxyCall call(HttpMethod method, String target, String upstream) {
        Route route = Route.passThrough("orders", RouteMatch.ANY, URI.create(upstream));
        return new ProxyCall(new DefaultHttpRequest(HttpVersion.HTTP_1_1, method, "/"), route, "h", target, System.nanoTime());
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
        McpCalls mcp = new McpCalls().listed();
        ProxyCall call = mcp.planned(McpCalls.post(McpCalls.toolCall("1", "x status=200\\n", "{}")));
        new CallLog(new ProxyMetrics(mcp.registry), false).finished(call, CallOutcome.EXECUTED, 200, "c-1", null, "d:1", 1, null);

        assertThat(single().getFormattedMessage()).endsWith(" tool=\"x status=200\\u000a\"").doesNotContain("\n");
    }
}
