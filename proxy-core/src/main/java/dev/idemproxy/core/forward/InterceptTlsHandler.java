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
 * CONNECT's line once the handshake has ended either way, saying so in plain words when the
 * client refused the proxy's certificate. Not thread-safe: one per channel, used on its event loop.
 */
final class InterceptTlsHandler extends SniHandler {
    /** The {@code tls=} of a client that refused the proxy's certificate: what to do about it. */
    static final String DISTRUST = "client does not trust the proxy's CA (run: idemproxy ca cert --config FILE,"
            + " and make the client trust what it prints: docs/https-proxy.md)";
    /** TLS alerts a client sends when it cannot verify the certificate it was shown (RFC 8446 6.2). */
    private static final Pattern DISTRUST_ALERT = Pattern.compile(
            "Received fatal alert: (bad_certificate|unsupported_certificate|certificate_unknown|unknown_ca)\\b.*");
    /** How long a client may take, from the 200, to complete its TLS handshake. */
    static final long HANDSHAKE_TIMEOUT_MILLIS = 10_000;
    private static final Pattern DNS_NAME = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");

    private final ConnectTarget target;
    private final ConnectLog log;
    private final long startNanos;
    private boolean logged;
    /** The client's hello was read and the {@link SslHandler} that answers it is in place. */
    private boolean handshaking;

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
        ctx.channel().closeFuture().addListener(f -> {
            if (!handshaking) {
                logOnce("closed before the TLS handshake ended");
            }
        });
    }

    @Override
    protected void replaceHandler(ChannelHandlerContext ctx, String hostname, SslContext sslContext) {
        SslHandler ssl = newSslHandler(sslContext, ctx.alloc());
        try {
            handshaking = true;
            ssl.handshakeFuture().addListener(f -> logOnce(f.isSuccess() ? "ok" : failure(f.cause())));
            ctx.pipeline().replace(this, ctx.name(), ssl);
            ssl = null;
        } finally {
            if (ssl != null) {
                ReferenceCountUtil.safeRelease(ssl.engine());
            }
        }
    }

    /**
     * A failed handshake, as its {@code tls=} value. It failed after the client's hello was read and
     * answered with the proxy's certificate, so a client that then gives up has refused that
     * certificate: with a certificate alert (most TLS 1.2 clients), with a two-byte record the
     * engine cannot decrypt ({@code Insufficient buffer remaining for AEAD cipher fragment (2)}: an
     * alert where TLS 1.3 wants an encrypted record, as curl and Python's ssl, both OpenSSL, send
     * it), or by closing the connection (the JDK's HttpClient). Anything else is told as it is.
     */
    static String failure(Throwable cause) {
        String described = ConnectHandler.describe(cause);
        for (Throwable t = cause; t != null; t = t.getCause()) {
            String m = t.getMessage() == null ? "" : t.getMessage();
            if (DISTRUST_ALERT.matcher(m).matches() || m.startsWith("Insufficient buffer remaining for AEAD cipher fragment (2)")) {
                return DISTRUST;
            }
        }
        if (closedMidHandshake(cause)) {
            return DISTRUST.replace(" (run:", " (it closed the connection on the proxy's certificate; run:");
        }
        return described;
    }

    /** Netty's failure of a handshake whose connection closed: a closed channel, or its suppressed handshake exception. */
    private static boolean closedMidHandshake(Throwable cause) {
        if (cause instanceof java.nio.channels.ClosedChannelException) {
            return true;
        }
        return cause instanceof javax.net.ssl.SSLHandshakeException && cause.getMessage() != null
                && cause.getMessage().startsWith("Connection closed while SSL/TLS handshake was in progress");
    }

    private void logOnce(String tls) {
        if (!logged) {
            logged = true;
            log.intercepted(target, startNanos, tls);
        }
    }
}
