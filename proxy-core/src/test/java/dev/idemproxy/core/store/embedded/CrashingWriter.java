package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.testing.Await;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.testing.Claims;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A child JVM for {@link EmbeddedCrashTest}: completes one record in the store at args[0], prints
 * {@code COMPLETED}, then waits to be killed without ever closing the store. With args[1]
 * {@code stream}, it instead keeps {@value #CALLERS} callers claiming and completing unique keys
 * until killed, printing {@code CLAIMED <key>} and {@code COMPLETED <key>} as each is acknowledged.
 */
public final class CrashingWriter {
    private CrashingWriter() {
    }

    static final int CALLERS = 32;

    public static void main(String[] args) throws Exception {
        RecordStore store = EmbeddedStore.open(Path.of(args[0]), Clock.systemUTC()).records();
        if (args.length > 1 && args[1].equals("stream")) {
            stream(store);
            return;
        }
        RecordKey key = new RecordKey("r", "s", "crash");
        store.claim(key, "fp", "o1", Duration.ofMinutes(1), new ClaimContext("c1")).toCompletableFuture().join();
        boolean done = store.complete(key, Claims.owned("o1"), new StoredResponse(201, List.of(new StoredHeader("A", "1")),
                "kept".getBytes(StandardCharsets.UTF_8)), 1, Duration.ofHours(1)).toCompletableFuture().join();
        System.out.println(done ? "COMPLETED" : "NOT-OWNER");
        System.out.flush();
        new java.util.concurrent.CountDownLatch(1).await();  // until killed
    }

    private static void stream(RecordStore store) throws InterruptedException {
        AtomicLong seq = new AtomicLong();
        StoredResponse response = new StoredResponse(200, List.of(), "kept".getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < CALLERS; i++) {
            next(store, seq, response);
        }
        new java.util.concurrent.CountDownLatch(1).await();  // until killed
    }

    /** One caller: claim, complete, repeat; each acknowledgement printed once the store gave it. */
    private static void next(RecordStore store, AtomicLong seq, StoredResponse response) {
        String id = "k" + seq.incrementAndGet();
        RecordKey key = new RecordKey("r", "s", id);
        store.claim(key, "fp", id, Duration.ofMinutes(1), new ClaimContext(id))
                .thenCompose(claimed -> {
                    System.out.println("CLAIMED " + id);
                    return store.complete(key, Claims.owned(id), response, 1, Duration.ofHours(1));
                })
                .thenAccept(done -> {
                    System.out.println((done ? "COMPLETED " : "NOT-OWNER ") + id);
                    next(store, seq, response);
                });
    }
}
