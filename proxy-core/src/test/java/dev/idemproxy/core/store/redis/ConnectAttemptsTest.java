package dev.idemproxy.core.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The pace of a store's attempts to connect: growing, jittered pauses, and few log lines. */
class ConnectAttemptsTest {
    private static final long MS = 1_000_000L;

    @Test
    void pausesDoubleFrom100MillisecondsToFiveSecondsWithEqualJitter() {
        ConnectAttempts attempts = new ConnectAttempts(new SplittableRandom(7));
        long[] bases = {100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000};
        for (long base : bases) {
            Duration pause = attempts.failed(0);
            assertThat(pause.toMillis()).as("after a base of %d ms", base).isBetween(base / 2, base);
        }
        assertThat(attempts.failures()).isEqualTo(bases.length);
    }

    @Test
    void theFirstFailureIsLoggedAndThenOnePer30Seconds() {
        ConnectAttempts attempts = new ConnectAttempts(new SplittableRandom(1));
        List<Long> logged = new ArrayList<>();
        long now = 5_000 * MS;
        for (int i = 0; i < 200; i++) {  // 200 failures, 500 ms apart: 100 s
            attempts.failed(now);
            if (attempts.logNow(now)) {
                logged.add((now - 5_000 * MS) / MS);
            }
            now += 500 * MS;
        }
        assertThat(logged).containsExactly(0L, 30_000L, 60_000L, 90_000L);
        assertThat(attempts.failingFor(now)).isEqualTo(Duration.ofSeconds(100));
    }

    @Test
    void nothingHasFailedBeforeTheFirstFailure() {
        ConnectAttempts attempts = new ConnectAttempts(new SplittableRandom(1));
        assertThat(attempts.failures()).isZero();
        assertThat(attempts.failingFor(123)).isEqualTo(Duration.ZERO);
    }
}
