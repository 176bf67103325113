package dev.idemproxy.core.metrics;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
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
 * again is a map lookup: a reload of the same routes adds no series.
 *
 * <p>Every family has HELP text ({@link #help}); the two histograms have one short fixed bucket list
 * each ({@link #UPSTREAM_BUCKETS}, {@link #STORE_BUCKETS}), never Micrometer's percentile
 * histogram, so a series costs 12 buckets, not 70. This class is thread-safe.
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
     * sent to the store ({@code miss}); registered by {@code store.NearCachedStore}.
     */
    public static final String STORE_NEAR_CACHE = "idemproxy.store.near.cache";
    /** Calls being served right now, by route: {@code idemproxy_in_flight{route}}. */
    public static final String IN_FLIGHT = "idemproxy.in.flight";
    /** MCP tool calls by route, tool and outcome: {@code idemproxy_mcp_calls_total{route,tool,outcome}}. */
    public static final String MCP_CALLS = "idemproxy.mcp.calls";
    /** The {@code tool} of an MCP call whose tool the route's last {@code tools/list} did not name. */
    public static final String MCP_OTHER_TOOL = "other";

    /**
     * Bucket bounds of {@code idemproxy_upstream_duration_seconds}: one attempt of a tool call, from
     * a few milliseconds (a cached answer nearby) to the minute a model call may take.
     */
    public static final List<Duration> UPSTREAM_BUCKETS = List.of(millis(5), millis(10), millis(25), millis(50),
            millis(100), millis(250), millis(500), millis(1000), millis(2500), millis(5000), millis(15000), millis(60000));
    /**
     * Bucket bounds of {@code idemproxy_store_duration_seconds}: from the tenth of a millisecond of
     * the memory store and a near-cache hit, through a Redis round trip, to a store that stalls.
     */
    public static final List<Duration> STORE_BUCKETS = List.of(Duration.ofNanos(100_000), Duration.ofNanos(250_000),
            Duration.ofNanos(500_000), millis(1), Duration.ofNanos(2_500_000), millis(5), millis(10), millis(25), millis(50),
            millis(100), millis(500), millis(2500));

    /** The HELP text of each family, by Micrometer name. */
    private static final Map<String, String> HELP = Map.ofEntries(
            Map.entry(REQUESTS, "Finished calls by route and outcome (forwarded, executed, not_executed, replayed, failed,"
                    + " rejected); route is none when no route matched"),
            Map.entry(REPLAYS, "Duplicates answered from the store instead of the upstream"),
            Map.entry(KEY_CONFLICTS, "Duplicates refused: kind in_flight (409 key-in-flight) or payload_mismatch"
                    + " (422 key-reused-with-different-payload)"),
            Map.entry(UPSTREAM_ATTEMPTS, "Upstream attempts of protected calls by result: the status class (2xx..5xx)"
                    + " or the failure (connect-failure, read-timeout, idle-timeout, reset, reset-before-request)"),
            Map.entry(RETRIES, "Retries taken, by what caused them: a retry.retryOn word (connect-failure, read-timeout,"
                    + " idle-timeout, reset, a status such as 503), reset-before-request, or retry_after"),
            Map.entry(BUDGET_EXHAUSTED, "Retries refused by a retry budget: budget task (tasks.budget) or route (retryBudget)"),
            Map.entry(ProxyMetrics.FRONT_REJECTIONS, "Requests and connections the front refused, by reason: head_timeout, body_timeout,"
                    + " max_connections, malformed, too_large"),
            Map.entry(DLQ_ENTRIES, "Entries in the store's dead-letter queue; proxies sharing a store each report the"
                    + " same count"),
            Map.entry(UPSTREAM_DURATION, "Time of one upstream attempt of a protected call, to its response head or its"
                    + " failure"),
            Map.entry(STORE_DURATION, "Time of one store operation, by op"),
            Map.entry(STORE_ERRORS, "Store operations that failed, by op"),
            Map.entry(STORE_PASSTHROUGH, "Calls forwarded unprotected because the store did not answer"
                    + " (store.onUnavailable: passthrough)"),
            Map.entry(STORE_NEAR_CACHE, "Claims answered from the near-cache of ended records (result hit) or sent to the"
                    + " store (result miss)"),
            Map.entry(IN_FLIGHT, "Calls being served right now, pass-through and protected, by route"),
            Map.entry(ProxyMetrics.CONNECT, "CONNECT requests of the forward proxy by result: intercepted, tunnelled or refused"),
            Map.entry(MCP_CALLS, "MCP tools/call requests (and JSON-RPC batches) on MCP routes by tool and outcome (executed,"
                    + " not_executed, failed, replayed, rejected, unprotected, unprotected_batch); tool is other when the route's"
                    + " last tools/list did not name it"));
    /** Requests and connections the front refused, by {@link FrontRejection} reason. */
    public static final String FRONT_REJECTIONS = "idemproxy.front.rejections";

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
    private final ConcurrentHashMap<String, InFlightCalls> inFlight = new ConcurrentHashMap<>();
    /** idemproxy_front_rejections_total by reason, every reason registered at zero. */
    private final Counter[] frontRejections = new Counter[FrontRejection.values().length];
    /** Per route, the meters every call touches: the per-call path does no string work. */
    private final ConcurrentHashMap<String, RouteCounters> requestCounters = new ConcurrentHashMap<>();
    /** mcp_calls_total by route, then by "tool|outcome". */
    private final ConcurrentHashMap<String, ConcurrentHashMap<String, Counter>> mcpCounters = new ConcurrentHashMap<>();
    /** store_duration_seconds by op, keyed by the op alone (no name to join per call). */
    private final ConcurrentHashMap<String, Timer> storeTimers = new ConcurrentHashMap<>();

    public ProxyMetrics(MeterRegistry registry) {
        this.registry = requireNonNull(registry, "registry");
        Gauge.builder(DLQ_ENTRIES, dlqEntries, AtomicLong::get).description(help(DLQ_ENTRIES)).strongReference(true)
                .register(registry);
        for (FrontRejection r : FrontRejection.values()) {
            frontRejections[r.ordinal()] = Counter.builder(FRONT_REJECTIONS).tag("reason", r.spelling())
                    .description(help(FRONT_REJECTIONS)).register(registry);
        }
    }

    /**
     * The HELP text of the family {@code name} (a constant of this class).
     *
     * @throws IllegalArgumentException for a name without one: a family is never registered bare
     */
    public static String help(String name) {
        String help = HELP.get(name);
        if (help == null) {
            throw new IllegalArgumentException("metric " + name + " has no HELP text (expected: one of " + HELP.keySet() + ")");
        }
        return help;
    }

    /** Metrics that go nowhere; for tests and tools that need no scrape. */
    public static ProxyMetrics noop() {
        return new ProxyMetrics(new SimpleMeterRegistry());
    }

    /**
     * Registers {@code route}'s series at zero: calls in flight, replays, key conflicts of both
     * kinds, budget exhaustion of both budgets, and retries for each of {@code retryReasons} (the
     * reasons the route's {@code retry.retryOn} can produce): 6 + |retryReasons| series, bounded by
     * the config.
     */
    public void registerRoute(String route, Collection<String> retryReasons) {
        requireNonNull(route, "route");
        inFlight(route);
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

    /**
     * Registers an MCP route's {@code idemproxy_mcp_calls_total} series at zero for the tool
     * {@code other}, one per outcome in {@code outcomes}; a named tool's series appear with its first call.
     */
    public void registerMcpRoute(String route, Collection<String> outcomes) {
        requireNonNull(route, "route");
        for (String outcome : outcomes) {
            mcpCall(route, MCP_OTHER_TOOL, outcome, false);
        }
    }

    /**
     * One MCP tool call ended (or a batch passed). {@code tool} is bounded by the caller (the
     * route's tool catalogue: at most its cap of names, else {@code other}); {@code outcome} is
     * one of a closed set of words.
     */
    public void mcpCall(String route, String tool, String outcome) {
        mcpCall(route, tool, outcome, true);
    }

    private void mcpCall(String route, String tool, String outcome, boolean count) {
        ConcurrentHashMap<String, Counter> byTool = mcpCounters.get(route);
        if (byTool == null) {
            byTool = mcpCounters.computeIfAbsent(route, r -> new ConcurrentHashMap<>());
        }
        Counter c = byTool.get(tool + '|' + outcome);
        if (c == null) {
            c = byTool.computeIfAbsent(tool + '|' + outcome, x -> Counter.builder(MCP_CALLS).description(help(MCP_CALLS))
                    .tag("route", route).tag("tool", tool).tag("outcome", outcome).register(registry));
        }
        if (count) {
            c.increment();
        }
    }

    /** Registers {@code idemproxy_store_errors_total} at zero for each store op name. */
    public void registerStoreOps(Collection<String> ops) {
        for (String op : ops) {
            counter(STORE_ERRORS, "op", op, null, null);
        }
    }

    /**
     * The in-flight count of {@code route} ({@code idemproxy_in_flight{route}}), registered on first
     * use. A caller keeps the handle (one per route) rather than asking per call.
     */
    public InFlightCalls inFlight(String route) {
        InFlightCalls calls = inFlight.get(route);
        if (calls != null) {
            return calls;
        }
        return inFlight.computeIfAbsent(route, r -> {
            InFlightCalls c = new InFlightCalls();
            Gauge.builder(IN_FLIGHT, c, InFlightCalls::current).tag("route", r).description(help(IN_FLIGHT))
                    .strongReference(true).register(registry);
            return c;
        });
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
            t = timer(UPSTREAM_DURATION, "route", route, UPSTREAM_BUCKETS);
            rc.upstreamDuration = t;
        }
        t.record(took);
    }

    /** reason: the retry decision's reason (503, read-timeout, retry_after, …: {@link dev.idemproxy.core.retry.AttemptOutcome#reason()}). */
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
            t = storeTimers.computeIfAbsent(op, o -> timer(STORE_DURATION, "op", o, STORE_BUCKETS));
        }
        t.record(tookNanos, TimeUnit.NANOSECONDS);
        if (failed) {
            counter(STORE_ERRORS, "op", op, null, null).increment();
        }
    }

    /** A request or connection the front refused. */
    public void frontRejection(FrontRejection reason) {
        frontRejections[reason.ordinal()].increment();
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
                ? Counter.builder(name).description(help(name)).tag(k1, v1).register(registry)
                : Counter.builder(name).description(help(name)).tag(k1, v1).tag(k2, v2).register(registry);
        return counters.computeIfAbsent(id, make);
    }

    /** A histogram with exactly {@code buckets} (plus +Inf): no percentile histogram, no client-side percentiles. */
    private Timer timer(String name, String k, String v, List<Duration> buckets) {
        String id = name + '|' + v;
        Timer t = timers.get(id);
        if (t != null) {
            return t;
        }
        return timers.computeIfAbsent(id, x -> Timer.builder(name).description(help(name)).tag(k, v)
                .publishPercentileHistogram(false)
                .serviceLevelObjectives(buckets.toArray(new Duration[0]))
                .register(registry));
    }

    private static Duration millis(long ms) {
        return Duration.ofMillis(ms);
    }
}
