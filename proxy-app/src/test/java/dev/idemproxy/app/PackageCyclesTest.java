package dev.idemproxy.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.PackageGraph;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The app's packages depend on each other one way only (the engine's are checked in proxy-core). */
class PackageCyclesTest {
    @Test
    void mainSourcesHaveNoPackageCycles() {
        assertThat(PackageGraph.of(Path.of("src/main/java"), "dev.idemproxy.app").cycles()).isEmpty();
    }
}
