package dev.idemproxy.app.telemetry;

import static dev.idemproxy.app.telemetry.SpanKeys.*;

import dev.idemproxy.core.call.CallIdentity;
import dev.idemproxy.core.call.CallPlan;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.idempotency.StoredKey;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.secret.Redactor;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.concurrent.TimeUnit;

/**
 * Starts the spans of a call and gives them the attributes every span of a kind carries (the HTTP
 * conventions' for a SERVER span, the client leg's for a CLIENT span, the MCP conventions' for a
 * {@code tools/call}), redacting what the config says is secret. Attributes are set only on a
 * recording (sampled) span. Called on event loops; this class is thread-safe.
 */
final class CallSpans {
    private final Tracer tracer;
    private final Redactor redactor;
    private final RecentCalls recent;
    /** The last route's upstream base (routes are immutable and kept across calls; a race only makes it again). */
    private volatile UpstreamBase lastBase;

    CallSpans(Tracer tracer, Redactor redactor, RecentCalls recent) {
        this.tracer = tracer;
        this.redactor = redactor;
        this.recent = recent;
    }

    RecentCalls recent() {
        return recent;
    }

    /** The span name: {@code tools/call NAME} for an MCP tool call, else the method (HTTP conventions without a route template). */
    static String name(ProxyCall call, boolean mcp) {
        return mcp ? TOOLS_CALL + " " + call.label() : call.request().method().name();
    }

    /** A SERVER span for {@code call} from {@code startEpochNanos}, under {@code parent}. */
    Span server(ProxyCall call, String name, Context parent, long startEpochNanos) {
        Span s = tracer.spanBuilder(name).setSpanKind(SpanKind.SERVER).setParent(parent)
                .setStartTimestamp(startEpochNanos, TimeUnit.NANOSECONDS).startSpan();
        if (s.isRecording()) {
            String target = call.pathAndQuery();
            int q = target.indexOf('?');
            s.setAttribute(HTTP_REQUEST_METHOD, call.request().method().name())
                    .setAttribute(URL_SCHEME, call.clientScheme())
                    .setAttribute(URL_PATH, q < 0 ? target : target.substring(0, q))
                    .setAttribute(ROUTE, call.route().name());
            if (q >= 0) {
                s.setAttribute(URL_QUERY, redactor.target(target).substring(q + 1));
            }
        }
        return s;
    }

    /** A CLIENT span for try {@code n} of {@code call} to {@code url} (its upstream URL, redacted), under {@code server}. */
    Span client(ProxyCall call, String name, Span server, long startEpochNanos, int n, String url) {
        Span s = tracer.spanBuilder(name).setSpanKind(SpanKind.CLIENT).setParent(Context.root().with(server))
                .setStartTimestamp(startEpochNanos, TimeUnit.NANOSECONDS).startSpan();
        if (s.isRecording()) {
            Route r = call.route();
            s.setAttribute(HTTP_REQUEST_METHOD, call.request().method().name())
                    .setAttribute(URL_FULL, url)
                    .setAttribute(SERVER_ADDRESS, r.upstream().getHost())
                    .setAttribute(SERVER_PORT, r.upstreamPort())
                    .setAttribute(TRY, n);
            if (n > 1) {
                s.setAttribute(HTTP_REQUEST_RESEND_COUNT, n - 1);
            }
        }
        return s;
    }

    /** Where {@code call} goes upstream, as a URL with its secret query parameters as {@code ***} (no user-info: it never has any). */
    String upstreamUrl(ProxyCall call) {
        Route r = call.route();
        UpstreamBase base = lastBase;
        if (base == null || base.route != r) {
            base = new UpstreamBase(r, r.upstream().getScheme() + "://" + r.upstreamAuthority() + r.upstreamBasePath());
            lastBase = base;
        }
        return redactor.target(base.prefix.concat(call.pathAndQuery()));
    }

    /** A route's upstream URL up to the call's path: made once for the route the last call went through. */
    private record UpstreamBase(Route route, String prefix) {}

    /** The MCP and GenAI conventions' attributes of a {@code tools/call} span. */
    static void mcp(Span s, ProxyCall call, McpRequest request) {
        if (!s.isRecording()) {
            return;
        }
        s.setAttribute(MCP_METHOD_NAME, TOOLS_CALL).setAttribute(GEN_AI_TOOL_NAME, call.label())
                .setAttribute(GEN_AI_OPERATION_NAME, EXECUTE_TOOL);
        if (request.requestId() != null) {
            s.setAttribute(JSONRPC_REQUEST_ID, request.requestId());
        }
        String session = call.request().headers().get("Mcp-Session-Id");
        if (session != null) {
            s.setAttribute(MCP_SESSION_ID, session);
        }
    }

    /**
     * Where a call's key came from ({@code client}, {@code derived}, {@code generated}): its
     * record's stored key says; a call without a record sends the client's key, or one generated.
     */
    static String keySource(ProxyCall call, CallIdentity identity) {
        if (call.plan() instanceof CallPlan.Protect p) {
            try {
                return switch (StoredKey.origin(p.record().key())) {
                    case CLIENT -> "client";
                    case DERIVED -> "derived";
                    case GENERATED -> "generated";
                };
            } catch (IllegalArgumentException unprefixed) {
                // a key stored without its origin (a dead letter of a call that had no record): read as below
            }
        }
        String sent = call.request().headers().get(identity.keyHeader());
        return sent != null && !sent.isBlank() ? "client" : "generated";
    }
}
