package dev.idemproxy.core.pipeline;

/**
 * Names of the client-side pipeline handlers, in order. A unit test asserts this order.
 *
 * <pre>
 * client bytes (a connection over limits.maxConnections is closed on accept, before any of this)
 *   → httpCodec     ServerCodec: bytes ↔ HttpObject; limits; CL+TE and conflicting CL rejected;
 *                   tells when a request's first byte arrives
 *   → timeouts      FrontTimeoutHandler: head/body too slow → 408 and close; idle (no request,
 *                   no call in flight) → close
 *   → sequencer     RequestSequencer: one request at a time; pipelined ones wait their turn
 *   → keepAlive     KeepAliveHandler: Connection semantics (304 and HEAD answers keep it open)
 *   → connect       ConnectHandler (forwardProxy only): CONNECT → intercept, tunnel or 403
 *   → guard         RequestGuardHandler: malformed requests → 400/431, other HTTP versions → 505,
 *                   CONNECT without forwardProxy → 405; connection closed; header names with '_'
 *                   dropped (or refused, limits.underscoreHeaders)
 *   → route         RouteHandler: head → Route or 404 no-route; makes the ProxyCall
 *   → body          BodyAggregatorHandler: buffers a protected call's body (413 over maxRequestBody);
 *                   answers Expect: 100-continue once a body is to be read
 *   → idempotency   IdempotencyHandler: key, scope, fingerprint; claim; replay / wait / 409 / 422 / 503
 *   → forward       ForwardHandler: streams the call to the upstream and back
 *   → problems      ProblemHandler: anything uncaught → problem+json, close if unsafe
 *
 * after an intercepted CONNECT (the stack from httpCodec on, built again behind TLS):
 *   tls (SniHandler, then SslHandler: a leaf of the local CA) → httpCodec → timeouts → … → problems
 *   (no connect; the route handler routes by the CONNECT's host)
 * after a tunnelled CONNECT (the stack from httpCodec on removed):
 *   tunnelIdle (IdleStateHandler) → tunnel (bytes to and from the target, untouched)
 *
 * upstream side (per connection, see UpstreamChannelInitializer):
 *   ssl (https) → httpCodec → idle → upstream
 * </pre>
 */
public final class PipelineNames {
    public static final String HTTP_CODEC = "httpCodec";
    public static final String TIMEOUTS = "timeouts";
    public static final String SEQUENCER = "sequencer";
    public static final String KEEP_ALIVE = "keepAlive";
    public static final String CONNECT = "connect";
    public static final String GUARD = "guard";
    public static final String ROUTE = "route";
    public static final String BODY = "body";
    public static final String IDEMPOTENCY = "idempotency";
    public static final String FORWARD = "forward";
    public static final String PROBLEMS = "problems";
    /** First handler of an intercepted CONNECT's pipeline: the client's TLS. */
    public static final String TLS = "tls";

    private PipelineNames() {}
}
