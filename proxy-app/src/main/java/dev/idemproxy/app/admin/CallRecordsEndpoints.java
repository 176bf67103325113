package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.store.IdempotencyStore;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The admin routes over a call's records (CONTRACT §7): receipts and the dead-letter queue,
 * built from the store, for {@link AdminServer}'s {@code extraRoutes}. Stateless.
 */
public final class CallRecordsEndpoints {
    /** How long {@code POST /dlq/{id}/replay} waits for the proxy's answer, its retries included. */
    public static final Duration DEFAULT_REPLAY_TIMEOUT = Duration.ofMinutes(2);

    private CallRecordsEndpoints() {
    }

    /**
     * {@code GET /receipts/{callId}}, {@code GET /receipts?bizId=}, {@code GET /dlq},
     * {@code GET /dlq/{id}}, {@code DELETE /dlq/{id}} and {@code POST /dlq/{id}/replay}.
     *
     * @param store         where receipts, dead letters and idempotency records live
     * @param proxyAddress  the proxy listener's bound address, where replays are sent; read per replay
     * @param replayTimeout how long a replay may take
     */
    public static AdminRoutes routes(IdempotencyStore store, Supplier<InetSocketAddress> proxyAddress,
            Duration replayTimeout) {
        return routes(store, proxyAddress, replayTimeout, null);
    }

    /** @param replayToken the proxy's replay token, so a DLQ replay keeps its call id (may be null) */
    public static AdminRoutes routes(IdempotencyStore store, Supplier<InetSocketAddress> proxyAddress,
            Duration replayTimeout, String replayToken) {
        return routes(store, proxyAddress, replayTimeout, replayToken, route -> true);
    }

    /**
     * @param routeNamesHost whether the live route of a name has a {@code match.host}: a DLQ replay
     *                       of its calls goes absolute-form, which only such routes match
     */
    public static AdminRoutes routes(IdempotencyStore store, Supplier<InetSocketAddress> proxyAddress,
            Duration replayTimeout, String replayToken, java.util.function.Predicate<String> routeNamesHost) {
        requireNonNull(store, "store");
        AdminRoutes.Builder b = AdminRoutes.builder();
        new ReceiptsEndpoints(store).addTo(b);
        new DlqEndpoints(store, new DlqReplayer(proxyAddress, replayTimeout, replayToken, routeNamesHost)).addTo(b);
        return b.build();
    }
}
