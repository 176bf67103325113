package dev.idemproxy.app.admin;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.netty4.NettyAllocatorMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Creates the process's one {@link PrometheusMeterRegistry} and binds the JVM, system and Netty
 * allocator meters to it, plus the meters the app itself owns
 * ({@code idemproxy_config_reload_failures_total}). The engine's meters are registered by the
 * engine on the registry it is given.
 *
 * <p>This is the only class that creates a {@code PrometheusMeterRegistry}. {@link #close()} closes
 * the binders that hold resources (the GC notification listener) and then the registry.
 *
 * <p>Thread-safe: the registry and counter are thread-safe; {@code close} is idempotent.
 */
public final class MetricsSetup implements AutoCloseable {
    /** Micrometer name of the reload-failure counter; renders as {@code idemproxy_config_reload_failures_total}. */
    static final String CONFIG_RELOAD_FAILURES = "idemproxy.config.reload.failures";

    private final PrometheusMeterRegistry registry;
    private final Counter configReloadFailures;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private boolean closed;

    /** Creates the registry and binds every meter family; see {@code docs/metrics.md}. */
    public MetricsSetup() {
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        bind(new JvmMemoryMetrics());
        bind(new JvmGcMetrics());
        bind(new JvmThreadMetrics());
        bind(new ClassLoaderMetrics());
        bind(new ProcessorMetrics());
        bind(new UptimeMetrics());
        bind(new FileDescriptorMetrics());
        for (ByteBufAllocatorMetricProvider allocator : nettyAllocators()) {
            bind(new NettyAllocatorMetrics(allocator));
        }
        configReloadFailures = Counter.builder(CONFIG_RELOAD_FAILURES)
                .description("Config reloads rejected because the new file was invalid; the old config stays")
                .register(registry);
    }

    /** The registry to hand to the engine and to the admin listener's {@code /metrics}. */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Incremented by the reload code each time a new config file is rejected. */
    public Counter configReloadFailures() {
        return configReloadFailures;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (int i = closeables.size() - 1; i >= 0; i--) {
            try {
                closeables.get(i).close();
            } catch (Exception ignored) {
                // A binder that fails to unregister must not stop the others from closing.
            }
        }
        registry.close();
    }

    private void bind(MeterBinder binder) {
        binder.bindTo(registry);
        if (binder instanceof AutoCloseable c) {
            closeables.add(c);
        }
    }

    /** The allocators the process uses (Netty 4.2's default is adaptive), each once. */
    private static List<ByteBufAllocatorMetricProvider> nettyAllocators() {
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<ByteBufAllocatorMetricProvider> result = new ArrayList<>();
        for (ByteBufAllocator a : List.of(ByteBufAllocator.DEFAULT, PooledByteBufAllocator.DEFAULT,
                UnpooledByteBufAllocator.DEFAULT)) {
            if (a instanceof ByteBufAllocatorMetricProvider p && seen.add(a)) {
                result.add(p);
            }
        }
        return result;
    }
}
