package dev.idemproxy.core.store.redis;

import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.retry.Backoff;
import dev.idemproxy.core.retry.BackoffPolicy;
import dev.idemproxy.core.retry.Jitter;
import dev.idemproxy.core.store.ClaimAnswerLostException;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.RecordStore;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases native claims whose answers were lost ({@link ClaimAnswerLostException}), should they
 * have been written: at once, and while Redis does not answer, again after the pauses of
 * {@link #PAUSES} (100 ms doubling to 2 s), until Redis answers or the record would have expired.
 * At most {@value #MAX_WAITING} such releases wait at once; past that a lost claim keeps its key
 * until its lease lapses (logged once per overflow). Thread-safe.
 */
final class LostClaims {
    /** The pause before each further try of a release: 100 ms doubling to 2 s, no jitter. */
    static final BackoffPolicy PAUSES = new BackoffPolicy(Duration.ofMillis(100), Duration.ofSeconds(2), 2.0, Jitter.parse("none"));
    /** How many releases of lost claims may wait for Redis at once. */
    private static final int MAX_WAITING = 10_000;
    private static final Logger log = LoggerFactory.getLogger(RedisStore.class);

    /** The records whose claims are released. */
    private final RecordStore records;
    /** Whether the backend is closed: nothing is tried then. */
    private final BooleanSupplier closed;
    /** Where the next tries wait: Lettuce's event executor. */
    private final ScheduledExecutorService executor;
    private final Ticker ticker;
    private final Backoff backoff;
    /** Releases now waiting for Redis. */
    private final AtomicInteger waiting = new AtomicInteger();
    private final AtomicBoolean overflowLogged = new AtomicBoolean();

    /**
     * @param ticker the time source of the records' lifetimes
     * @param random the jitter of {@link #PAUSES} (none as it stands); thread-safe
     */
    LostClaims(RecordStore records, BooleanSupplier closed, ScheduledExecutorService executor, Ticker ticker,
            RandomGenerator random) {
        this.records = records;
        this.closed = closed;
        this.executor = executor;
        this.ticker = ticker;
        this.backoff = new Backoff(PAUSES, random);
    }

    /** Releases {@code owner}'s claim of {@code key}, should it have been written; returns at once. */
    void release(RecordKey key, String owner, ClaimAnswerLostException lost) {
        if (closed.getAsBoolean()) {
            return;
        }
        if (waiting.incrementAndGet() > MAX_WAITING) {
            done();
            if (overflowLogged.compareAndSet(false, true)) {
                log.warn("more than {} claims with lost answers wait for Redis: their keys stay held until their leases lapse",
                        MAX_WAITING);
            }
            return;
        }
        attempt(key, owner, ticker.nanos() + lost.recordLifetime().toNanos(), 1);
    }

    /** Try {@code n} of one release. */
    private void attempt(RecordKey key, String owner, long deadlineNanos, int n) {
        if (closed.getAsBoolean() || ticker.nanos() - deadlineNanos > 0) {
            done();  // expired by now: nothing left to release
            return;
        }
        records.release(key, owner).whenComplete((released, error) -> {
            if (error == null) {
                done();
                if (released) {
                    log.info("[owner={}] released its claim, whose answer Redis had lost: the key is free again", owner);
                }
                return;
            }
            try {
                executor.schedule(() -> attempt(key, owner, deadlineNanos, n + 1), backoff.delayBefore(n + 1).toNanos(),
                        TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                done();  // closing
            }
        });
    }

    /** One release no longer waits; when none does, a later overflow is logged again. */
    private void done() {
        if (waiting.decrementAndGet() == 0) {
            overflowLogged.set(false);
        }
    }
}
