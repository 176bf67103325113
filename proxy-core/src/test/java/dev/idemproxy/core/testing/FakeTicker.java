package dev.idemproxy.core.testing;

import dev.idemproxy.core.util.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link Ticker} that moves only when a test advances it. Thread-safe. */
public final class FakeTicker implements Ticker {
    private final AtomicLong nanos;

    public FakeTicker() {
        this(1_000_000_000L);
    }

    public FakeTicker(long start) {
        this.nanos = new AtomicLong(start);
    }

    @Override
    public long nanos() {
        return nanos.get();
    }

    public FakeTicker advance(Duration d) {
        nanos.addAndGet(d.toNanos());
        return this;
    }
}
