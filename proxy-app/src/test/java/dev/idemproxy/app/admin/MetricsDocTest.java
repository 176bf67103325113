package dev.idemproxy.app.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.mcp.McpDialect;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.metrics.ProxyMetrics;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** docs/metrics.md names every idemproxy and Netty family the process exposes, with its HELP text and buckets as the code has them. */
class MetricsDocTest {
    private static final Path DOC = Path.of("../docs/metrics.md");

    @Test
    void everyFamilyIsDocumentedWithItsHelpText() throws IOException {
        String doc = Files.readString(DOC);
        try (MetricsSetup setup = new MetricsSetup("1.0.0")) {
            ProxyMetrics metrics = new ProxyMetrics(setup.registry());
            metrics.registerRoute("r", List.of("503", "retry_after"));
            metrics.registerStoreOps(List.of("claim"));
            metrics.request("r", CallOutcome.REPLAYED);
            metrics.upstreamAttempt("r", "2xx", Duration.ofMillis(3));
            metrics.storeOp("claim", 200_000, true);
            metrics.storePassthrough("r");
            metrics.registerMcpRoute("r", McpDialect.OUTCOMES);
            String text = setup.registry().scrape();

            List<String> helps = text.lines().filter(l -> l.startsWith("# HELP idemproxy_") || l.startsWith("# HELP netty_"))
                    .collect(Collectors.toList());
            assertThat(helps).hasSizeGreaterThan(15);
            for (String help : helps) {
                String[] parts = help.split(" ", 4);
                assertThat(doc).as("docs/metrics.md names %s", parts[2]).contains("`" + parts[2] + "`");
                assertThat(doc).as("docs/metrics.md gives the HELP of %s", parts[2]).contains(parts[3]);
            }
        }
        assertThat(doc).contains(ProxyMetrics.help(ProxyMetrics.STORE_NEAR_CACHE));
    }

    @Test
    void theBucketListsAreTheCodes() throws IOException {
        String doc = Files.readString(DOC);
        assertThat(doc).contains("buckets (s): " + seconds(ProxyMetrics.UPSTREAM_BUCKETS))
                .contains("buckets (s): " + seconds(ProxyMetrics.STORE_BUCKETS));
    }

    private static String seconds(List<Duration> bounds) {
        return bounds.stream().map(d -> BigDecimal.valueOf(d.toNanos(), 9).stripTrailingZeros().toPlainString())
                .collect(Collectors.joining(", "));
    }
}
