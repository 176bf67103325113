package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;

/**
 * {@code GET /healthz} (the process is up) and {@code GET /readyz} (it can serve: the store is
 * reachable). Neither needs the admin token. Thread-safe if the readiness supplier is.
 */
final class HealthEndpoints {
    private static final AdminResponse UP = AdminResponse.json(200, Map.of("status", "UP"));
    private static final AdminResponse READY = AdminResponse.json(200, Map.of("status", "READY"));
    private static final AdminResponse NOT_READY = AdminResponse.json(503, Map.of("status", "NOT_READY"));

    private final BooleanSupplier ready;

    HealthEndpoints(BooleanSupplier ready) {
        this.ready = requireNonNull(ready, "ready");
    }

    CompletionStage<AdminResponse> healthz(AdminRequest request) {
        return UP.completed();
    }

    /** A supplier that throws counts as not ready rather than as a server error. */
    CompletionStage<AdminResponse> readyz(AdminRequest request) {
        boolean ok;
        try {
            ok = ready.getAsBoolean();
        } catch (RuntimeException e) {
            ok = false;
        }
        return (ok ? READY : NOT_READY).completed();
    }
}
