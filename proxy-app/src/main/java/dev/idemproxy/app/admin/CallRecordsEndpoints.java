package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.secret.Redactor;
import dev.idemproxy.core.store.Stores;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The admin routes over a call's records (docs/admin-api.md): receipts and the dead-letter queue,
 * built from the store, for {@link AdminServer}'s {@code extraRoutes}. Stateless.
 */
public final class CallRecordsEndpoints {
    /** How long {@code POST /dlq/{id}/replay} waits for the proxy's answer, its retries included. */
    public static final Duration DEFAULT_REPLAY_TIMEOUT = Duration.ofMinutes(2);

    private CallRecordsEndpoints() {
    }

    /**
     * {@code GET /receipts/{callId}}, {@code GET /receipts?bizId=}, {@code GET /calls}, {@code GET /calls/{callId}}, {@code GET /dlq},
     * {@code GET /dlq/{id}}, {@code DELETE /dlq/{id}} and {@code POST /dlq/{id}/replay}.
     *
     * @param stores        where receipts, dead letters and idempotency records live
     * @param proxyAddress  the proxy listener's bound address, where replays are sent; read per replay
     * @param replayTimeout how long a replay may take
     */
    public static AdminRoutes routes(Stores stores, Supplier<InetSocketAddress> proxyAddress,
            Duration replayTimeout) {
        return routes(stores, proxyAddress, replayTimeout, null, Redactor.BUILT_IN, route -> true);
    }

    /**
     * @param replayToken    the proxy's replay token, so a DLQ replay keeps its call id (may be null)
     * @param redactor       the config's redaction rules, through which stored requests are shown
     * @param routeNamesHost whether the live route of a name has a {@code match.host}: a DLQ replay
     *                       of its calls goes absolute-form, which only such routes match
     */
    public static AdminRoutes routes(Stores stores, Supplier<InetSocketAddress> proxyAddress,
            Duration replayTimeout, String replayToken, Redactor redactor, Predicate<String> routeNamesHost) {
        requireNonNull(stores, "stores");
        AdminRoutes.Builder b = AdminRoutes.builder();
        new ReceiptsEndpoints(stores.receipts()).addTo(b);
        new CallsEndpoints(stores.receipts()).addTo(b);
        new DlqEndpoints(stores.deadLetters(), stores.records(), stores.receipts(),
                new DlqReplayer(proxyAddress, replayTimeout, replayToken, routeNamesHost), Clock.systemUTC(), redactor)
                .addTo(b);
        return b.build();
    }
}
