package dev.idemproxy.core.call;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.metrics.InFlightCalls;
import dev.idemproxy.core.route.Route;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;

/**
 * One client request on its way through the pipeline: the head, the route it matched (kept
 * even if the route table is swapped meanwhile) and where it goes upstream. Passed from
 * {@code RouteHandler} to {@code ForwardHandler} in place of the head; the body follows as
 * {@code HttpContent}. While it is served it counts in its route's {@link InFlightCalls}
 * ({@link #countIn}, {@link #end}). Not thread-safe: lives on the client channel's event loop.
 */
public final class ProxyCall {
    private final HttpRequest request;
    private final Route route;
    private final String originalHost;
    private final String pathAndQuery;
    private final long startNanos;
    private final HttpVersion clientVersion;
    private final CallDialect dialect;
    private ByteBuf body;
    private CallPlan plan;
    private InFlightCalls inFlight;
    private boolean ended;
    private boolean outlivesClient;
    /** Whether the client spoke to the proxy over TLS (inside an intercepted CONNECT). */
    private boolean clientTls;
    /** Request body bytes received from the client, response body bytes written to it: for the call's log line. */
    private long bytesIn;
    private long bytesOut;
    private boolean startedInDialect;

    /** A call in the plain HTTP dialect. */
    public ProxyCall(HttpRequest request, Route route, String originalHost, String pathAndQuery, long startNanos) {
        this(request, route, HttpDialect.INSTANCE, originalHost, pathAndQuery, startNanos);
    }

    public ProxyCall(HttpRequest request, Route route, CallDialect dialect, String originalHost, String pathAndQuery,
            long startNanos) {
        this.dialect = requireNonNull(dialect, "dialect");
        this.request = requireNonNull(request, "request");
        this.route = requireNonNull(route, "route");
        this.originalHost = originalHost;
        this.pathAndQuery = requireNonNull(pathAndQuery, "pathAndQuery");
        this.startNanos = startNanos;
        this.clientVersion = request.protocolVersion();
    }

    /**
     * The HTTP version the client spoke, as it sent it: the request itself goes upstream as
     * HTTP/1.1, and a response to an HTTP/1.0 client must not be chunked.
     */
    public HttpVersion clientVersion() {
        return clientVersion;
    }

    public HttpRequest request() {
        return request;
    }

    public Route route() {
        return route;
    }

    /** How this call is understood: its key, outcome classes, replays and errors. */
    public CallDialect dialect() {
        return dialect;
    }

    /** Marks a call that came inside an intercepted CONNECT, over the client's TLS. */
    public void cameOverTls() {
        clientTls = true;
    }

    /** The scheme the client spoke to the proxy: {@code https} inside an interception, else {@code http}. */
    public String clientScheme() {
        return clientTls ? "https" : "http";
    }

    /** The Host the client addressed (header or absolute-form authority); may be null. */
    public String originalHost() {
        return originalHost;
    }

    /**
     * Origin-form path and query for the upstream: the path normalised as routes matched it
     * (dot-segments removed, escapes of unreserved characters decoded), the query as sent.
     */
    public String pathAndQuery() {
        return pathAndQuery;
    }

    public long startNanos() {
        return startNanos;
    }

    /**
     * True when the call needs its request body buffered, as its dialect says: for HTTP, the
     * route protects this method with idempotency, or may retry it; on an MCP route, every POST.
     * Everything else streams.
     */
    public boolean buffersBody() {
        return dialect.buffers(this);
    }

    /** What the gate planned for this call; null when it did not plan it (a streamed call, a retry-only route). */
    public CallPlan plan() {
        return plan;
    }

    public void plan(CallPlan p) {
        this.plan = p;
    }

    /** The call's label for logs and receipts (an MCP tool's name), or null. */
    public String label() {
        return plan == null ? null : plan.label();
    }

    /** True for a buffered call its plan passes through unprotected (an MCP message other than a protected tools/call). */
    public boolean passesThrough() {
        return plan instanceof CallPlan.Pass;
    }

    /** The buffered request body of a protected call (empty buffer when none); null until aggregated. */
    public ByteBuf body() {
        return body;
    }

    /** Takes ownership of {@code aggregated} (and counts it as received); released by {@link #releaseBody()}. */
    public void body(ByteBuf aggregated) {
        this.body = aggregated;
        this.bytesIn += aggregated.readableBytes();
    }

    /** Request body bytes received from the client so far. */
    public long bytesIn() {
        return bytesIn;
    }

    /** Counts {@code n} more request body bytes received (a streamed call's content, as it passes). */
    public void addBytesIn(long n) {
        bytesIn += n;
    }

    /** Response body bytes written to the client so far. */
    public long bytesOut() {
        return bytesOut;
    }

    /** Counts {@code n} more response body bytes written to the client. */
    public void addBytesOut(long n) {
        bytesOut += n;
    }

    /** Counts this call in {@code calls} until {@link #end()}; called once, by whoever routed it. */
    public void countIn(InFlightCalls calls) {
        this.inFlight = calls;
        calls.started();
    }

    /**
     * The call is over: its response's end was written, its client left while nothing ran on
     * its behalf, or (for a call that {@link #outlivesClient()}) it settled. Only the first call
     * uncounts it; any later one does nothing, so each way a call can end may say so.
     */
    public void end() {
        if (!ended) {
            ended = true;
            if (inFlight != null) {
                inFlight.ended();
            }
            if (startedInDialect) {
                startedInDialect = false;
                dialect.settled(this);
            }
        }
    }

    /**
     * Tells the call's dialect that this protected call has begun ({@link CallDialect#started}),
     * as its gate claims it; the dialect hears that it has {@linkplain CallDialect#settled settled}
     * when it {@linkplain #end() ends}, however it ends (answered, replayed, refused, abandoned).
     */
    public void startInDialect() {
        if (!startedInDialect && !ended) {
            startedInDialect = true;
            dialect.started(this);
        }
    }

    public boolean ended() {
        return ended;
    }

    /**
     * Marks a call that runs to its end even when its client leaves (a forwarded protected call):
     * its client's close does not end it; its runner does, when it settles.
     */
    public void runsWithoutClient() {
        this.outlivesClient = true;
    }

    public boolean outlivesClient() {
        return outlivesClient;
    }

    /** Hands the buffered body over (to a pass-through's upstream write); the call no longer holds it. */
    public ByteBuf takeBody() {
        ByteBuf b = body;
        body = null;
        return b;
    }

    public void releaseBody() {
        if (body != null && body.refCnt() > 0) {
            body.release();
        }
        body = null;
    }
}
