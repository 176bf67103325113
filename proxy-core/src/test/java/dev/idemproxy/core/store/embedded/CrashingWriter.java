package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.IdempotencyStore;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * A child JVM for {@link EmbeddedCrashTest}: completes one record in the store at args[0], prints
 * {@code COMPLETED}, then waits to be killed without ever closing the store.
 */
public final class CrashingWriter {
    private CrashingWriter() {
    }

    public static void main(String[] args) throws Exception {
        IdempotencyStore store = EmbeddedIdempotencyStore.open(Path.of(args[0]), Clock.systemUTC());
        RecordKey key = new RecordKey("r", "s", "crash");
        store.claim(key, "fp", "o1", Duration.ofMinutes(1), new ClaimContext("c1")).toCompletableFuture().join();
        boolean done = store.complete(key, "o1", new StoredResponse(201, List.of(new StoredHeader("A", "1")),
                "kept".getBytes(StandardCharsets.UTF_8)), 1, Duration.ofHours(1)).toCompletableFuture().join();
        System.out.println(done ? "COMPLETED" : "NOT-OWNER");
        System.out.flush();
        Thread.sleep(60_000);  // killed long before this ends
    }
}
