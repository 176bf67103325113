package dev.idemproxy.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Series known from the config are there at zero before their first event, and only once. */
class ProxyMetricsTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ProxyMetrics metrics = new ProxyMetrics(registry);

    @Test
    void aRegisteredRouteHasItsReplayConflictBudgetAndRetrySeriesAtZero() {
        metrics.registerRoute("orders", List.of("status_503", "retry_after"));

        assertThat(registry.get(ProxyMetrics.REPLAYS).tag("route", "orders").counter().count()).isZero();
        assertThat(tags(ProxyMetrics.KEY_CONFLICTS, "kind")).containsExactly("orders/in_flight", "orders/payload_mismatch");
        assertThat(tags(ProxyMetrics.BUDGET_EXHAUSTED, "budget")).containsExactly("orders/route", "orders/task");
        assertThat(tags(ProxyMetrics.RETRIES, "reason")).containsExactly("orders/retry_after", "orders/status_503");
        assertThat(registry.find(ProxyMetrics.KEY_CONFLICTS).counters()).allSatisfy(c -> assertThat(c.count()).isZero());
    }

    @Test
    void eventsCountOnTheRegisteredSeries() {
        metrics.registerRoute("orders", List.of("status_503"));
        metrics.keyConflict("orders", ProxyMetrics.KIND_IN_FLIGHT);
        metrics.budgetExhausted("orders", ProxyMetrics.BUDGET_TASK);
        metrics.retry("orders", "status_503");
        metrics.request("orders", CallOutcome.REPLAYED);

        assertThat(count(ProxyMetrics.KEY_CONFLICTS, "kind", "in_flight")).isEqualTo(1);
        assertThat(count(ProxyMetrics.KEY_CONFLICTS, "kind", "payload_mismatch")).isZero();
        assertThat(count(ProxyMetrics.BUDGET_EXHAUSTED, "budget", "task")).isEqualTo(1);
        assertThat(count(ProxyMetrics.RETRIES, "reason", "status_503")).isEqualTo(1);
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
        metrics.registerRoute("orders", List.of("status_503", "reset"));
        metrics.registerStoreOps(List.of("claim", "get"));
        int meters = registry.getMeters().size();

        metrics.registerRoute("orders", List.of("status_503", "reset"));
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
}
