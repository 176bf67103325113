package dev.idemproxy.core.metrics;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The one facade through which the engine records metrics (CONTRACT §8). Names are fixed;
 * tags are bounded: route names come from config, the others from closed vocabularies — never
 * a key, call id, task id or raw path. Meters are cached per tag combination, so the hot path
 * does a map lookup, not a registry lookup.
 *
 * <p>The counters whose label values are known before any traffic are registered at zero ahead
 * of their first event ({@link #registerRoute}, {@link #registerStoreOps}), so a scrape shows every
 * CONTRACT §8 name from the start and a rate over a quiet series is 0, not absent. Registering
 * again is a map lookup: a reload of the same routes adds no series. This class is thread-safe.
 */
public final class ProxyMetrics {
    public static final String REQUESTS = "idemproxy.requests";
    public static final String REPLAYS = "idemproxy.replays";
    public static final String KEY_CONFLICTS = "idemproxy.key.conflicts";
    public static final String UPSTREAM_ATTEMPTS = "idemproxy.upstream.attempts";
    public static final String RETRIES = "idemproxy.retries";
    public static final String BUDGET_EXHAUSTED = "idemproxy.retry.budget.exhausted";
    public static final String DLQ_ENTRIES = "idemproxy.dlq.entries";
    public static final String UPSTREAM_DURATION = "idemproxy.upstream.duration";
    public static final String STORE_DURATION = "idemproxy.store.duration";
    public static final String STORE_ERRORS = "idemproxy.store.errors";
    /** Not in CONTRACT §8: calls forwarded unprotected because the store was down ({@code onUnavailable: passthrough}). */
    public static final String STORE_PASSTHROUGH = "idemproxy.store.passthrough";
    /**
     * Not in CONTRACT §8: claims answered from the near-cache of ended records ({@code result=hit}) or
     * sent to the store ({@code miss}); registered by {@link dev.idemproxy.core.store.NearCachedStore}.
     */
    public static final String STORE_NEAR_CACHE = "idemproxy.store.near.cache";

    /** CONNECT requests by what became of them ({@code result}: intercepted, tunnelled, refused). */
    public static final String CONNECT = "idemproxy.connect";

    /** {@code kind} of {@link #KEY_CONFLICTS}: a duplicate of a call in flight (409). */
    public static final String KIND_IN_FLIGHT = "in_flight";
    /** {@code kind} of {@link #KEY_CONFLICTS}: the key was reused with another fingerprint (422). */
    public static final String KIND_PAYLOAD_MISMATCH = "payload_mismatch";
    /** {@code budget} of {@link #BUDGET_EXHAUSTED}: the task's budget refused the retry. */
    public static final String BUDGET_TASK = "task";
    /** {@code budget} of {@link #BUDGET_EXHAUSTED}: the route's retry budget refused the retry. */
    public static final String BUDGET_ROUTE = "route";

    private static final List<String> KINDS = List.of(KIND_IN_FLIGHT, KIND_PAYLOAD_MISMATCH);
    private static final List<String> BUDGETS = List.of(BUDGET_TASK, BUDGET_ROUTE);

    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, Counter> counters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Timer> timers = new ConcurrentHashMap<>();
    private final AtomicLong dlqEntries = new AtomicLong();
    /** Per route, the meters every call touches: the per-call path does no string work. */
    private final ConcurrentHashMap<String, RouteCounters> requestCounters = new ConcurrentHashMap<>();
    /** store_duration_seconds by op, keyed by the op alone (no name to join per call). */
    private final ConcurrentHashMap<String, Timer> storeTimers = new ConcurrentHashMap<>();

    public ProxyMetrics(MeterRegistry registry) {
        this.registry = requireNonNull(registry, "registry");
        registry.gauge(DLQ_ENTRIES, dlqEntries);
    }

    /** Metrics that go nowhere; for tests and tools that need no scrape. */
    public static ProxyMetrics noop() {
        return new ProxyMetrics(new SimpleMeterRegistry());
    }

    /**
     * Registers {@code route}'s counters at zero: replays, key conflicts of both kinds, budget
     * exhaustion of both budgets, and retries for each of {@code retryReasons} (the reasons the
     * route's {@code retry.retryOn} can produce): 5 + |retryReasons| series, bounded by the config.
     */
    public void registerRoute(String route, Collection<String> retryReasons) {
        requireNonNull(route, "route");
        counter(REPLAYS, "route", route, null, null);
        for (String kind : KINDS) {
            counter(KEY_CONFLICTS, "route", route, "kind", kind);
        }
        for (String budget : BUDGETS) {
            counter(BUDGET_EXHAUSTED, "route", route, "budget", budget);
        }
        for (String reason : retryReasons) {
            counter(RETRIES, "route", route, "reason", reason);
        }
    }

    /** Registers {@code idemproxy_store_errors_total} at zero for each store op name. */
    public void registerStoreOps(Collection<String> ops) {
        for (String op : ops) {
            counter(STORE_ERRORS, "op", op, null, null);
        }
    }

    /** A finished call; {@code outcome} is one of {@link CallOutcome}'s spellings. */
    public void request(String route, CallOutcome outcome) {
        RouteCounters rc = routeCounters(route);
        Counter c = rc.byOutcome[outcome.ordinal()];
        if (c == null) {
            c = counter(REQUESTS, "route", route, "outcome", outcome.spelling());
            rc.byOutcome[outcome.ordinal()] = c;
        }
        c.increment();
        if (outcome == CallOutcome.REPLAYED) {
            if (rc.replays == null) {
                rc.replays = counter(REPLAYS, "route", route, null, null);
            }
            rc.replays.increment();
        }
    }

    private RouteCounters routeCounters(String route) {
        RouteCounters rc = requestCounters.get(route);
        return rc != null ? rc : requestCounters.computeIfAbsent(route, r -> new RouteCounters());
    }

    /**
     * A route's per-call meters: requests_total, one slot per outcome; replays_total; the
     * upstream attempts by result and their duration. Each is filled on first use (a racing second
     * fill finds the same meter in {@link #counters} or {@link #timers}).
     */
    private static final class RouteCounters {
        final Counter[] byOutcome = new Counter[CallOutcome.values().length];
        Counter replays;
        final ConcurrentHashMap<String, Counter> attemptsByResult = new ConcurrentHashMap<>(8);
        volatile Timer upstreamDuration;
    }

    /** kind: in_flight | payload_mismatch */
    public void keyConflict(String route, String kind) {
        counter(KEY_CONFLICTS, "route", route, "kind", kind).increment();
    }

    /** result: the attempt's status class (2xx…5xx) or failure spelling (connect-failure, read-timeout, …). */
    public void upstreamAttempt(String route, String result, Duration took) {
        RouteCounters rc = routeCounters(route);
        Counter c = rc.attemptsByResult.get(result);
        if (c == null) {
            c = rc.attemptsByResult.computeIfAbsent(result, r -> counter(UPSTREAM_ATTEMPTS, "route", route, "result", r));
        }
        c.increment();
        Timer t = rc.upstreamDuration;
        if (t == null) {
            t = timer(UPSTREAM_DURATION, "route", route);
            rc.upstreamDuration = t;
        }
        t.record(took);
    }

    /** reason: the retry decision's reason (status_503, read_timeout, retry_after, …). */
    public void retry(String route, String reason) {
        counter(RETRIES, "route", route, "reason", reason).increment();
    }

    /** budget: task | route */
    public void budgetExhausted(String route, String budget) {
        counter(BUDGET_EXHAUSTED, "route", route, "budget", budget).increment();
    }

    public void deadLetterAdded() {
        dlqEntries.incrementAndGet();
    }

    /** Sets the gauge from the store's own count (at start, and after admin deletes). */
    public void deadLetters(long count) {
        dlqEntries.set(count);
    }

    /** One store operation, {@code tookNanos} long. */
    public void storeOp(String op, long tookNanos, boolean failed) {
        Timer t = storeTimers.get(op);
        if (t == null) {
            t = storeTimers.computeIfAbsent(op, o -> timer(STORE_DURATION, "op", o));
        }
        t.record(tookNanos, TimeUnit.NANOSECONDS);
        if (failed) {
            counter(STORE_ERRORS, "op", op, null, null).increment();
        }
    }

    /**
     * Registers {@code idemproxy_connect_total} at zero for each of {@code results} (the forward
     * proxy's: intercepted, tunnelled, refused); only a proxy with {@code forwardProxy} does.
     */
    public void registerConnectResults(Collection<String> results) {
        for (String result : results) {
            counter(CONNECT, "result", result, null, null);
        }
    }

    /** One CONNECT answered; {@code result} is one of those {@linkplain #registerConnectResults registered}. */
    public void connect(String result) {
        counter(CONNECT, "result", result, null, null).increment();
    }

    /** A call forwarded unprotected because the store did not answer ({@code onUnavailable: passthrough}). */
    public void storePassthrough(String route) {
        counter(STORE_PASSTHROUGH, "route", route, null, null).increment();
    }

    private Counter counter(String name, String k1, String v1, String k2, String v2) {
        String id = name + '|' + v1 + '|' + v2;
        Counter c = counters.get(id);
        if (c != null) {
            return c;
        }
        Function<String, Counter> make = x -> k2 == null
                ? Counter.builder(name).tag(k1, v1).register(registry)
                : Counter.builder(name).tag(k1, v1).tag(k2, v2).register(registry);
        return counters.computeIfAbsent(id, make);
    }

    private Timer timer(String name, String k, String v) {
        String id = name + '|' + v;
        Timer t = timers.get(id);
        if (t != null) {
            return t;
        }
        return timers.computeIfAbsent(id, x -> Timer.builder(name).tag(k, v)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(60))
                .register(registry));
    }
}
