package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.netty4.NettyAllocatorMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
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
import java.util.Map;
import java.util.Set;

/**
 * Creates the process's one {@link PrometheusMeterRegistry} and binds the JVM, system and Netty
 * allocator meters to it, plus the meters the app itself owns
 * ({@code idemproxy_config_reload_failures_total}, {@code idemproxy_build_info}). The engine's
 * meters are registered by the engine on the registry it is given.
 *
 * <p>Every family has HELP text: Netty's allocator binder registers its gauges without one, so a
 * filter gives them theirs ({@link #NETTY_HELP}); the JVM and system binders carry their own.
 *
 * <p>This is the only class that creates a {@code PrometheusMeterRegistry}. {@link #close()} closes
 * the binders that hold resources (the GC notification listener) and then the registry.
 *
 * <p>Thread-safe: the registry and counter are thread-safe; {@code close} is idempotent.
 */
public final class MetricsSetup implements AutoCloseable {
    /** Micrometer name of the reload-failure counter; renders as {@code idemproxy_config_reload_failures_total}. */
    static final String CONFIG_RELOAD_FAILURES = "idemproxy.config.reload.failures";
    /** Micrometer name of the build gauge; renders as {@code idemproxy_build_info{version}} with value 1. */
    static final String BUILD_INFO = "idemproxy.build.info";

    /** HELP text of the Netty allocator families, which the binder registers without any. */
    static final Map<String, String> NETTY_HELP = Map.of(
            "netty.allocator.memory.used", "Bytes the Netty buffer allocator holds, by allocator and memory_type",
            "netty.allocator.memory.pinned", "Bytes in Netty buffers in use (pooled allocators), by allocator and memory_type",
            "netty.allocator.pooled.arenas", "Arenas of a pooled Netty allocator, by memory_type",
            "netty.allocator.pooled.cache.size", "Thread-local cache sizes of a pooled Netty allocator, by cache_type",
            "netty.allocator.pooled.chunk.size", "Chunk size in bytes of a pooled Netty allocator",
            "netty.allocator.pooled.threadlocal.caches", "Thread-local caches of a pooled Netty allocator");

    private final PrometheusMeterRegistry registry;
    private final Counter configReloadFailures;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private boolean closed;

    /** As {@link #MetricsSetup(String)} with the version of the jar's manifest ({@code dev} when run from classes). */
    public MetricsSetup() {
        this(BuildVersion.get());
    }

    /**
     * Creates the registry and binds every meter family; see {@code docs/metrics.md}.
     *
     * @param version the build's version, the {@code version} label of {@code idemproxy_build_info}
     */
    public MetricsSetup(String version) {
        requireNonNull(version, "version");
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().meterFilter(nettyHelp());
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
        Gauge.builder(BUILD_INFO, () -> 1).description("The running build: its version, always 1")
                .tag("version", version).register(registry);
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

    /** Gives the Netty allocator gauges their HELP text; every other meter passes unchanged. */
    private static MeterFilter nettyHelp() {
        return new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                String help = id.getDescription() == null ? NETTY_HELP.get(id.getName()) : null;
                return help == null ? id : new Meter.Id(id.getName(), Tags.of(id.getTags()), id.getBaseUnit(), help, id.getType());
            }
        };
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
