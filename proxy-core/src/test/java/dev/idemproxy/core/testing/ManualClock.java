package dev.idemproxy.core.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when told to ({@link #advance}), for lease and TTL tests without
 * sleeping. Millisecond resolution. Thread-safe.
 */
public final class ManualClock extends Clock {
    private final AtomicLong millis;

    public ManualClock(Instant start) {
        this.millis = new AtomicLong(start.toEpochMilli());
    }

    /** Starts at a fixed, round instant. */
    public ManualClock() {
        this(Instant.parse("2030-01-01T00:00:00Z"));
    }

    public void advance(Duration d) {
        millis.addAndGet(d.toMillis());
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("ManualClock is UTC only");
    }
}
