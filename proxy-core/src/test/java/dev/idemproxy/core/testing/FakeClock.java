package dev.idemproxy.core.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A wall {@link Clock} that moves only when a test advances it. Thread-safe. */
public final class FakeClock extends Clock {
    private final AtomicLong millis;

    public FakeClock(Instant start) {
        this.millis = new AtomicLong(start.toEpochMilli());
    }

    public static FakeClock at(String isoInstant) {
        return new FakeClock(Instant.parse(isoInstant));
    }

    public FakeClock advance(Duration d) {
        millis.addAndGet(d.toMillis());
        return this;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public long millis() {
        return millis.get();
    }
}
