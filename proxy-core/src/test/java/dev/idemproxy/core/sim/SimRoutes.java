package dev.idemproxy.core.sim;

import dev.idemproxy.core.dlq.DeadLetterPolicy;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.idempotency.KeyPolicy;
import dev.idemproxy.core.idempotency.RequestPart;
import dev.idemproxy.core.route.McpPolicy;
import dev.idemproxy.core.retry.BackoffPolicy;
import dev.idemproxy.core.retry.Jitter;
import dev.idemproxy.core.retry.RetryPolicy;
import dev.idemproxy.core.route.IdsPolicy;
import dev.idemproxy.core.route.LogPolicy;
import dev.idemproxy.core.route.PoolPolicy;
import dev.idemproxy.core.route.ReceiptPolicy;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.route.RouteTable;
import dev.idemproxy.core.route.Timeouts;
import dev.idemproxy.core.route.TlsPolicy;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The routes of one run, drawn from its seed: a plain HTTP route ({@code /orders}) tagged
 * {@code idempotent} or not, with its retry policy, lease, {@code onConcurrent}, key derivation,
 * receipt endpoint and {@code notExecutedOn}; and an MCP route ({@code /mcp}). Leases are short
 * (a second or a few) so that lapses happen within a run; ttl and derived windows are long, so no
 * record expires within one. Stateless.
 */
final class SimRoutes {
    static final String ORDERS = "orders";
    static final String TOOLS = "tools";
    static final String UPSTREAM = "http://upstream.sim";
    static final Duration TTL = Duration.ofHours(1);

    private SimRoutes() {}

    static RouteTable draw(SplittableRandom r) {
        return RouteTable.of(List.of(http(r), mcp(r)));
    }

    private static Route http(SplittableRandom r) {
        Set<String> tags = r.nextInt(4) == 0 ? Set.of(Route.TAG_IDEMPOTENT) : Set.of();
        ReceiptPolicy receipt = r.nextInt(3) == 0 ? new ReceiptPolicy(UPSTREAM + "/receipts/{callId}", null, null) : null;
        Set<Integer> notExecutedOn = r.nextInt(4) == 0 ? Set.of(503) : Set.of();
        return new Route(ORDERS, new RouteMatch(null, "/orders", Set.of()), URI.create(UPSTREAM), tags, timeouts(r),
                idempotency(r, Set.of("POST", "PUT")), retry(r), IdsPolicy.DEFAULT, receipt, DeadLetterPolicy.DEFAULT,
                TlsPolicy.DEFAULT, PoolPolicy.DEFAULT, LogPolicy.DEFAULT, McpPolicy.DISABLED, notExecutedOn, false);
    }

    private static Route mcp(SplittableRandom r) {
        Set<String> tags = r.nextInt(5) == 0 ? Set.of(Route.TAG_IDEMPOTENT) : Set.of();
        McpPolicy mcp = new McpPolicy(true, McpPolicy.Protect.UNLESS_READ_ONLY, Map.of(), Duration.ofMinutes(10));
        return new Route(TOOLS, new RouteMatch(null, "/mcp", Set.of()), URI.create(UPSTREAM), tags, timeouts(r),
                idempotency(r, Set.of("POST")), retry(r), IdsPolicy.DEFAULT, null, DeadLetterPolicy.DEFAULT, TlsPolicy.DEFAULT,
                PoolPolicy.DEFAULT, LogPolicy.DEFAULT, mcp, Set.of(), false);
    }

    private static Timeouts timeouts(SplittableRandom r) {
        return new Timeouts(Duration.ofMillis(300 + r.nextInt(700)), Duration.ofMillis(300 + r.nextInt(2700)),
                Duration.ofMillis(1000 + r.nextInt(4000)), Duration.ofMillis(4000 + r.nextInt(16000)));
    }

    private static IdempotencyPolicy idempotency(SplittableRandom r, Set<String> methods) {
        List<RequestPart> derive = r.nextInt(5) == 0 ? List.of() : KeyPolicy.DEFAULT_DERIVE;
        KeyPolicy key = new KeyPolicy("Idempotency-Key", derive, Duration.ofMinutes(10), false);
        IdempotencyPolicy.OnConcurrent concurrent = r.nextInt(4) == 0 ? IdempotencyPolicy.OnConcurrent.REJECT
                : IdempotencyPolicy.OnConcurrent.WAIT;
        long maxResponse = r.nextInt(8) == 0 ? 48 : 1024 * 1024;
        return new IdempotencyPolicy(true, methods, key, List.of(RequestPart.parse("header:Authorization")), List.of(), TTL,
                Duration.ofMillis(1000 + r.nextInt(2000)), concurrent, Duration.ofMillis(500 + r.nextInt(4500)), 64 * 1024,
                maxResponse);
    }

    private static RetryPolicy retry(SplittableRandom r) {
        BackoffPolicy backoff = new BackoffPolicy(Duration.ofMillis(20 + r.nextInt(200)), Duration.ofSeconds(2), 2.0, Jitter.FULL);
        return new RetryPolicy(1 + r.nextInt(4), RetryPolicy.DEFAULT_RETRY_ON, backoff, Duration.ofSeconds(1 + r.nextInt(5)));
    }
}
