package dev.idemproxy.core.mcp;

import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.dlq.DeadLetterPolicy;
import dev.idemproxy.core.idempotency.RequestPart;
import dev.idemproxy.core.idempotency.RequestView;
import dev.idemproxy.core.idempotency.TestRequest;
import dev.idemproxy.core.route.McpPolicy;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.retry.RetryPolicy;
import dev.idemproxy.core.route.IdsPolicy;
import dev.idemproxy.core.route.LogPolicy;
import dev.idemproxy.core.route.PoolPolicy;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.route.Timeouts;
import dev.idemproxy.core.route.TlsPolicy;
import dev.idemproxy.core.testing.OneLoopProxy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** An MCP route, its dialect and calls on it, for the call package's MCP tests. Not thread-safe. */
public final class McpCalls {
    public static final McpPolicy MCP = new McpPolicy(true, McpPolicy.Protect.UNLESS_READ_ONLY, Map.of(), Duration.ofMinutes(5));

    public final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    public final McpDialect dialect = new McpDialect("tools", new ProxyMetrics(registry));
    public final Route route;

    public McpCalls() {
        this(Set.of());
    }

    public McpCalls(Set<String> tags) {
        route = new Route("tools", RouteMatch.ANY, URI.create("http://127.0.0.1:1"), tags, Timeouts.DEFAULT,
                scoped(OneLoopProxy.protectPosts(Duration.ofHours(1))), RetryPolicy.DEFAULT, IdsPolicy.DEFAULT, null,
                DeadLetterPolicy.DEFAULT, TlsPolicy.DEFAULT, PoolPolicy.DEFAULT, LogPolicy.DEFAULT, MCP);
    }

    private static dev.idemproxy.core.idempotency.IdempotencyPolicy scoped(dev.idemproxy.core.idempotency.IdempotencyPolicy p) {
        return new dev.idemproxy.core.idempotency.IdempotencyPolicy(p.enabled(), p.methods(), p.key(),
                List.of(RequestPart.parse("header:Authorization")), p.fingerprint(), p.ttl(), p.lease(), p.onConcurrent(),
                p.waitTimeout(), p.maxRequestBody(), p.maxResponseBody());
    }

    /** The catalogue as a tools/list naming search_docs (read-only), set_flag (idempotent) and create_ticket. */
    public McpCalls listed() {
        dialect.catalogue().apply(null, new ToolsListPage(List.of(new ToolInfo("search_docs", true, false),
                new ToolInfo("set_flag", false, true), new ToolInfo("create_ticket", false, false)), null));
        return this;
    }

    public static String toolCall(String id, String tool, String args) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":" + args + "}}";
    }

    public static TestRequest post(String json) {
        return TestRequest.post("/mcp").withJson(json).withHeader("Authorization", "Bearer a");
    }

    /** A call on the route whose head is {@code request}'s, planned by a fresh planner. */
    public ProxyCall planned(RequestView request) {
        ProxyCall call = call(request.method());
        call.plan(dialect.planner(null).plan(call, request));
        return call;
    }

    public ProxyCall call(String method) {
        DefaultFullHttpRequest head = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(method), "/mcp",
                Unpooled.EMPTY_BUFFER);
        return new ProxyCall(head, route, dialect, "proxy", "/mcp", 0);
    }

    public static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
