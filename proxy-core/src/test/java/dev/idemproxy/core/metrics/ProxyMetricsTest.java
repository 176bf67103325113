package dev.idemproxy.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Series known from the config are there at zero before their first event, and only once; every
 * family has HELP text; the histograms have their short fixed bucket lists; in-flight counts.
 */
class ProxyMetricsTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ProxyMetrics metrics = new ProxyMetrics(registry);

    @Test
    void aRegisteredRouteHasItsReplayConflictBudgetAndRetrySeriesAtZero() {
        metrics.registerRoute("orders", List.of("503", "retry_after"));

        assertThat(registry.get(ProxyMetrics.REPLAYS).tag("route", "orders").counter().count()).isZero();
        assertThat(tags(ProxyMetrics.KEY_CONFLICTS, "kind")).containsExactly("orders/in_flight", "orders/payload_mismatch");
        assertThat(tags(ProxyMetrics.BUDGET_EXHAUSTED, "budget")).containsExactly("orders/route", "orders/task");
        assertThat(tags(ProxyMetrics.RETRIES, "reason")).containsExactly("orders/503", "orders/retry_after");
        assertThat(registry.find(ProxyMetrics.KEY_CONFLICTS).counters()).allSatisfy(c -> assertThat(c.count()).isZero());
    }

    @Test
    void eventsCountOnTheRegisteredSeries() {
        metrics.registerRoute("orders", List.of("503"));
        metrics.keyConflict("orders", ProxyMetrics.KIND_IN_FLIGHT);
        metrics.budgetExhausted("orders", ProxyMetrics.BUDGET_TASK);
        metrics.retry("orders", "503");
        metrics.request("orders", CallOutcome.REPLAYED);

        assertThat(count(ProxyMetrics.KEY_CONFLICTS, "kind", "in_flight")).isEqualTo(1);
        assertThat(count(ProxyMetrics.KEY_CONFLICTS, "kind", "payload_mismatch")).isZero();
        assertThat(count(ProxyMetrics.BUDGET_EXHAUSTED, "budget", "task")).isEqualTo(1);
        assertThat(count(ProxyMetrics.RETRIES, "reason", "503")).isEqualTo(1);
        assertThat(registry.get(ProxyMetrics.REPLAYS).tag("route", "orders").counter().count()).isEqualTo(1);
    }

    @Test
    void upstreamAttemptsCountPerRouteAndResultAndTimePerRoute() {
        metrics.upstreamAttempt("orders", "2xx", Duration.ofMillis(3));
        metrics.upstreamAttempt("orders", "2xx", Duration.ofMillis(5));
        metrics.upstreamAttempt("orders", "connect-failure", Duration.ofMillis(1));
        metrics.upstreamAttempt("tickets", "2xx", Duration.ofMillis(7));

        assertThat(registry.get(ProxyMetrics.UPSTREAM_ATTEMPTS).tag("route", "orders").tag("result", "2xx").counter().count())
                .isEqualTo(2);
        assertThat(registry.get(ProxyMetrics.UPSTREAM_ATTEMPTS).tag("route", "orders").tag("result", "connect-failure")
                .counter().count()).isEqualTo(1);
        assertThat(registry.get(ProxyMetrics.UPSTREAM_ATTEMPTS).tag("route", "tickets").tag("result", "2xx").counter().count())
                .isEqualTo(1);
        Timer orders = registry.get(ProxyMetrics.UPSTREAM_DURATION).tag("route", "orders").timer();
        assertThat(orders.count()).isEqualTo(3);
        assertThat(orders.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(9.0);
        assertThat(registry.get(ProxyMetrics.UPSTREAM_DURATION).tag("route", "tickets").timer().count()).isEqualTo(1);
    }

    @Test
    void registeringAgainAddsNoSeries() {
        metrics.registerRoute("orders", List.of("503", "reset"));
        metrics.registerStoreOps(List.of("claim", "get"));
        int meters = registry.getMeters().size();

        metrics.registerRoute("orders", List.of("503", "reset"));
        metrics.registerStoreOps(List.of("claim", "get"));

        assertThat(registry.getMeters()).hasSize(meters);
    }

    @Test
    void storeOpsHaveTheirErrorCounterAtZero() {
        metrics.registerStoreOps(List.of("claim", "renew"));

        Set<String> ops = new TreeSet<>();
        for (Counter c : registry.find(ProxyMetrics.STORE_ERRORS).counters()) {
            ops.add(c.getId().getTag("op"));
            assertThat(c.count()).isZero();
        }
        assertThat(ops).containsExactly("claim", "renew");
    }

    private Set<String> tags(String name, String tag) {
        Set<String> out = new TreeSet<>();
        for (Counter c : registry.find(name).counters()) {
            out.add(c.getId().getTag("route") + "/" + c.getId().getTag(tag));
        }
        return out;
    }

    private double count(String name, String tag, String value) {
        return registry.get(name).tag("route", "orders").tag(tag, value).counter().count();
    }

    @Test
    void everyFamilyHasHelpText() {
        metrics.registerRoute("orders", List.of("503"));
        metrics.registerStoreOps(List.of("claim"));
        metrics.request("orders", CallOutcome.REPLAYED);
        metrics.upstreamAttempt("orders", "2xx", Duration.ofMillis(3));
        metrics.storeOp("claim", 1_000, true);
        metrics.storePassthrough("orders");

        // (SimpleMeterRegistry's synthetic ".histogram" gauges are its own; Prometheus renders the buckets instead.)
        assertThat(registry.getMeters()).filteredOn(m -> m.getId().syntheticAssociation() == null).hasSizeGreaterThan(10)
                .allSatisfy(m -> assertThat(m.getId().getDescription()).as(m.getId().getName()).isNotBlank());
        assertThat(registry.getMeters().stream().map(m -> m.getId().getName()).distinct()).contains(ProxyMetrics.REQUESTS,
                ProxyMetrics.REPLAYS, ProxyMetrics.KEY_CONFLICTS, ProxyMetrics.UPSTREAM_ATTEMPTS, ProxyMetrics.RETRIES,
                ProxyMetrics.BUDGET_EXHAUSTED, ProxyMetrics.DLQ_ENTRIES, ProxyMetrics.UPSTREAM_DURATION,
                ProxyMetrics.STORE_DURATION, ProxyMetrics.STORE_ERRORS, ProxyMetrics.STORE_PASSTHROUGH, ProxyMetrics.IN_FLIGHT);
        assertThat(ProxyMetrics.help(ProxyMetrics.STORE_NEAR_CACHE)).isNotBlank();
        assertThatThrownBy(() -> ProxyMetrics.help("idemproxy.unknown")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no HELP text");
    }

    @Test
    void histogramsHaveTheirFixedBucketsAndNothingElse() {
        metrics.upstreamAttempt("orders", "2xx", Duration.ofMillis(30));
        metrics.storeOp("claim", 300_000, false);

        Timer upstream = registry.get(ProxyMetrics.UPSTREAM_DURATION).timer();
        Timer store = registry.get(ProxyMetrics.STORE_DURATION).timer();
        assertThat(bounds(upstream)).containsExactlyElementsOf(ProxyMetrics.UPSTREAM_BUCKETS);
        assertThat(bounds(store)).containsExactlyElementsOf(ProxyMetrics.STORE_BUCKETS);
        for (List<Duration> buckets : List.of(ProxyMetrics.UPSTREAM_BUCKETS, ProxyMetrics.STORE_BUCKETS)) {
            assertThat(buckets).hasSizeLessThanOrEqualTo(12).isSorted().doesNotHaveDuplicates();
        }
        assertThat(ProxyMetrics.STORE_BUCKETS.get(0)).isLessThan(Duration.ofMillis(1));
        assertThat(ProxyMetrics.STORE_BUCKETS.get(ProxyMetrics.STORE_BUCKETS.size() - 1)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        assertThat(ProxyMetrics.UPSTREAM_BUCKETS.get(ProxyMetrics.UPSTREAM_BUCKETS.size() - 1)).isEqualTo(Duration.ofMinutes(1));
        assertThat(upstream.takeSnapshot().percentileValues()).isEmpty();
        // 300 µs lands in the 500 µs bucket and above, not below.
        CountAtBucket[] counts = store.takeSnapshot().histogramCounts();
        assertThat(counts[1].count()).isZero();
        assertThat(counts[2].count()).isEqualTo(1);
    }

    @Test
    void inFlightIsOneHandlePerRouteReadByItsGauge() {
        metrics.registerRoute("orders", List.of());
        InFlightCalls orders = metrics.inFlight("orders");
        assertThat(metrics.inFlight("orders")).isSameAs(orders);
        assertThat(gauge("orders")).isZero();

        orders.started();
        orders.started();
        metrics.inFlight("tickets").started();
        assertThat(gauge("orders")).isEqualTo(2);
        assertThat(gauge("tickets")).isEqualTo(1);

        orders.ended();
        assertThat(gauge("orders")).isEqualTo(1);
        assertThat(registry.find(ProxyMetrics.IN_FLIGHT).gauges()).hasSize(2);
    }

    private double gauge(String route) {
        Gauge g = registry.get(ProxyMetrics.IN_FLIGHT).tag("route", route).gauge();
        return g.value();
    }

    private static List<Duration> bounds(Timer t) {
        return Arrays.stream(t.takeSnapshot().histogramCounts())
                .map(b -> Duration.ofNanos((long) b.bucket(TimeUnit.NANOSECONDS))).toList();
    }

    @Test
    void anMcpRouteHasItsOtherToolSeriesAtZeroAndToolCallsCountByToolAndOutcome() {
        metrics.registerMcpRoute("tools", List.of("executed", "replayed"));
        metrics.registerMcpRoute("tools", List.of("executed", "replayed"));
        metrics.mcpCall("tools", "create_ticket", "executed");
        metrics.mcpCall("tools", "other", "replayed");

        assertThat(registry.find(ProxyMetrics.MCP_CALLS).counters()).hasSize(3);
        assertThat(registry.get(ProxyMetrics.MCP_CALLS).tags("route", "tools", "tool", "other", "outcome", "executed").counter()
                .count()).isZero();
        assertThat(registry.get(ProxyMetrics.MCP_CALLS).tags("route", "tools", "tool", "other", "outcome", "replayed").counter()
                .count()).isEqualTo(1);
        assertThat(registry.get(ProxyMetrics.MCP_CALLS).tags("route", "tools", "tool", "create_ticket", "outcome", "executed")
                .counter().count()).isEqualTo(1);
        assertThat(registry.get(ProxyMetrics.MCP_CALLS).counter().getId().getDescription()).isEqualTo(ProxyMetrics.help(ProxyMetrics.MCP_CALLS));
    }
}
