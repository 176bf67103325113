package dev.idemproxy.app.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class MetricsSetupTest {
    @Test
    void reloadFailureCounterStartsAtZeroAndCounts() {
        try (MetricsSetup metrics = new MetricsSetup()) {
            assertThat(metrics.registry().scrape()).contains("idemproxy_config_reload_failures_total 0.0");

            metrics.configReloadFailures().increment();

            assertThat(metrics.registry().scrape()).contains("idemproxy_config_reload_failures_total 1.0");
        }
    }

    @Test
    void bindsJvmSystemAndNettyAllocatorFamilies() {
        try (MetricsSetup metrics = new MetricsSetup()) {
            assertThat(metrics.registry().scrape()).contains(
                    "jvm_memory_used_bytes", "jvm_gc_", "jvm_threads_live_threads", "jvm_classes_loaded_classes",
                    "system_cpu_count", "process_uptime_seconds", "netty_allocator_memory_used");
        }
    }

    @Test
    void everyFamilyOfTheProcessHasHelpText() {
        try (MetricsSetup metrics = new MetricsSetup("1.2.3")) {
            String text = metrics.registry().scrape();
            List<String> families = text.lines().filter(l -> l.startsWith("# TYPE ")).map(l -> l.split(" ")[2]).toList();
            assertThat(families).hasSizeGreaterThan(30).contains("netty_allocator_memory_used", "jvm_memory_used_bytes");
            for (String family : families) {
                assertThat(text.lines().filter(l -> l.startsWith("# HELP " + family + " ")).findFirst())
                        .as("HELP of %s", family).hasValueSatisfying(help ->
                                assertThat(help.substring(("# HELP " + family + " ").length())).isNotBlank());
            }
        }
    }

    @Test
    void buildInfoIsOneWithTheVersion() {
        try (MetricsSetup metrics = new MetricsSetup("1.2.3")) {
            assertThat(metrics.registry().scrape()).contains("idemproxy_build_info{version=\"1.2.3\"} 1");
        }
    }

    @Test
    void closeClosesTheRegistryAndIsIdempotent() {
        MetricsSetup metrics = new MetricsSetup();

        metrics.close();
        metrics.close();

        assertThat(metrics.registry().isClosed()).isTrue();
    }
}
