package dev.idemproxy.core.mcp;

import dev.idemproxy.core.call.CallDialect;
import dev.idemproxy.core.call.CallIdentity;
import dev.idemproxy.core.call.CallPlan;
import dev.idemproxy.core.call.HttpDialect;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.call.Replays;
import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.problem.ProblemResponses;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.FailureClass;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.random.RandomGenerator;

/**
 * The Model Context Protocol dialect of one MCP route (docs/mcp.md), kept per route name across
 * config reloads with the route's {@link ToolCatalogue} and its protected calls in flight
 * ({@link McpInFlight}); the route's settings are read from each call's route.
 * <ul>
 *   <li>Every POST is buffered and planned ({@link McpPlanning}); GET streams stream through, and so
 *       does a session's DELETE, once the session's protected calls have settled (the upstream
 *       would drop their answers with the session).</li>
 *   <li>An answer is judged whole: a 2xx is held and judged by the JSON-RPC response in it, a
 *       JSON body or the response an SSE stream carries ({@link McpOutcomes}); a 5xx is unknown
 *       at its head, and any other status not executed (the transport refused the message). A 2xx
 *       holding no response for the call counts as cut short (a reset).</li>
 *   <li>What is stored of an answer is its final JSON-RPC response only, as {@code application/json};
 *       an answer that is none (an upstream 5xx) is stored as it came, without {@code Mcp-Session-Id}.</li>
 *   <li>A duplicate gets the stored response with {@code id} replaced by its own ({@link McpReplay}),
 *       {@code Idempotent-Replayed: true}, its original call's {@code X-Call-Id} and {@code X-Attempts}.</li>
 *   <li>The proxy's own errors for a {@code tools/call} are JSON-RPC errors ({@link McpErrors}):
 *       HTTP 200, the request's id, {@code error.data.type} the problem's URN.</li>
 *   <li>Tool calls are counted in {@code idemproxy_mcp_calls_total{route,tool,outcome}}.</li>
 * </ul>
 * This class is thread-safe.
 */
public final class McpDialect implements CallDialect {
    /** The {@code outcome} words of {@code idemproxy_mcp_calls_total}. */
    public static final List<String> OUTCOMES = List.of("executed", "not_executed", "failed", "replayed", "rejected",
            "unprotected", "unprotected_batch");
    private static final List<StoredHeader> JSON = List.of(new StoredHeader("content-type", JsonRpcAnswer.CONTENT_TYPE));
    /** A stored response read as a JSON-RPC response (its id's span), once per stored response replayed. */
    private static final Function<StoredResponse, Optional<JsonRpcResponse>> RESPONSE = r -> JsonRpcResponse.read(r.body());

    private final String route;
    private final ToolCatalogue catalogue = new ToolCatalogue();
    private final McpInFlight inFlight = new McpInFlight();
    private final ProxyMetrics metrics;

    public McpDialect(String route, ProxyMetrics metrics) {
        this.route = requireNonNull(route, "route");
        this.metrics = requireNonNull(metrics, "metrics");
    }

    ToolCatalogue catalogue() {
        return catalogue;
    }

    McpInFlight inFlight() {
        return inFlight;
    }

    @Override
    public Planner planner(RandomGenerator random) {
        return new McpPlanning(this);
    }

    @Override
    public boolean buffers(ProxyCall call) {
        HttpMethod m = call.request().method();
        return HttpMethod.POST.equals(m)
                || (HttpMethod.DELETE.equals(m) && call.request().headers().contains(McpPlanning.SESSION_HEADER));
    }

    @Override
    public boolean gated(ProxyCall call, boolean hasStore) {
        return true;
    }

    @Override
    public FullHttpResponse tooLarge(ByteBufAllocator alloc, ProxyCall call, byte[] prefix, String detail) {
        Optional<String> id = McpMessageReader.toolCallId(prefix);
        return id.isPresent() ? json(alloc, McpErrors.error(Problem.REQUEST_TOO_LARGE, id.get(), detail, null))
                : ProblemResponses.build(alloc, Problem.REQUEST_TOO_LARGE, detail, null);
    }

    @Override
    public boolean repeatHarmless(ProxyCall call) {
        return facts(call).repeatHarmless();
    }

    @Override
    public boolean holdsAnswer(ProxyCall call, HttpResponse head) {
        int status = head.status().code();
        return status >= 200 && status < 300;
    }

    @Override
    public AttemptOutcome classify(ProxyCall call, HttpResponse head) {
        int status = head.status().code();
        if (status >= 500 || status == 429) {
            return AttemptOutcome.answered(status, head.headers().get(HttpHeaderNames.RETRY_AFTER));  // Retry-After honoured
        }
        return judged(status, McpOutcomes.ofAnswer(status, null));
    }

    @Override
    public AttemptOutcome classifyHeld(ProxyCall call, HttpResponse head, byte[] body) {
        int status = head.status().code();
        byte[] response = finalResponse(call, head.headers(), body);
        McpOutcome o = McpOutcomes.ofAnswer(status, response);
        if (response == null || "no_final_response".equals(o.reason())) {
            return AttemptOutcome.failed(FailureClass.RESET);  // cut short: no response to judge it by
        }
        return judged(status, o);
    }

    private static AttemptOutcome judged(int status, McpOutcome o) {
        return AttemptOutcome.judged(status, o.outcomeClass(), o.retryOnWord(), o.reason());
    }

    /** The final JSON-RPC response in an answer's body: the body itself, or the one an SSE stream carries; null when none. */
    private byte[] finalResponse(ProxyCall call, HttpHeaders headers, byte[] body) {
        if (!isEventStream(headers)) {
            return JsonRpcResponse.read(body).isPresent() ? body : null;
        }
        String id = facts(call).requestId();
        if (id == null) {
            return null;
        }
        SseResponseCapture sse = new SseResponseCapture(id, Math.max(1, body.length));
        sse.feed(body);
        return sse.finalResponse().orElse(null);
    }

    @Override
    public StoredResponse stored(ProxyCall call, StoredResponse captured) {
        if (captured == null) {
            return null;
        }
        int status = captured.status();
        if (status >= 200 && status < 300) {
            byte[] response = finalResponse(call, storedHeaders(captured), captured.body());
            if (response != null) {
                return new StoredResponse(status, JSON, response);
            }
        }
        List<StoredHeader> kept = new ArrayList<>(captured.headers().size());
        for (StoredHeader h : captured.headers()) {
            if (!McpPlanning.SESSION_HEADER.equalsIgnoreCase(h.name())) {
                kept.add(h);  // all but Mcp-Session-Id: the first call's session is not a duplicate's
            }
        }
        return new StoredResponse(status, kept, captured.body());
    }

    @Override
    public FullHttpResponse replay(ByteBufAllocator alloc, ProxyCall duplicate, StoredResponse stored, String callId, int attempts) {
        String id = facts(duplicate).requestId();
        Optional<JsonRpcResponse> r = id == null ? Optional.empty() : stored.derived(RESPONSE);
        if (r.isEmpty()) {
            return Replays.response(alloc, stored, callId, attempts, false);  // not a JSON-RPC response: as it was
        }
        ByteBuf body = withId(alloc, stored, r.get(), id);
        FullHttpResponse resp = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(stored.status()), body);
        HttpHeaders h = resp.headers();
        h.set(HttpHeaderNames.CONTENT_TYPE, JsonRpcAnswer.CONTENT_TYPE);
        h.setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        h.set(CallIdentity.IDEMPOTENT_REPLAYED, "true");
        h.set(CallIdentity.X_CALL_ID, callId);
        h.setInt(CallIdentity.X_ATTEMPTS, attempts);
        return resp;
    }

    /** The stored response with {@code rawId} in place of its id, every other byte as stored ({@link McpReplay#withId}). */
    private static ByteBuf withId(ByteBufAllocator alloc, StoredResponse stored, JsonRpcResponse r, String rawId) {
        if (r.idStart() < 0) {
            byte[] spliced = McpReplay.withId(stored.body(), rawId).orElseThrow();
            return alloc.buffer(spliced.length).writeBytes(spliced);
        }
        byte[] id = rawId.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        java.nio.ByteBuffer all = stored.bodyBuffer();
        ByteBuf b = alloc.buffer(stored.bodyLength() - (r.idEnd() - r.idStart()) + id.length);
        b.writeBytes(all.duplicate().limit(r.idStart()));
        b.writeBytes(id);
        b.writeBytes(all.duplicate().position(r.idEnd()));
        return b;
    }

    @Override
    public FullHttpResponse problem(ByteBufAllocator alloc, ProxyCall call, Problem problem, String detail, String callId) {
        String id = facts(call).requestId();
        return id == null ? ProblemResponses.build(alloc, problem, detail, callId)
                : json(alloc, McpErrors.error(problem, id, detail, callId));
    }

    @Override
    public StoredResponse storedProblem(ProxyCall call, Problem problem, String detail, String callId) {
        String id = facts(call).requestId();
        if (id == null) {
            return HttpDialect.INSTANCE.storedProblem(call, problem, detail, callId);
        }
        return new StoredResponse(200, JSON, McpErrors.error(problem, id, detail, callId).body());
    }

    @Override
    public void started(ProxyCall call) {
        McpFacts f = facts(call);
        if (f.cancelKey() != null) {
            inFlight.add(f.cancelKey(), f.sessionKey());
        }
    }

    @Override
    public void settled(ProxyCall call) {
        McpFacts f = facts(call);
        if (f.cancelKey() != null) {
            inFlight.remove(f.cancelKey(), f.sessionKey());
        }
    }

    /**
     * Counts a tool call (or batch) once, as it ends: {@code executed}, {@code not_executed},
     * {@code failed} (ambiguous, exhausted: dead-lettered), {@code replayed}, {@code rejected}
     * (answered by the proxy: an unreadable call, a bad key, 409, 422, 503), {@code unprotected}
     * (passed through), {@code unprotected_batch}.
     */
    @Override
    public void finished(ProxyCall call, CallOutcome outcome) {
        McpFacts f = facts(call);
        if (f.toolLabel() == null && !f.batch()) {
            return;  // not a tool call: initialize, tools/list, notifications, GET streams, DELETE
        }
        String word;
        if (call.plan() instanceof CallPlan.Pass) {
            word = f.batch() ? "unprotected_batch" : "unprotected";
        } else {
            word = switch (outcome) {
                case EXECUTED -> "executed";
                case NOT_EXECUTED -> "not_executed";
                case REPLAYED -> "replayed";
                case REJECTED -> "rejected";
                case FAILED -> "failed";
                case FORWARDED -> "unprotected";  // a protected call forwarded unprotected (store down, passthrough)
            };
        }
        metrics.mcpCall(route, f.batch() ? ToolCatalogue.OTHER : f.toolLabel(), word);
    }

    private static McpFacts facts(ProxyCall call) {
        CallPlan plan = call.plan();
        return plan != null && plan.facts() instanceof McpFacts f ? f : McpFacts.NONE;
    }

    private static boolean isEventStream(HttpHeaders headers) {
        String type = headers.get(HttpHeaderNames.CONTENT_TYPE);
        return type != null && type.toLowerCase(Locale.ROOT).startsWith("text/event-stream");
    }

    private static HttpHeaders storedHeaders(StoredResponse r) {
        HttpHeaders h = new io.netty.handler.codec.http.DefaultHttpHeaders();
        for (StoredHeader s : r.headers()) {
            if (HttpHeaderNames.CONTENT_TYPE.contentEqualsIgnoreCase(s.name())) {
                h.add(HttpHeaderNames.CONTENT_TYPE, s.value());
            }
        }
        return h;
    }

    private static FullHttpResponse json(ByteBufAllocator alloc, JsonRpcAnswer a) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(a.status()),
                alloc.buffer(a.body().length).writeBytes(a.body()));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, JsonRpcAnswer.CONTENT_TYPE);
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, a.body().length);
        return r;
    }
}
