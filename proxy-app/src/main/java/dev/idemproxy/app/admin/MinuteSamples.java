package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.metrics.ProxyMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The console's Overview ({@code GET /stats/minutes}, docs/admin-api.md): the proxy's own counters
 * read once a minute, at most {@value #KEPT} readings kept in memory (an hour of minutes and the
 * one before), each minute's figures being the difference of two readings: calls
 * ({@code idemproxy_requests_total}), replays, key conflicts, retries, and the dead letters in the
 * queue at the minute's end ({@code idemproxy_dlq_entries}, a gauge). The minute under way is
 * given too, up to now. Readings run as a timer of one of the proxy's event loops (a reading only
 * reads counters: it never blocks); nothing here is per call.
 * Thread-safe.
 */
public final class MinuteSamples implements AutoCloseable {
    static final int KEPT = 61;

    private final MeterRegistry registry;
    private final Clock clock;
    private final Deque<Reading> readings = new ArrayDeque<>(KEPT);
    private volatile boolean closed;
    private EventExecutor timer;
    private ScheduledFuture<?> next;

    /** The counters' totals at {@code at}. */
    record Reading(Instant at, double calls, double replays, double conflicts, double retries, double deadLetters) {
    }

    public MinuteSamples(MeterRegistry registry, Clock clock) {
        this.registry = requireNonNull(registry, "registry");
        this.clock = requireNonNull(clock, "clock");
    }

    /**
     * Takes the first reading now and one at the start of every minute after, on {@code timer},
     * until {@link #close}.
     */
    public synchronized MinuteSamples start(EventExecutor timer) {
        this.timer = requireNonNull(timer, "timer");
        sample();
        scheduleNext();
        return this;
    }

    private synchronized void scheduleNext() {
        if (closed) {
            return;
        }
        Instant now = clock.instant();
        long delay = Math.max(1, now.truncatedTo(ChronoUnit.MINUTES).plus(1, ChronoUnit.MINUTES).toEpochMilli() - now.toEpochMilli());
        next = timer.schedule(() -> {
            if (!closed) {
                sample();
                scheduleNext();
            }
        }, delay, TimeUnit.MILLISECONDS);
    }

    /** Reads the counters now and keeps the reading (the oldest goes beyond {@value #KEPT}). */
    synchronized void sample() {
        if (readings.size() == KEPT) {
            readings.removeFirst();
        }
        readings.addLast(read(clock.instant()));
    }

    private Reading read(Instant at) {
        Gauge dlq = registry.find(ProxyMetrics.DLQ_ENTRIES).gauge();
        return new Reading(at, sum(ProxyMetrics.REQUESTS), sum(ProxyMetrics.REPLAYS), sum(ProxyMetrics.KEY_CONFLICTS),
                sum(ProxyMetrics.RETRIES), dlq == null ? 0 : dlq.value());
    }

    private double sum(String name) {
        double total = 0;
        for (Counter c : registry.find(name).counters()) {
            total += c.count();
        }
        return total;
    }

    /**
     * {@code {"minutes": [{start, end, calls, replays, conflicts, retries, deadLetters, partial}]}},
     * oldest first; the last one is the minute under way ({@code partial: true}).
     */
    Map<String, Object> json() {
        List<Reading> kept;
        synchronized (this) {
            kept = new ArrayList<>(readings);
        }
        kept.add(read(clock.instant()));
        List<Map<String, Object>> minutes = new ArrayList<>(kept.size());
        for (int i = 1; i < kept.size(); i++) {
            Reading a = kept.get(i - 1);
            Reading b = kept.get(i);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("start", a.at().toString());
            m.put("end", b.at().toString());
            m.put("calls", delta(a.calls(), b.calls()));
            m.put("replays", delta(a.replays(), b.replays()));
            m.put("conflicts", delta(a.conflicts(), b.conflicts()));
            m.put("retries", delta(a.retries(), b.retries()));
            m.put("deadLetters", Math.round(b.deadLetters()));
            m.put("partial", i == kept.size() - 1);
            minutes.add(m);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("minutes", minutes);
        return body;
    }

    /** A counter's increase; one that went back (a restart of its meter) counts from zero. */
    private static long delta(double before, double after) {
        return Math.round(after >= before ? after - before : after);
    }

    AdminRoutes routes() {
        return AdminRoutes.builder().get("/stats/minutes", req -> AdminResponse.json(200, json()).completed()).build();
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (next != null) {
            next.cancel(false);
        }
    }
}
