package dev.idemproxy.app.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.AdminPolicy;
import dev.idemproxy.core.HostPort;
import dev.idemproxy.core.ProxyConfig;
import dev.idemproxy.core.TelemetryPolicy;
import dev.idemproxy.core.pipeline.ServerPolicy;
import dev.idemproxy.core.pipeline.ServerPolicy;
import dev.idemproxy.core.forward.ForwardProxyPolicy;
import dev.idemproxy.core.retry.RetryBudgetPolicy;
import dev.idemproxy.core.retry.TaskPolicy;
import dev.idemproxy.core.store.StorePolicy;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** What a reload leaves for a restart: every top-level setting but the routes. */
class AssemblyTest {
    /** Every value a distinct object, so that each can be told from the others by identity. */
    private static final ProxyConfig SAMPLE = new ProxyConfig(ProxyConfig.DEFAULT_LISTEN, ProxyConfig.DEFAULT_GRACE,
            AdminPolicy.DEFAULT, ServerPolicy.DEFAULT, StorePolicy.DEFAULT, TaskPolicy.DEFAULT, RetryBudgetPolicy.DEFAULT,
            List.of("X-Secret"), List.of("sig"), List.of(), ForwardProxyPolicy.defaults(java.nio.file.Path.of("data")),
            new TelemetryPolicy(new TelemetryPolicy.Traces(java.net.URI.create("http://127.0.0.1:4318/v1/traces"), 1.0, Map.of(),
                    false)));

    @Test
    void everySettingButTheRoutesIsRestartOnlyInTheRecordsOrder() throws Exception {
        List<Object> components = new ArrayList<>();
        for (RecordComponent c : ProxyConfig.class.getRecordComponents()) {
            if (!c.getName().equals("routes")) {
                components.add(c.getAccessor().invoke(SAMPLE));
            }
        }
        List<Object> table = new ArrayList<>();
        for (Map.Entry<String, Function<ProxyConfig, Object>> setting : Assembly.RESTART_ONLY) {
            table.add(setting.getValue().apply(SAMPLE));
        }
        assertThat(table).as("one line per component of ProxyConfig but routes, in its order")
                .hasSameSizeAs(components);
        for (int i = 0; i < components.size(); i++) {
            assertThat(table.get(i)).as(Assembly.RESTART_ONLY.get(i).getKey()).isSameAs(components.get(i));
        }
    }

    @Test
    void namesTheChangedSettingsAndNeverTheRoutes() {
        ProxyConfig moved = SAMPLE.withListen(new HostPort("127.0.0.1", 9999), SAMPLE.admin());
        assertThat(Assembly.restartOnlyChanges(SAMPLE, moved)).containsExactly("listen");
        assertThat(Assembly.restartOnlyChanges(SAMPLE, SAMPLE.withRoutes(List.of()))).isEmpty();
    }

    @Test
    void theServerAndLimitsSectionsAreNamedApartThoughOneRecordHoldsBoth() {
        ServerPolicy s = SAMPLE.server();
        ProxyConfig slower = withServer(s.withLimits(s.limits().withIdleTimeout(Duration.ofSeconds(5))));
        ProxyConfig threads = withServer(new ServerPolicy(3, s.maxHeaderSize(), s.maxInitialLine(), s.transport(), s.limits()));
        ProxyConfig both = withServer(new ServerPolicy(3, s.maxHeaderSize(), s.maxInitialLine(), s.transport(),
                s.limits().withIdleTimeout(Duration.ofSeconds(5))));

        assertThat(Assembly.restartOnlyChanges(SAMPLE, slower)).containsExactly("limits");
        assertThat(Assembly.restartOnlyChanges(SAMPLE, threads)).containsExactly("server");
        assertThat(Assembly.restartOnlyChanges(SAMPLE, both)).containsExactly("server", "limits");
    }

    private static ProxyConfig withServer(ServerPolicy server) {
        return new ProxyConfig(SAMPLE.listen(), SAMPLE.shutdownGrace(), SAMPLE.admin(), server, SAMPLE.store(), SAMPLE.tasks(),
                SAMPLE.retryBudget(), SAMPLE.secretHeaders(), SAMPLE.secretQueryParams(), SAMPLE.routes(), SAMPLE.forwardProxy(),
                SAMPLE.telemetry());
    }

    @Test
    void addingOrRemovingForwardProxyWaitsForARestart() {
        ProxyConfig without = new ProxyConfig(SAMPLE.listen(), SAMPLE.shutdownGrace(), SAMPLE.admin(), SAMPLE.server(),
                SAMPLE.store(), SAMPLE.tasks(), SAMPLE.retryBudget(), SAMPLE.secretHeaders(), SAMPLE.secretQueryParams(),
                List.of(), null, SAMPLE.telemetry());
        assertThat(Assembly.restartOnlyChanges(SAMPLE, without)).containsExactly("forwardProxy");
        assertThat(Assembly.restartOnlyChanges(without, SAMPLE)).containsExactly("forwardProxy");
        assertThat(Assembly.restartOnlyChanges(without, without)).isEmpty();
    }

    @Test
    void addingRemovingOrChangingTelemetryWaitsForARestart() {
        ProxyConfig without = new ProxyConfig(SAMPLE.listen(), SAMPLE.shutdownGrace(), SAMPLE.admin(), SAMPLE.server(),
                SAMPLE.store(), SAMPLE.tasks(), SAMPLE.retryBudget(), SAMPLE.secretHeaders(), SAMPLE.secretQueryParams(),
                List.of(), SAMPLE.forwardProxy());
        TelemetryPolicy.Traces t = SAMPLE.telemetry().traces();
        ProxyConfig sampledLess = new ProxyConfig(SAMPLE.listen(), SAMPLE.shutdownGrace(), SAMPLE.admin(), SAMPLE.server(),
                SAMPLE.store(), SAMPLE.tasks(), SAMPLE.retryBudget(), SAMPLE.secretHeaders(), SAMPLE.secretQueryParams(),
                List.of(), SAMPLE.forwardProxy(), new TelemetryPolicy(new TelemetryPolicy.Traces(t.endpoint(), 0.5, t.headers(),
                        t.passThrough())));
        assertThat(Assembly.restartOnlyChanges(SAMPLE, without)).containsExactly("telemetry");
        assertThat(Assembly.restartOnlyChanges(without, SAMPLE)).containsExactly("telemetry");
        assertThat(Assembly.restartOnlyChanges(SAMPLE, sampledLess)).containsExactly("telemetry");
    }
}
