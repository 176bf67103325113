package dev.idemproxy.core.call;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.util.Mistakes;
import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.retry.RetryRules;
import dev.idemproxy.core.retry.RouteRetryBudget;
import dev.idemproxy.core.retry.TaskPolicy;
import dev.idemproxy.core.idempotency.RequestValues;
import dev.idemproxy.core.idempotency.RequestView;
import dev.idemproxy.core.secret.Redactor;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.StorePolicy;
import dev.idemproxy.core.store.Stores;
import java.util.random.RandomGenerator;
import io.netty.handler.codec.http.HttpRequest;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.upstream.UpstreamConnector;
import java.time.Clock;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What every call shares: upstream pools, the retry rules, the budgets, and the time sources.
 * Route budgets are kept per route name, so they survive a reload. This class is thread-safe.
 */
public final class CallServices {
    private final UpstreamConnector upstreams;
    private final RetryRules rules;
    private final TaskBudgets taskBudgets;
    private final Ticker ticker;
    private final Clock clock;
    private final dev.idemproxy.core.retry.RetryBudgetPolicy routeBudgetPolicy;
    private final TaskPolicy tasks;
    private final Stores stores;
    private final StorePolicy.OnUnavailable onUnavailable;
    private final InFlightWaiters waiters = new InFlightWaiters();
    private final RandomGenerator random;
    private final CallRecorder recorder;
    private final CallLog log;
    private final ReplayAuthority replays = new ReplayAuthority(new java.security.SecureRandom());
    private final dev.idemproxy.core.receipt.ReceiptClient receipts;
    private final ConcurrentHashMap<String, RouteRetryBudget> routeBudgets = new ConcurrentHashMap<>();
    /** Who watches each protected call (its tries, its trace); nobody unless set. */
    private volatile CallWatchers watchers = CallWatchers.NONE;
    /** Which dialect each route's calls speak (plain HTTP unless registered otherwise). */
    private volatile Dialects dialects = Dialects.http();
    /** Mistakes planted for the simulation to find; {@link Mistakes#NONE} in production. */
    private final Mistakes mistakes;

    /**
     * @param taskBudgets where task retries are counted: the store's counters when there is a store
     * @param stores null when no store is configured (idempotency then cannot be enforced)
     * @param redactor the config's redaction rules (its secret headers and query parameters)
     * @param logKeyValues whether call lines carry their fields as key-value pairs (see {@link CallLog})
     */
    public CallServices(UpstreamConnector upstreams, RetryRules rules, TaskPolicy tasks, TaskBudgets taskBudgets,
            dev.idemproxy.core.retry.RetryBudgetPolicy routeBudgetPolicy, Stores stores,
            StorePolicy.OnUnavailable onUnavailable, Redactor redactor, RandomGenerator random, Ticker ticker,
            Clock clock, ProxyMetrics metrics, boolean logKeyValues) {
        this(upstreams, rules, tasks, taskBudgets, routeBudgetPolicy, stores, onUnavailable, redactor, random, ticker, clock, metrics,
                logKeyValues, Mistakes.NONE);
    }

    /** As above, with {@code mistakes} planted: for the deterministic simulation only. */
    public CallServices(UpstreamConnector upstreams, RetryRules rules, TaskPolicy tasks, TaskBudgets taskBudgets,
            dev.idemproxy.core.retry.RetryBudgetPolicy routeBudgetPolicy, Stores stores,
            StorePolicy.OnUnavailable onUnavailable, Redactor redactor, RandomGenerator random, Ticker ticker,
            Clock clock, ProxyMetrics metrics, boolean logKeyValues, Mistakes mistakes) {
        this.mistakes = requireNonNull(mistakes, "mistakes");
        requireNonNull(redactor, "redactor");
        this.log = new CallLog(requireNonNull(metrics, "metrics"), logKeyValues, redactor, requireNonNull(ticker, "ticker"));
        this.receipts = new dev.idemproxy.core.receipt.ReceiptClient(upstreams);
        this.stores = stores;
        this.onUnavailable = requireNonNull(onUnavailable, "onUnavailable");
        this.random = requireNonNull(random, "random");
        this.recorder = new CallRecorder(stores == null ? null : stores.receipts(), stores == null ? null : stores.deadLetters(),
                redactor, clock, random, metrics);
        this.tasks = requireNonNull(tasks, "tasks");
        this.upstreams = requireNonNull(upstreams, "upstreams");
        this.rules = requireNonNull(rules, "rules");
        this.taskBudgets = requireNonNull(taskBudgets, "taskBudgets");
        this.routeBudgetPolicy = requireNonNull(routeBudgetPolicy, "routeBudgetPolicy");
        this.ticker = requireNonNull(ticker, "ticker");
        this.clock = requireNonNull(clock, "clock");
    }

    /** The mistakes planted for the simulation; none in production. */
    public Mistakes mistakes() {
        return mistakes;
    }

    /** The stores, or null when none is configured. */
    public Stores stores() {
        return stores;
    }

    /** The idempotency record store, or null when none is configured. */
    public RecordStore records() {
        return stores == null ? null : stores.records();
    }

    public StorePolicy.OnUnavailable onUnavailable() {
        return onUnavailable;
    }

    public dev.idemproxy.core.receipt.ReceiptClient receipts() {
        return receipts;
    }

    public ReplayAuthority replays() {
        return replays;
    }

    public CallLog log() {
        return log;
    }

    public ProxyMetrics metrics() {
        return log.metrics();
    }

    public CallRecorder recorder() {
        return recorder;
    }

    public InFlightWaiters waiters() {
        return waiters;
    }

    public RandomGenerator random() {
        return random;
    }

    /** The call's business id from the route's {@code ids.bizId} parts, first found wins; or null. */
    public String bizId(ProxyCall call, RequestView view) {
        return RequestValues.firstText(call.route().ids().bizId(), view).orElse(null);
    }

    /** Where upstream connections are leased: the pools, or the simulation's upstream. */
    public UpstreamConnector upstreams() {
        return upstreams;
    }

    public RetryRules rules() {
        return rules;
    }

    public Ticker ticker() {
        return ticker;
    }

    public Clock clock() {
        return clock;
    }

    /** The task a request belongs to ({@code tasks.header}, read as UTF-8), or null. */
    public String taskId(HttpRequest request) {
        String t = RequestValues.headerText(request.headers().get(tasks.header()));
        return t == null || t.isBlank() ? null : t;
    }

    /**
     * Identity of a protected call that has no idempotency record (a retry-only route, or a
     * method the route does not protect): a fresh call id and the client's own key, sent upstream
     * unchanged so an upstream that honours it still deduplicates the client's retries; only
     * when the client sent none, a generated key, so the proxy's own retries still carry one.
     * A DLQ replay ({@code replay}, proven by {@link ReplayAuthority#take}; null for any other
     * call) keeps its original call id.
     */
    public CallIdentity unrecordedIdentity(ProxyCall call, String bizId, ReplayAuthority.Replay replay) {
        String callId = replay != null ? replay.callId() : CallId.next(clock, random);
        String keyHeader = call.route().idempotency().key().header();
        // As sent, not read as text: it goes upstream unchanged, and the log line escapes what it must.
        String clientKey = call.request().headers().get(keyHeader);
        String key = clientKey != null && !clientKey.isBlank() ? clientKey : "g-" + callId;
        return new CallIdentity(callId, keyHeader, key, taskId(call.request()), bizId);
    }

    /** The dialect calls on {@code route} speak ({@link Dialects}). */
    public CallDialect dialect(Route route) {
        return dialects.of(route);
    }

    /** Sets which dialects the engine speaks besides plain HTTP (the wiring registers MCP's). */
    public void dialects(Dialects d) {
        this.dialects = requireNonNull(d, "dialects");
    }

    public RouteRetryBudget routeBudget(Route route) {
        return routeBudgets.computeIfAbsent(route.name(), n -> new RouteRetryBudget(routeBudgetPolicy, ticker));
    }

    /** Who watches each protected call. */
    public CallWatchers watchers() {
        return watchers;
    }

    /** Sets who watches each protected call from now on (the tries kept with receipts, traces). */
    public void watchers(CallWatchers w) {
        this.watchers = requireNonNull(w, "watchers");
    }

    /** Where the per-task retry budget is counted. */
    public TaskBudgets taskBudgets() {
        return taskBudgets;
    }
}
