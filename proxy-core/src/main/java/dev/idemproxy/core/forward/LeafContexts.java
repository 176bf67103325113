package dev.idemproxy.core.forward;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.AsyncLoadingCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.idemproxy.core.util.Ticker;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLException;

/**
 * The TLS server contexts the proxy presents to intercepted clients, one per host name, each with
 * a leaf certificate {@linkplain LeafMinter minted} on first use and the CA behind it. ALPN offers
 * {@code http/1.1} only: an HTTP/2-capable client falls back. Contexts are cached (at most
 * {@link #MAX_HOSTS}) for half a leaf's validity, then minted afresh. Minting runs on
 * {@code executor}, never on the event loop that asks: {@link #get} answers a cached host at once
 * and a new one when its mint is done. Thread-safe.
 */
final class LeafContexts {
    static final int MAX_HOSTS = 1000;
    static final Duration REFRESH = LeafMinter.VALIDITY.dividedBy(2);

    private static final ApplicationProtocolConfig HTTP_1_1_ONLY = new ApplicationProtocolConfig(
            ApplicationProtocolConfig.Protocol.ALPN,
            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
            ApplicationProtocolNames.HTTP_1_1);

    private final LeafMinter minter;
    private final AsyncLoadingCache<String, SslContext> contexts;

    LeafContexts(LeafMinter minter, Executor executor, Ticker ticker) {
        this.minter = requireNonNull(minter, "minter");
        this.contexts = Caffeine.newBuilder()
                .maximumSize(MAX_HOSTS)
                .expireAfterWrite(REFRESH)
                .ticker(ticker::nanos)
                .executor(requireNonNull(executor, "executor"))
                .buildAsync(this::newContext);
    }

    /** The context for {@code host} (lower-case name or IP literal); completes on the mint executor when new. */
    CompletableFuture<SslContext> get(String host) {
        return contexts.get(host);
    }

    /** Mints a leaf for {@code host} and builds its server context; the mint executor runs this. */
    SslContext newContext(String host) throws SSLException {
        X509Certificate leaf = minter.mint(host);
        return SslContextBuilder.forServer(minter.leafKey(), leaf, minter.ca().certificate())
                .applicationProtocolConfig(HTTP_1_1_ONLY)
                .build();
    }
}
