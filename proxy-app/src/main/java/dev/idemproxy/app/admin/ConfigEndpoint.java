package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * {@code GET /config}: the effective config as JSON. The supplier's producer has already redacted
 * secrets (docs/operations.md); this endpoint only serialises what it is given, read afresh on each
 * request so a reload shows at once. Thread-safe if the supplier is.
 */
final class ConfigEndpoint {
    private final Supplier<Object> effectiveConfig;

    ConfigEndpoint(Supplier<Object> effectiveConfig) {
        this.effectiveConfig = requireNonNull(effectiveConfig, "effectiveConfig");
    }

    CompletionStage<AdminResponse> config(AdminRequest request) {
        return AdminResponse.json(200, effectiveConfig.get()).completed();
    }
}
