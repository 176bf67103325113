package dev.idemproxy.core.store.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.IdempotencyStore;
import dev.idemproxy.core.store.RecordKey;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kill -9 after an acknowledged completion loses nothing: a child JVM writes, is killed, the parent reopens. */
class EmbeddedCrashTest {

    @TempDir
    Path dir;

    @Test
    void aCompletionAcknowledgedBeforeKill9IsStillThereAfterReopen() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                CrashingWriter.class.getName(), dir.toString()).redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            String last = "";
            while ((line = out.readLine()) != null && !line.equals("COMPLETED")) {
                last = line;
            }
            assertThat(line).as("child output ended with: " + last).isEqualTo("COMPLETED");
            child.destroyForcibly();  // SIGKILL: no shutdown hooks, no close
            assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            child.destroyForcibly();
        }

        try (IdempotencyStore store = EmbeddedIdempotencyStore.open(dir, Clock.systemUTC())) {
            ClaimResult r = store.claim(new RecordKey("r", "s", "crash"), "fp", "o2", Duration.ofMinutes(1),
                    new ClaimContext("c2")).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(r).isInstanceOf(ClaimResult.Completed.class);
            assertThat(new String(((ClaimResult.Completed) r).response().body(), StandardCharsets.UTF_8)).isEqualTo("kept");
        }
    }
}
