package dev.idemproxy.core.call;

import static java.util.Objects.requireNonNull;

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
    /** Each MCP route's dialect, by route name: its tool catalogue and calls in flight outlive a reload. */
    private final ConcurrentHashMap<String, McpDialect> mcpDialects = new ConcurrentHashMap<>();

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

    /**
     * The dialect calls on {@code route} speak: {@link HttpDialect#INSTANCE}, or for an MCP route
     * ({@link Route#isMcp()}) the route's own {@link McpDialect}, one per route name, kept across
     * reloads.
     */
    public CallDialect dialect(Route route) {
        if (!route.isMcp()) {
            return HttpDialect.INSTANCE;
        }
        McpDialect d = mcpDialects.get(route.name());
        return d != null ? d : mcpDialects.computeIfAbsent(route.name(), n -> new McpDialect(n, metrics()));
    }

    public RouteRetryBudget routeBudget(Route route) {
        return routeBudgets.computeIfAbsent(route.name(), n -> new RouteRetryBudget(routeBudgetPolicy, ticker));
    }

    /** Where the per-task retry budget is counted. */
    public TaskBudgets taskBudgets() {
        return taskBudgets;
    }
}
