package dev.idemproxy.core.call;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.idempotency.KeyPolicy;
import dev.idemproxy.core.idempotency.ScopePolicy;
import dev.idemproxy.core.idempotency.TestRequest;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.retry.BackoffPolicy;
import dev.idemproxy.core.retry.Jitter;
import dev.idemproxy.core.retry.LocalTaskBudgets;
import dev.idemproxy.core.retry.RetryBudgetPolicy;
import dev.idemproxy.core.retry.RetryPolicy;
import dev.idemproxy.core.retry.RetryRules;
import dev.idemproxy.core.retry.TaskPolicy;
import dev.idemproxy.core.dlq.DeadLetterPolicy;
import dev.idemproxy.core.route.IdsPolicy;
import dev.idemproxy.core.route.PoolPolicy;
import dev.idemproxy.core.route.ReceiptPolicy;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.route.Timeouts;
import dev.idemproxy.core.route.TlsPolicy;
import dev.idemproxy.core.secret.Redactor;
import dev.idemproxy.core.store.StorePolicy;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.memory.MemoryStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.MockTicker;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A protected call driven by hand: the real call (its state machine, its helpers, the retry rules,
 * the memory store behind a record store that answers when told, {@link HeldRecords}) on an
 * {@link EmbeddedChannel}'s loop whose clock only moves when the test says ({@link #advance}), a
 * client leg that records what it is given ({@link RigClient}) and upstream connections with the
 * real HTTP codec that the test answers byte by byte ({@link RigUpstreams}). No sockets, no
 * threads, no sleeps. Every phase the call moves through is written down ({@link #moves}).
 */
final class CallRig implements AutoCloseable {
    static final String BODY = "{\"title\":\"printer on fire\"}";

    final MockTicker ticker = io.netty.util.concurrent.Ticker.newMockTicker();
    final EmbeddedChannel loop = EmbeddedChannel.builder().ticker(ticker).build();
    final Clock clock = new TickerClock(ticker, Instant.parse("2026-12-04T12:00:00Z"));
    final Stores memory = MemoryStore.create(10_000, clock);
    final HeldRecords records = new HeldRecords(memory.records());
    final Stores stores = memory.withRecords(records);
    final RigUpstreams upstreams = new RigUpstreams(ticker);
    private final List<RigClient> clients = new ArrayList<>();
    final RigClient client = newClient();
    final List<String> moves = new ArrayList<>();
    /** Every move made, never forgotten ({@link TransitionCheck} reads it). */
    final List<String> allMoves = new ArrayList<>();
    final ProxyMetrics metrics = new ProxyMetrics(new SimpleMeterRegistry());
    final CallServices services;
    private int calls;
    /** The plan of the last call made. */
    CallPlan.Protect lastPlan;

    CallRig() {
        this(StorePolicy.OnUnavailable.REJECT, TaskPolicy.DEFAULT);
    }

    CallRig(StorePolicy.OnUnavailable onUnavailable, TaskPolicy tasks) {
        services = new CallServices(upstreams, new RetryRules(new Random(7), clock), tasks,
                TaskBudgets.local(new LocalTaskBudgets(tasks, clock)), RetryBudgetPolicy.DEFAULT, stores, onUnavailable,
                Redactor.BUILT_IN, new Random(11), () -> ticker.nanoTime(), clock, metrics, false);
        services.dialects(Dialects.http().with(dev.idemproxy.core.route.McpPolicy.class,
                new dev.idemproxy.core.mcp.McpDialects(metrics)));
        services.watchers((call, identity) -> new CallWatch() {
            @Override
            public void phase(CallPhase from, CallPhase to) {
                moves.add(from + "->" + to);
                allMoves.add(from + "->" + to);
            }

            @Override
            public void forwarding(ForwardingPhase from, ForwardingPhase to) {
                moves.add(from + "->" + to);
                allMoves.add(from + "->" + to);
            }
        });
    }

    /** A protected POST route: the client's key, else derived; {@code retry} and {@code receipt} as given. */
    static Route route(RetryPolicy retry, Set<String> tags, ReceiptPolicy receipt) {
        IdempotencyPolicy idem = new IdempotencyPolicy(true, Set.of("POST"), KeyPolicy.DEFAULT, ScopePolicy.CREDENTIALS, List.of(),
                Duration.ofHours(24), Duration.ofSeconds(30), IdempotencyPolicy.OnConcurrent.WAIT, Duration.ofSeconds(30),
                1024 * 1024, 64 * 1024);
        return new Route("tickets", RouteMatch.ANY, URI.create("http://tickets.internal"), tags,
                new Timeouts(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60)), idem,
                retry, IdsPolicy.DEFAULT, receipt, DeadLetterPolicy.DEFAULT, TlsPolicy.DEFAULT, PoolPolicy.DEFAULT);
    }

    /** Four attempts on 5xx and on failures, a 100 ms backoff without jitter. */
    static RetryPolicy retries() {
        return new RetryPolicy(4, Set.of("connect-failure", "read-timeout", "reset", "429", "500", "502", "503", "504"),
                new BackoffPolicy(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, Jitter.parse("none")), Duration.ofSeconds(60));
    }

    static Route plainRoute() {
        return route(retries(), Set.of(), null);
    }

    /** Another client leg, for a second call on the same loop. */
    RigClient newClient() {
        RigClient c = new RigClient(loop.eventLoop(), loop.alloc());
        clients.add(c);
        return c;
    }

    /** A recorded call of {@code route} with {@code key} (null: derived), planned by the HTTP dialect as the gate plans it. */
    ProtectedCall recorded(Route route, String key, Map<String, String> headers) {
        return recorded(route, key, headers, BODY, client);
    }

    ProtectedCall recorded(Route route, String key, Map<String, String> headers, String body, RigClient to) {
        ProxyCall call = call(route, headers, key, body);
        TestRequest view = new TestRequest("POST", route.isMcp() ? "/mcp" : "/tickets", Map.of(), Map.of(),
                body.getBytes(StandardCharsets.UTF_8));
        for (Map.Entry<String, String> h : headers.entrySet()) {
            view = view.withHeader(h.getKey(), h.getValue());
        }
        if (key != null) {
            view = view.withHeader("Idempotency-Key", key);
        }
        CallPlan plan = call.dialect().planner(new Random(3)).plan(call, view);
        call.plan(plan);
        CallPlan.Protect p = (CallPlan.Protect) plan;
        lastPlan = p;
        CallIdentity id = new CallIdentity("call-" + (++calls), "Idempotency-Key", p.headerValue(), headers.get("X-Task-Id"), null);
        if (call.dialect() != HttpDialect.INSTANCE) {
            call.startInDialect();
        }
        return ProtectedCall.recorded(call, p, id, clock.instant(), services, to);
    }

    ProtectedCall recorded(Route route, String key) {
        return recorded(route, key, Map.of());
    }

    /** A call without a record, as a retry-only route's. */
    ProtectedCall unrecorded(Route route) {
        ProxyCall call = call(route, Map.of(), null, BODY);
        CallIdentity id = new CallIdentity("call-" + (++calls), "Idempotency-Key", "g-" + calls, null, null);
        return ProtectedCall.unrecorded(call, id, clock.instant(), services, client);
    }

    private ProxyCall call(Route route, Map<String, String> headers, String key, String body) {
        String path = route.isMcp() ? "/mcp" : "/tickets";
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, path);
        headers.forEach((n, v) -> req.headers().set(n, v));
        if (key != null) {
            req.headers().set("Idempotency-Key", key);
        }
        ProxyCall call = new ProxyCall(req, route, services.dialect(route), "tickets.internal", path, ticker.nanoTime());
        call.body(Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        return call;
    }

    /** Moves the clock and runs what became due, on the call's loop and the upstreams'. */
    void advance(Duration d) {
        ticker.advance(d.toNanos(), TimeUnit.NANOSECONDS);
        run();
    }

    /** Runs what is queued and due. */
    void run() {
        for (int i = 0; i < 10; i++) {
            loop.runPendingTasks();
            upstreams.run();
        }
    }

    /** The store's oldest held answer reaches its caller, on the loop. */
    void answerStore() {
        records.answerNext();
        run();
    }

    /** The moves so far, then forgets them. */
    List<String> takeMoves() {
        List<String> m = List.copyOf(moves);
        moves.clear();
        return m;
    }

    void assertMoved(String... expected) {
        assertThat(takeMoves()).containsExactly(expected);
    }

    /** An HTTP/1.1 answer with a JSON body and its length. */
    static String answer(int status, String json) {
        return "HTTP/1.1 " + status + " X\r\ncontent-type: application/json\r\ncontent-length: "
                + json.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + json;
    }

    /** An MCP route (every tool protected, no catalogue seen) with {@code retry} and {@code tags}. */
    static Route mcpRoute(RetryPolicy retry, Set<String> tags) {
        Route http = route(retry, tags, null);
        return new Route("tools", RouteMatch.ANY, http.upstream(), tags, http.timeouts(), http.idempotency(), retry, http.ids(), null,
                http.deadLetter(), http.tls(), http.pool(), dev.idemproxy.core.route.LogPolicy.DEFAULT,
                new dev.idemproxy.core.route.McpPolicy(true, dev.idemproxy.core.route.McpPolicy.Protect.ALL, Map.of(),
                        Duration.ofMinutes(5)));
    }

    /** A JSON-RPC tools/call of {@code create_ticket} with id {@code id}. */
    static String toolCall(int id) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id
                + ",\"method\":\"tools/call\",\"params\":{\"name\":\"create_ticket\",\"arguments\":{\"title\":\"printer\"}}}";
    }

    private boolean closed;

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        clients.forEach(RigClient::close);
        upstreams.close();
        loop.finishAndReleaseAll();
        memory.close();
    }

    /** The mock ticker as wall-clock time, from {@code start}. */
    static final class TickerClock extends Clock {
        private final MockTicker ticker;
        private final Instant start;
        private final long origin;

        TickerClock(MockTicker ticker, Instant start) {
            this.ticker = ticker;
            this.start = start;
            this.origin = ticker.nanoTime();
        }

        @Override
        public Instant instant() {
            return start.plusNanos(ticker.nanoTime() - origin);
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
