package dev.idemproxy.app.wiring;

import dev.idemproxy.core.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The config watcher on a real directory: what wakes it, what it reads, and when it calls back. */
class ConfigWatcherTest {
    private static final long WAIT_SECONDS = 10;

    @TempDir
    Path dir;

    @Test
    void callsBackWhenTheFileChangesAndNotWhenItIsRewrittenUnchanged() throws Exception {
        Path cfg = Files.writeString(dir.resolve("idemproxy.yaml"), "a: 1\n");
        Semaphore changes = new Semaphore(0);
        try (ConfigWatcher w = new ConfigWatcher(cfg, changes::release)) {
            Files.writeString(cfg, "a: 2\n");
            assertThat(changes.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)).as("a changed file calls back").isTrue();

            int checks = w.contentChecks();
            Files.writeString(cfg, "a: 2\n");
            awaitChecks(w, checks + 1);
            assertThat(changes.tryAcquire(500, TimeUnit.MILLISECONDS)).as("same bytes: no call back").isFalse();
        }
    }

    @Test
    void otherFilesInTheDirectoryAreNotRead() throws Exception {
        Path cfg = Files.writeString(dir.resolve("idemproxy.yaml"), "a: 1\n");
        Path log = dir.resolve("stdout.log");
        Semaphore changes = new Semaphore(0);
        try (ConfigWatcher w = new ConfigWatcher(cfg, changes::release)) {
            for (int i = 0; i < 50; i++) {
                Files.writeString(log, "line " + i + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
                Await.holdsFor("log lines beside the config never make it read the config", java.time.Duration.ofMillis(10),
                        () -> w.contentChecks() == 0);
            }
            Await.holdsFor("log lines beside the config never make it read the config", java.time.Duration.ofMillis(500),
                    () -> w.contentChecks() == 0);

            // and it still sees the config itself afterwards
            Files.writeString(cfg, "a: 2\n");
            assertThat(changes.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(w.contentChecks()).isEqualTo(1);
        }
    }

    /** A Kubernetes ConfigMap update: the file name is a link through {@code ..data}, which is swapped atomically. */
    @Test
    void seesAConfigMapStyleSymlinkSwap() throws Exception {
        Path v1 = Files.createDirectory(dir.resolve("..2026_11_29_v1"));
        Files.writeString(v1.resolve("idemproxy.yaml"), "a: 1\n");
        Files.createSymbolicLink(dir.resolve("..data"), v1.getFileName());
        Path cfg = Files.createSymbolicLink(dir.resolve("idemproxy.yaml"), Path.of("..data", "idemproxy.yaml"));
        Semaphore changes = new Semaphore(0);
        try (ConfigWatcher w = new ConfigWatcher(cfg, changes::release)) {
            Path v2 = Files.createDirectory(dir.resolve("..2026_11_29_v2"));
            Files.writeString(v2.resolve("idemproxy.yaml"), "a: 2\n");
            Path tmp = Files.createSymbolicLink(dir.resolve("..data_tmp"), v2.getFileName());
            Files.move(tmp, dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            assertThat(changes.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)).as("the swap calls back").isTrue();
        }
    }

    private static void awaitChecks(ConfigWatcher w, int n) {
        Await.until(n + " content checks", java.time.Duration.ofSeconds(WAIT_SECONDS), () -> w.contentChecks() >= n);
    }
}
