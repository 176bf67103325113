package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers each aggregated admin request: 400 for a malformed one (then closes), 401 without the
 * token, 404/405 when the route table has no handler, else whatever the route's
 * {@link AdminHandlerFn} completes with (500 if it fails).
 *
 * <p>The request is copied into an {@link AdminRequest} and released here (by
 * {@link SimpleChannelInboundHandler}). Handlers may finish out of order; responses still leave in
 * request order, as HTTP/1.1 pipelining requires. One instance per channel; its state is touched
 * only on the channel's event loop.
 */
final class AdminRequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger log = LoggerFactory.getLogger(AdminRequestHandler.class);

    private final AdminRoutes routes;
    private final BearerAuth auth;
    /** Completes once the previous request's response has been written. */
    private CompletableFuture<Void> previous = CompletableFuture.completedFuture(null);

    AdminRequestHandler(AdminRoutes routes, BearerAuth auth) {
        this.routes = requireNonNull(routes, "routes");
        this.auth = requireNonNull(auth, "auth");
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
        boolean malformed = req.decoderResult().isFailure();
        CompletableFuture<AdminResponse> response = malformed
                ? CompletableFuture.completedFuture(malformed(req.decoderResult().cause()))
                : dispatch(req);
        previous = previous.thenCombine(response, (ignored, r) -> r)
                .thenAcceptAsync(r -> NettyResponses.write(ctx, r, malformed), ctx.executor())
                .exceptionally(t -> {
                    log.debug("admin response not written", t);
                    return null;
                });
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("admin connection {} failed; closing it", ctx.channel().remoteAddress(), cause);
        ctx.close();
    }

    private CompletableFuture<AdminResponse> dispatch(FullHttpRequest req) {
        QueryStringDecoder uri;
        List<String> segments;
        Map<String, List<String>> query;
        try {
            uri = req.uri().startsWith("/") ? new QueryStringDecoder(req.uri()) : new QueryStringDecoder(new URI(req.uri()));
            segments = decodeSegments(uri.rawPath());
            query = uri.parameters();
        } catch (IllegalArgumentException | URISyntaxException e) {
            return done(AdminResponse.problem(400, "bad-request", "Bad request", "malformed request target"));
        }
        String path = "/" + String.join("/", segments);
        if (!auth.permits(path, req.headers().get(HttpHeaderNames.AUTHORIZATION))) {
            return done(AdminResponse.problem(401, "unauthorized", "Unauthorized",
                    "this endpoint needs Authorization: Bearer <admin.token>")
                    .withHeader("WWW-Authenticate", "Bearer realm=\"idemproxy-admin\""));
        }
        String method = req.method().name();
        AdminRoutes.Resolution r = routes.resolve(method, segments);
        if (r.handler() == null && r.allowed().isEmpty()) {
            return done(AdminResponse.problem(404, "not-found", "Not found", "no admin endpoint " + path));
        }
        if (r.handler() == null) {
            return done(AdminResponse.problem(405, "method-not-allowed", "Method not allowed",
                    method + " is not allowed on " + path + " (expected: " + String.join(", ", r.allowed()) + ")")
                    .withHeader("Allow", String.join(", ", r.allowed())));
        }
        AdminRequest request = new AdminRequest(method, path, r.pathParams(), query, headers(req),
                ByteBufUtil.getBytes(req.content()));
        return invoke(r.handler(), request);
    }

    /** Runs the route's handler; whatever it throws or fails with becomes a 500 problem. */
    private static CompletableFuture<AdminResponse> invoke(AdminHandlerFn handler, AdminRequest request) {
        CompletableFuture<AdminResponse> result = new CompletableFuture<>();
        CompletionStage<AdminResponse> stage;
        try {
            stage = requireNonNull(handler.handle(request), "handler returned null");
        } catch (RuntimeException e) {
            return done(internalError(request, e));
        }
        stage.whenComplete((r, e) -> result.complete(e == null && r != null ? r : internalError(request, e)));
        return result;
    }

    private static AdminResponse internalError(AdminRequest request, Throwable cause) {
        log.warn("admin handler for {} failed", request, cause);
        return AdminResponse.problem(500, "internal-error", "Internal error",
                "the admin handler for " + request.path() + " failed; see the proxy log");
    }

    private static AdminResponse malformed(Throwable cause) {
        if (cause instanceof TooLongHttpHeaderException) {
            return AdminResponse.problem(431, "header-too-large", "Request header fields too large", cause.getMessage());
        }
        if (cause instanceof TooLongHttpLineException) {
            return AdminResponse.problem(414, "uri-too-long", "URI too long", cause.getMessage());
        }
        return AdminResponse.problem(400, "bad-request", "Bad request", "malformed HTTP request");
    }

    /** {@code /a%20b/c} → {@code [a b, c]}; a {@code +} stays a plus in a path. */
    private static List<String> decodeSegments(String rawPath) {
        String p = rawPath.isEmpty() ? "/" : rawPath;
        if (!p.startsWith("/")) {
            throw new IllegalArgumentException("path does not start with /");
        }
        List<String> out = new ArrayList<>();
        for (String s : PathPattern.split(p)) {
            out.add(QueryStringDecoder.decodeComponent(s.replace("+", "%2B")));
        }
        return out;
    }

    private static Map<String, List<String>> headers(FullHttpRequest req) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String name : req.headers().names()) {
            out.put(name.toLowerCase(Locale.ROOT), req.headers().getAll(name));
        }
        return out;
    }

    private static CompletableFuture<AdminResponse> done(AdminResponse r) {
        return CompletableFuture.completedFuture(r);
    }
}
