package dev.idemproxy.core.store.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StorePolicy.EmbeddedSync;
import dev.idemproxy.core.store.StoredRequest;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.testing.Claims;
import dev.idemproxy.core.testing.TestClock;
import dev.idemproxy.core.util.Ticker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log cut at every write: a workload of claims, completions, releases, receipts, dead letters,
 * task charges and compactions runs on one thread over files in memory ({@link MemoryLogFiles})
 * that keep every write; then, for every byte of every write (a process crash at that point) the
 * files as they stood are opened again, and everything acknowledged before the cut must be there:
 * every acknowledged completion replays, every acknowledged claim is in flight or ended (never a
 * fresh key, unless its release was already under way), every acknowledged release lets the key
 * be claimed afresh, receipts, dead letters and task counters as acknowledged. With
 * {@code sync: always}, the same holds after a power loss (every segment cut back to what was
 * last forced) at every write boundary.
 */
class EmbeddedLogCrashTest {
    private static final Duration TTL = Duration.ofHours(1);
    private static final Duration LEASE = Duration.ofMinutes(5);

    @TempDir
    Path dir;
    private final TestClock clock = new TestClock();

    /** What the workload did, and after how many file events each thing was acknowledged. */
    private final Map<Integer, Integer> claimedAt = new HashMap<>();
    private final Map<Integer, Integer> completedAt = new HashMap<>();
    private final Map<Integer, Integer> releasedAt = new HashMap<>();
    private final List<Integer> releaseIssued = new ArrayList<>();
    private final Map<Integer, Integer> deadLetterAt = new HashMap<>();
    private final Map<Integer, Integer> deadLetterDeletedAt = new HashMap<>();
    private final List<int[]> chargedAt = new ArrayList<>();  // {task, events}

    @Test
    void everyAcknowledgedWriteSurvivesACrashAtEveryByteOfTheLog() throws Exception {
        MemoryLogFiles files = run(EmbeddedSync.NONE, 24);
        List<MemoryLogFiles.Event> events = List.copyOf(files.events);
        int cuts = 0;
        for (int e = 0; e <= events.size(); e++) {
            int len = e < events.size() && events.get(e) instanceof MemoryLogFiles.Append a ? a.bytes().length : 0;
            for (int partial = 0; partial <= Math.max(0, len - 1); partial++) {
                check(MemoryLogFiles.crashed(events, e, partial, false), e, partial > 0);
                cuts++;
            }
        }
        assertThat(cuts).as("cut points").isGreaterThan(2000);
    }

    @Test
    void withSyncAlwaysEveryAcknowledgedWriteSurvivesAPowerLossAtEveryWrite() throws Exception {
        MemoryLogFiles files = run(EmbeddedSync.ALWAYS, 60);
        List<MemoryLogFiles.Event> events = List.copyOf(files.events);
        for (int e = 0; e <= events.size(); e++) {
            int len = e < events.size() && events.get(e) instanceof MemoryLogFiles.Append a ? a.bytes().length : 0;
            check(MemoryLogFiles.crashed(events, e, 0, true), e, false);
            if (len > 1) {
                check(MemoryLogFiles.crashed(events, e, len / 2, true), e, true);
            }
        }
    }

    /**
     * After a crash at every byte the reopened log takes new frames and reads them back. A cut
     * that keeps a last frame whole but not the zeroes padding it to 8 bytes left the segment's
     * length unaligned, and every frame written after it got a position 1 to 7 bytes off: its
     * read failed ("bad frame length"; found by the simulation, seed 7148).
     */
    @Test
    void aLogReopenedAfterACrashAtEveryByteReadsBackWhatItWritesNext() throws Exception {
        List<MemoryLogFiles.Event> events = List.copyOf(run(EmbeddedSync.NONE, 12).events);
        RecordKey fresh = new RecordKey("r", "s", "after-the-crash");
        for (int e = 0; e <= events.size(); e++) {
            int len = e < events.size() && events.get(e) instanceof MemoryLogFiles.Append a ? a.bytes().length : 0;
            for (int partial = 0; partial <= Math.max(0, len - 1); partial++) {
                EmbeddedStore backend = open(MemoryLogFiles.crashed(events, e, partial, false), EmbeddedSync.NONE);
                try {
                    Stores s = backend.stores();
                    await(s.records().claim(fresh, "fp", "o-new", LEASE, new ClaimContext("c-new")));
                    assertThat(await(s.records().complete(fresh, Claims.owned("o-new", "fp"), response(99), 1, TTL, null))).isTrue();
                    ClaimResult again = await(s.records().claim(fresh, "fp", "o-next", LEASE, new ClaimContext("c-next")));
                    assertThat(again).as("cut at %d events, %d bytes into the next", e, partial)
                            .isInstanceOfSatisfying(ClaimResult.Completed.class, c -> assertThat(c.response()).isEqualTo(response(99)));
                } finally {
                    backend.close();
                }
            }
        }
    }

    private EmbeddedStore open(MemoryLogFiles files, EmbeddedSync sync) {
        InlineExecutor executor = new InlineExecutor();
        return EmbeddedStore.open(dir, clock, Ticker.system(), sync, 4096,
                new EmbeddedStore.Seams(executor, executor, files, dev.idemproxy.core.util.Mistakes.NONE));
    }

    private MemoryLogFiles run(EmbeddedSync sync, int calls) throws Exception {
        MemoryLogFiles files = new MemoryLogFiles();
        EmbeddedStore backend = open(files, sync);
        Stores s = backend.stores();
        for (int i = 0; i < calls; i++) {
            RecordKey key = key(i);
            Receipt processing = new Receipt("c" + i, "b" + (i % 4), "k" + i, "r", "PROCESSING", null, 0, 0, clock.instant(), null);
            ClaimResult claimed = await(s.records().claim(key, "fp", "o" + i, LEASE, new ClaimContext("c" + i, TTL,
                    new ReceiptPut(processing, TTL))));
            assertThat(claimed).isEqualTo(ClaimResult.Claimed.FRESH);
            claimedAt.put(i, files.events.size());
            if (i % 5 == 1) {
                releaseIssued.add(i);
                assertThat(await(s.records().release(key, "o" + i))).isTrue();
                releasedAt.put(i, files.events.size());
            } else if (i % 5 != 2) {
                Receipt done = new Receipt("c" + i, "b" + (i % 4), "k" + i, "r", "SUCCESS", null, 201, 1, clock.instant(),
                        clock.instant());
                assertThat(await(s.records().complete(key, Claims.owned("o" + i, "fp", "c" + i), response(i), 1, TTL, new ReceiptPut(done, TTL))))
                        .isTrue();
                completedAt.put(i, files.events.size());
            }
            if (i % 3 == 0) {
                await(s.taskBudgets().chargeTaskRetry("t" + (i % 2), 1000, TTL));
                chargedAt.add(new int[] {i % 2, files.events.size()});
            }
            if (i % 7 == 0) {
                await(s.deadLetters().addDeadLetter(new DeadLetter("d" + i, "c" + i, null, null, key, "retries-exhausted", 503, 2,
                        clock.instant(), new StoredRequest("POST", "/x", List.of(), ("q" + i).getBytes(StandardCharsets.UTF_8)))));
                deadLetterAt.put(i, files.events.size());
            }
            if (i % 14 == 7) {
                assertThat(await(s.deadLetters().deleteDeadLetter("d" + (i - 7)))).isTrue();
                deadLetterDeletedAt.put(i - 7, files.events.size());
            }
            if (i % 6 == 5 && backend.log().segments().size() > 1) {
                await(backend.compactOldest());
            }
            clock.advance(Duration.ofMillis(10));
        }
        backend.close();
        return files;
    }

    /**
     * Opens the cut files and checks what was acknowledged within the first {@code events} events;
     * with {@code midWrite}, the write of the operation acknowledged right after them was cut
     * somewhere, and that operation may or may not have happened.
     */
    private void check(MemoryLogFiles cut, int events, boolean midWrite) throws Exception {
        EmbeddedStore backend = open(cut, EmbeddedSync.NONE);
        Stores s = backend.stores();
        try {
            for (Map.Entry<Integer, Integer> c : claimedAt.entrySet()) {
                int i = c.getKey();
                if (c.getValue() > events) {
                    continue;
                }
                ClaimResult r = await(s.records().claim(key(i), "fp", "after", LEASE, new ClaimContext("after")));
                String at = "call " + i + " at " + events + " events";
                if (completedAt.getOrDefault(i, Integer.MAX_VALUE) <= events) {
                    assertThat(r).as(at).isEqualTo(new ClaimResult.Completed(response(i), "c" + i, 1));
                } else if (releasedAt.getOrDefault(i, Integer.MAX_VALUE) <= events) {
                    assertThat(r).as(at).isEqualTo(ClaimResult.Claimed.FRESH);
                } else if (!releaseIssued.contains(i)) {
                    assertThat(r).as(at).isNotEqualTo(ClaimResult.Claimed.FRESH);
                }
                assertThat(await(s.receipts().receipt("c" + i))).as("receipt of " + at).isPresent();
            }
            for (Map.Entry<Integer, Integer> d : deadLetterAt.entrySet()) {
                boolean added = d.getValue() <= events;
                int deletedAt = deadLetterDeletedAt.getOrDefault(d.getKey(), Integer.MAX_VALUE);
                boolean deleted = deletedAt <= events;
                boolean maybeDeleted = midWrite && deletedAt == events + 1;
                if (added && !deleted && !maybeDeleted) {
                    assertThat(await(s.deadLetters().deadLetter("d" + d.getKey()))).as("dead letter %d at %d", d.getKey(), events)
                            .isPresent();
                } else if (deleted) {
                    assertThat(await(s.deadLetters().deadLetter("d" + d.getKey()))).isEmpty();
                }
            }
            for (int t = 0; t < 2; t++) {
                int task = t;
                long acked = chargedAt.stream().filter(c -> c[0] == task && c[1] <= events).count();
                long issued = chargedAt.stream().filter(c -> c[0] == task).count();
                assertThat(await(s.taskBudgets().taskRetriesUsed("t" + t))).as("task %d at %d", t, events).isBetween(acked, issued);
            }
        } finally {
            backend.close();
        }
    }

    private static RecordKey key(int i) {
        return new RecordKey("r", "s", "k" + i);
    }

    private static StoredResponse response(int i) {
        return new StoredResponse(201, List.of(), ("body-" + i).getBytes(StandardCharsets.UTF_8));
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get();
    }
}
