package dev.idemproxy.app.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The probes' bodies, written out by hand, are the bytes Jackson would write for them. */
class HealthEndpointsTest {
    @Test
    void theProbesAnswerWhatJacksonWouldWrite() {
        HealthEndpoints ready = new HealthEndpoints(() -> true);
        HealthEndpoints notReady = new HealthEndpoints(() -> false);
        assertThat(ready.healthz(null).toCompletableFuture().join())
                .isEqualTo(AdminResponse.json(200, Map.of("status", "UP")));
        assertThat(ready.readyz(null).toCompletableFuture().join())
                .isEqualTo(AdminResponse.json(200, Map.of("status", "READY")));
        assertThat(notReady.readyz(null).toCompletableFuture().join())
                .isEqualTo(AdminResponse.json(503, Map.of("status", "NOT_READY")));
    }
}
