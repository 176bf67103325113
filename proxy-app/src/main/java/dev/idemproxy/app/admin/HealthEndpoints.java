package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;

/**
 * {@code GET /healthz} (the process is up) and {@code GET /readyz} (it can serve: the store is
 * reachable). Neither needs the admin token. Thread-safe if the readiness supplier is.
 */
final class HealthEndpoints {
    // Written out as AdminResponse.json would (Jackson, indented), so the probes of a start load
    // no Jackson class (about 470); HealthEndpointsTest holds them to Jackson's bytes.
    private static final AdminResponse UP = status(200, "UP");
    private static final AdminResponse READY = status(200, "READY");
    private static final AdminResponse NOT_READY = status(503, "NOT_READY");

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

    private static AdminResponse status(int status, String value) {
        return AdminResponse.of(status, AdminResponse.JSON,
                ("{\n  \"status\" : \"" + value + "\"\n}").getBytes(StandardCharsets.UTF_8));
    }
}
