package dev.idemproxy.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.PackageGraph;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine's packages depend on each other one way only: no package cycles. */
class PackageCyclesTest {
    @Test
    void mainSourcesHaveNoPackageCycles() {
        assertThat(PackageGraph.of(Path.of("src/main/java"), "dev.idemproxy").cycles()).isEmpty();
    }

    @Test
    void aCycleThroughImportsOrQualifiedNamesIsFound(@TempDir Path dir) throws IOException {
        Files.createDirectories(dir.resolve("a"));
        Files.createDirectories(dir.resolve("b"));
        Files.writeString(dir.resolve("a/A.java"), "package x.a;\nimport x.b.B;\nclass A { B b; }\n");
        Files.writeString(dir.resolve("b/B.java"), "package x.b;\n// x.a.A in a comment does not count\nclass B { x.a.A a; }\n");
        assertThat(PackageGraph.of(dir, "x").cycles()).containsExactly(Map.of("x.a", Set.of("x.b"), "x.b", Set.of("x.a")));
    }
}
