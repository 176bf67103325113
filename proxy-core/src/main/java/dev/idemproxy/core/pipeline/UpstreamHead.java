package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.call.ReplayAuthority;
import dev.idemproxy.core.route.Route;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;

/**
 * The request head a pass-through call sends upstream: the client's, rewritten for the route's
 * upstream ({@link HeaderRewrite}), or a new one framing a buffered body. Keeps what the rewrite
 * derives from the route of the connection's last call. One per client channel; not thread-safe.
 */
final class UpstreamHead {
    private Route derivedFor;
    private String basePath;
    private String authority;

    /**
     * The head of a request whose body was buffered: the client's method, target and headers
     * (which the rewrite changes in place), framed by the body's length.
     */
    static HttpRequest buffered(ProxyCall c) {
        HttpRequest r = new DefaultHttpRequest(HttpVersion.HTTP_1_1, c.request().method(), c.request().uri(), c.request().headers());
        if (c.body().isReadable() || r.headers().contains(HttpHeaderNames.TRANSFER_ENCODING)) {
            r.headers().remove(HttpHeaderNames.TRANSFER_ENCODING);
            r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, c.body().readableBytes());
        }
        return r;
    }

    /** Rewrites {@code head} in place for the call's upstream. */
    void rewrite(HttpRequest head, ProxyCall call, String clientIp) {
        Route route = call.route();
        if (route != derivedFor) {
            derivedFor = route;
            basePath = route.upstreamBasePath();
            authority = route.upstreamAuthority();
        }
        HeaderRewrite.toUpstream(head, basePath, authority, call.pathAndQuery(), call.originalHost(), clientIp,
                call.clientScheme());
        ReplayAuthority.strip(head.headers());  // a DLQ replay's proof is ours, even where it proves nothing
    }
}
