package dev.idemproxy.core.store.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.RecordKey;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
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

        try (Stores stores = EmbeddedStore.open(dir, Clock.systemUTC())) {
            RecordStore store = stores.records();
            ClaimResult r = store.claim(new RecordKey("r", "s", "crash"), "fp", "o2", Duration.ofMinutes(1),
                    new ClaimContext("c2")).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(r).isInstanceOf(ClaimResult.Completed.class);
            assertThat(new String(((ClaimResult.Completed) r).response().body(), StandardCharsets.UTF_8)).isEqualTo("kept");
        }
    }

    /**
     * Group commit keeps every promise: kill -9 while many callers claim and complete, then every
     * acknowledged completion is there, and every acknowledged claim is in flight or completed,
     * never a fresh key that would execute again.
     */
    @Test
    void everyClaimAndCompletionAcknowledgedUnderConcurrencyBeforeKill9IsStillThereAfterReopen() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                CrashingWriter.class.getName(), dir.toString(), "stream").redirectErrorStream(true).start();
        Set<String> claimed = new HashSet<>();
        Set<String> completed = new HashSet<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("CLAIMED ")) {
                    claimed.add(line.substring(8));
                } else if (line.startsWith("COMPLETED ")) {
                    completed.add(line.substring(10));
                    if (completed.size() == 500) {
                        child.toHandle().destroyForcibly();  // SIGKILL mid-stream, keeping the pipe: lines already written are still read
                    }
                } else {
                    throw new AssertionError("unexpected child output: " + line);
                }
            }
            assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            child.destroyForcibly();
        }
        assertThat(completed).hasSizeGreaterThanOrEqualTo(500);

        try (Stores stores = EmbeddedStore.open(dir, Clock.systemUTC())) {
            RecordStore store = stores.records();
            for (String id : claimed) {
                ClaimResult r = store.claim(new RecordKey("r", "s", id), "fp", "after", Duration.ofMinutes(1),
                        new ClaimContext("after")).toCompletableFuture().get(10, TimeUnit.SECONDS);
                if (completed.contains(id)) {
                    assertThat(r).as(id).isInstanceOf(ClaimResult.Completed.class);
                } else {
                    assertThat(r).as(id).isNotInstanceOf(ClaimResult.Claimed.class);
                }
            }
        }
    }
}
