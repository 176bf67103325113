package dev.idemproxy.app.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.metrics.ProxyMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MinuteSamplesTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private Instant now = Instant.parse("2026-01-01T10:00:00Z");
    private final Clock clock = new Clock() {
        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    };

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> minutes(MinuteSamples s) {
        return (List<Map<String, Object>>) s.json().get("minutes");
    }

    @Test
    void eachMinuteIsTheIncreaseOfTheCountersSummedOverTheirTagsAndTheMinuteUnderWayComesLast() {
        Counter a = Counter.builder(ProxyMetrics.REQUESTS).tag("route", "a").register(registry);
        Counter b = Counter.builder(ProxyMetrics.REQUESTS).tag("route", "b").register(registry);
        Counter retries = Counter.builder(ProxyMetrics.RETRIES).tag("route", "a").register(registry);
        AtomicLong dlq = registry.gauge(ProxyMetrics.DLQ_ENTRIES, new AtomicLong(2));
        MinuteSamples s = new MinuteSamples(registry, clock);
        s.sample();
        a.increment(3);
        b.increment(2);
        retries.increment();
        now = now.plusSeconds(60);
        s.sample();
        a.increment();
        dlq.set(5);
        now = now.plusSeconds(20);

        List<Map<String, Object>> m = minutes(s);
        assertThat(m).hasSize(2);
        assertThat(m.get(0)).containsEntry("calls", 5L).containsEntry("retries", 1L).containsEntry("replays", 0L)
                .containsEntry("deadLetters", 2L).containsEntry("partial", false).containsEntry("start", "2026-01-01T10:00:00Z");
        assertThat(m.get(1)).containsEntry("calls", 1L).containsEntry("deadLetters", 5L).containsEntry("partial", true);
    }

    @Test
    void atMostAnHourOfReadingsIsKept() {
        MinuteSamples s = new MinuteSamples(registry, clock);
        for (int i = 0; i < 200; i++) {
            s.sample();
            now = now.plusSeconds(60);
        }
        assertThat(minutes(s)).hasSize(MinuteSamples.KEPT);
    }
}
