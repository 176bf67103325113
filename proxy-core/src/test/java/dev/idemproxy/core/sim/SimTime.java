package dev.idemproxy.core.sim;

import dev.idemproxy.core.util.Ticker;
import io.netty.util.concurrent.MockTicker;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;

/**
 * The simulation's one time: Netty's {@link MockTicker}, which every {@link SimLoop} schedules on,
 * read by the engine as its {@link Ticker} and as its wall {@link Clock} (a fixed epoch plus the
 * ticks), and by the stores through that clock. It moves only when the simulator advances it.
 * Not thread-safe: one simulation thread.
 */
final class SimTime extends Clock implements Ticker {
    private static final long EPOCH_MILLIS = Instant.parse("2030-01-01T00:00:00Z").toEpochMilli();

    private final MockTicker ticker = io.netty.util.concurrent.Ticker.newMockTicker();
    private final long start = ticker.nanoTime();

    MockTicker netty() {
        return ticker;
    }

    /** Moves time forward to {@code nanos} on the ticker (never back). */
    void advanceTo(long nanos) {
        long by = nanos - ticker.nanoTime();
        if (by > 0) {
            ticker.advance(by, TimeUnit.NANOSECONDS);
        }
    }

    /** Simulated nanoseconds since the run began. */
    long sinceStart() {
        return ticker.nanoTime() - start;
    }

    /** Simulated milliseconds since the run began. */
    long elapsedMillis() {
        return (ticker.nanoTime() - start) / 1_000_000L;
    }

    @Override
    public long nanos() {
        return ticker.nanoTime();
    }

    @Override
    public long millis() {
        return EPOCH_MILLIS + elapsedMillis();
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
