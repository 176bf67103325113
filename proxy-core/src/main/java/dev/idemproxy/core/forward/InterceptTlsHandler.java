package dev.idemproxy.core.forward;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AsyncMapping;
import io.netty.util.ReferenceCountUtil;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The TLS end of an intercepted CONNECT: reads the client's hello, presents a certificate for the
 * name it asks for (its SNI; the CONNECT's host when it sends none, as clients connecting to an
 * IP address do), minted off the event loop, and then replaces itself, under its own name, with
 * the {@link SslHandler} that decrypts the requests for the HTTP handlers behind it. Logs the
 * CONNECT's line once the handshake has ended either way. Not thread-safe: one per channel, used
 * on its event loop.
 */
final class InterceptTlsHandler extends SniHandler {
    /** How long a client may take, from the 200, to complete its TLS handshake. */
    static final long HANDSHAKE_TIMEOUT_MILLIS = 10_000;
    private static final Pattern DNS_NAME = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");

    private final ConnectTarget target;
    private final ConnectLog log;
    private final long startNanos;
    private boolean logged;

    InterceptTlsHandler(ConnectTarget target, LeafContexts leaves, ConnectLog log, long startNanos) {
        super(mapping(target, leaves), HANDSHAKE_TIMEOUT_MILLIS);
        this.target = target;
        this.log = log;
        this.startNanos = startNanos;
    }

    private static AsyncMapping<String, SslContext> mapping(ConnectTarget target, LeafContexts leaves) {
        return (sni, promise) -> {
            leaves.get(leafName(sni, target)).whenComplete((ctx, error) -> {
                if (error != null) {
                    promise.tryFailure(error);
                } else {
                    promise.trySuccess(ctx);
                }
            });
            return promise;
        };
    }

    /** The name the leaf is for: the client's SNI when it is a DNS name, else the CONNECT's host. */
    static String leafName(String sni, ConnectTarget target) {
        if (sni != null) {
            String name = sni.toLowerCase(Locale.ROOT);
            if (name.endsWith(".")) {
                name = name.substring(0, name.length() - 1);
            }
            if (name.length() <= 253 && DNS_NAME.matcher(name).matches()) {
                return name;
            }
        }
        return target.host();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        super.handlerAdded(ctx);
        ctx.channel().closeFuture().addListener(f -> logOnce("closed before the TLS handshake ended"));
    }

    @Override
    protected void replaceHandler(ChannelHandlerContext ctx, String hostname, SslContext sslContext) {
        SslHandler ssl = newSslHandler(sslContext, ctx.alloc());
        try {
            ssl.handshakeFuture().addListener(f -> logOnce(f.isSuccess() ? "ok" : ConnectHandler.describe(f.cause())));
            ctx.pipeline().replace(this, ctx.name(), ssl);
            ssl = null;
        } finally {
            if (ssl != null) {
                ReferenceCountUtil.safeRelease(ssl.engine());
            }
        }
    }

    private void logOnce(String tls) {
        if (!logged) {
            logged = true;
            log.intercepted(target, startNanos, tls);
        }
    }
}
