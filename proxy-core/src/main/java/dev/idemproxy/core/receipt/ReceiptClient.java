package dev.idemproxy.core.receipt;

import dev.idemproxy.core.route.ReceiptPolicy;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.upstream.UpstreamConnection;
import dev.idemproxy.core.upstream.UpstreamListener;
import dev.idemproxy.core.upstream.UpstreamConnector;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.URI;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Asks an upstream's receipt endpoint what became of a call, over the same pooled connections
 * and TLS settings as the route, on the caller's event loop. A query that fails (no connection,
 * timeout, 5xx, unreadable body) is tried twice more before the answer is UNRESOLVED.
 * This class is thread-safe.
 */
public final class ReceiptClient {
    static final int TRIES = 3;
    static final int MAX_BODY = 1024 * 1024;

    private final UpstreamConnector upstreams;

    public ReceiptClient(UpstreamConnector upstreams) {
        this.upstreams = requireNonNull(upstreams, "upstreams");
    }

    /** The routes and, after them, the routes their receipt endpoints are reached through: what the pools prepare. */
    public static java.util.List<Route> withReceiptRoutes(java.util.List<Route> routes) {
        java.util.List<Route> all = new java.util.ArrayList<>(routes);
        for (Route r : routes) {
            if (r.receipt() != null) {
                all.add(receiptRoute(r, ReceiptUrls.expand(r.receipt().url(), "x", "x", "x")));
            }
        }
        return all;
    }

    /** The route through which {@code url} is reached: its origin, with the owning route's TLS and timeouts. */
    public static Route receiptRoute(Route owner, URI url) {
        URI origin = URI.create(url.getScheme() + "://" + url.getRawAuthority());
        return new Route("receipt", RouteMatch.ANY, origin, Set.of(), owner.timeouts(), owner.idempotency(),
                dev.idemproxy.core.retry.RetryPolicy.DEFAULT, owner.ids(), null, owner.deadLetter(), owner.tls(), owner.pool());
    }

    /** @param timeout for each try, to the end of the receipt response */
    public Future<ReceiptAnswer> query(Route owner, URI url, EventLoop loop, Duration timeout) {
        Promise<ReceiptAnswer> result = loop.newPromise();
        attempt(owner, url, loop, timeout, 1, result);
        return result;
    }

    private void attempt(Route owner, URI url, EventLoop loop, Duration timeout, int n, Promise<ReceiptAnswer> result) {
        Exchange ex = new Exchange(owner.receipt(), loop, timeout);
        ex.run(receiptRoute(owner, url), url).addListener(f -> {
            ReceiptAnswer a = (ReceiptAnswer) f.getNow();
            if (a.status() == ReceiptAnswer.Status.UNRESOLVED && n < TRIES) {
                loop.schedule(() -> attempt(owner, url, loop, timeout, n + 1, result), 50L * n, TimeUnit.MILLISECONDS);
            } else {
                result.trySuccess(a.status() == ReceiptAnswer.Status.UNRESOLVED
                        ? ReceiptAnswer.unresolved(a.detail() + " (after " + n + " tries)") : a);
            }
        });
    }

    /** One GET of the receipt URL. Used on one event loop. */
    private final class Exchange implements UpstreamListener {
        private final ReceiptPolicy policy;
        private final EventLoop loop;
        private final Duration timeout;
        private final Promise<ReceiptAnswer> done;
        private UpstreamConnection conn;
        private int status;
        private CompositeByteBuf body;
        private ScheduledFuture<?> timer;

        Exchange(ReceiptPolicy policy, EventLoop loop, Duration timeout) {
            this.policy = policy;
            this.loop = loop;
            this.timeout = timeout;
            this.done = loop.newPromise();
        }

        Future<ReceiptAnswer> run(Route route, URI url) {
            timer = loop.schedule(() -> finish(ReceiptAnswer.unresolved("receipt query timed out after " + timeout)),
                    Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
            upstreams.acquire(route, loop, this).addListener(f -> {
                if (!f.isSuccess()) {
                    finish(ReceiptAnswer.unresolved("receipt endpoint unreachable: " + f.cause()));
                    return;
                }
                conn = (UpstreamConnection) f.getNow();
                if (done.isDone()) {
                    release(false);
                    return;
                }
                String target = (url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath())
                        + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());
                FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, target);
                req.headers().set(HttpHeaderNames.HOST, url.getRawAuthority())
                        .set(HttpHeaderNames.ACCEPT, HttpHeaderValues.APPLICATION_JSON)
                        .setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
                conn.channel().writeAndFlush(req);
            });
            return done;
        }

        @Override
        public void onResponseHead(HttpResponse response) {
            status = response.status().code();
            body = conn.channel().alloc().compositeBuffer();
        }

        @Override
        public void onResponseContent(HttpContent content) {
            if (body == null || done.isDone()) {
                content.release();
                return;
            }
            if (body.readableBytes() + content.content().readableBytes() > MAX_BODY) {
                content.release();
                release(false);
                finish(ReceiptAnswer.unresolved("receipt body over " + MAX_BODY + " bytes"));
                return;
            }
            body.addComponent(true, content.content().retain());
            boolean last = content instanceof LastHttpContent;
            content.release();
            if (last) {
                byte[] bytes = ByteBufUtil.getBytes(body);
                release(true);
                finish(ReceiptAnswer.parse(status, bytes, policy));
            }
        }

        @Override
        public void onReadComplete() {
        }

        @Override
        public void onWritabilityChanged(boolean writable) {
        }

        @Override
        public void onUpstreamClosed(Throwable cause) {
            conn = null;
            finish(ReceiptAnswer.unresolved("receipt connection closed" + (cause == null ? "" : ": " + cause)));
        }

        @Override
        public void onUpstreamIdle() {
            release(false);
            finish(ReceiptAnswer.unresolved("receipt endpoint went silent"));
        }

        private void release(boolean reusable) {
            UpstreamConnection c = conn;
            conn = null;
            if (c != null) {
                c.release(reusable);
            }
        }

        private void finish(ReceiptAnswer a) {
            if (timer != null) {
                timer.cancel(false);
            }
            if (body != null) {
                body.release();
                body = null;
            }
            if (done.trySuccess(a)) {
                release(false);
            }
        }
    }
}
