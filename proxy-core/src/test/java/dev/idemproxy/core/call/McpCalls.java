package dev.idemproxy.core.call;

import dev.idemproxy.core.dlq.DeadLetterPolicy;
import dev.idemproxy.core.idempotency.RequestPart;
import dev.idemproxy.core.idempotency.RequestView;
import dev.idemproxy.core.idempotency.TestRequest;
import dev.idemproxy.core.mcp.McpPolicy;
import dev.idemproxy.core.mcp.ToolInfo;
import dev.idemproxy.core.mcp.ToolsListPage;
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
final class McpCalls {
    static final McpPolicy MCP = new McpPolicy(true, McpPolicy.Protect.UNLESS_READ_ONLY, Map.of(), Duration.ofMinutes(5));

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final McpDialect dialect = new McpDialect("tools", new ProxyMetrics(registry));
    final Route route;

    McpCalls() {
        this(Set.of());
    }

    McpCalls(Set<String> tags) {
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
    McpCalls listed() {
        dialect.catalogue().apply(null, new ToolsListPage(List.of(new ToolInfo("search_docs", true, false),
                new ToolInfo("set_flag", false, true), new ToolInfo("create_ticket", false, false)), null));
        return this;
    }

    static String toolCall(String id, String tool, String args) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":" + args + "}}";
    }

    static TestRequest post(String json) {
        return TestRequest.post("/mcp").withJson(json).withHeader("Authorization", "Bearer a");
    }

    /** A call on the route whose head is {@code request}'s, planned by a fresh planner. */
    ProxyCall planned(RequestView request) {
        ProxyCall call = call(request.method());
        call.plan(dialect.planner(null).plan(call, request));
        return call;
    }

    ProxyCall call(String method) {
        DefaultFullHttpRequest head = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(method), "/mcp",
                Unpooled.EMPTY_BUFFER);
        return new ProxyCall(head, route, dialect, "proxy", "/mcp", 0);
    }

    static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
