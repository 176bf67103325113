package dev.idemproxy.core.testing;

import dev.idemproxy.core.util.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The tests' one clock: a wall {@link Clock} and a monotonic {@link Ticker} that move together, and
 * only when a test {@linkplain #advance advances} them. Millisecond wall time, nanosecond ticks.
 * Thread-safe.
 */
public final class TestClock extends Clock implements Ticker {
    private final AtomicLong nanos;
    private final long startNanos;
    private final long startMillis;

    /** Wall time {@code start}, ticks from {@code startNanos} (a test of overflow starts near {@code Long.MAX_VALUE}). */
    public TestClock(Instant start, long startNanos) {
        this.startMillis = start.toEpochMilli();
        this.startNanos = startNanos;
        this.nanos = new AtomicLong(startNanos);
    }

    public TestClock(Instant start) {
        this(start, 1_000_000_000L);
    }

    /** Starts at a fixed, round instant. */
    public TestClock() {
        this(Instant.parse("2030-01-01T00:00:00Z"));
    }

    public static TestClock at(String isoInstant) {
        return new TestClock(Instant.parse(isoInstant));
    }

    /** Moves both the wall clock and the ticker. */
    public TestClock advance(Duration d) {
        nanos.addAndGet(d.toNanos());
        return this;
    }

    @Override
    public long nanos() {
        return nanos.get();
    }

    @Override
    public long millis() {
        return startMillis + (nanos.get() - startNanos) / 1_000_000L;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
