package dev.idemproxy.core.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RetryScheduleTest {
    private static final RetrySchedule NO_JITTER = new RetrySchedule(5,
            new BackoffPolicy(Duration.ofMillis(500), Duration.ofSeconds(3), 2.0, Jitter.parse("none")));

    @Test
    void theFirstPauseIsTheInitialOneAndEachLaterOneGrowsUpToMax() {
        SplittableRandom random = new SplittableRandom(1);
        assertThat(NO_JITTER.pauseAfter(1, random)).isEqualTo(Duration.ofMillis(500));
        assertThat(NO_JITTER.pauseAfter(2, random)).isEqualTo(Duration.ofSeconds(1));
        assertThat(NO_JITTER.pauseAfter(3, random)).isEqualTo(Duration.ofSeconds(2));
        assertThat(NO_JITTER.pauseAfter(4, random)).isEqualTo(Duration.ofSeconds(3));
        assertThat(NO_JITTER.pauseAfter(40, random)).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void triesStopAtMaxTries() {
        assertThat(NO_JITTER.triesAfter(1)).isTrue();
        assertThat(NO_JITTER.triesAfter(4)).isTrue();
        assertThat(NO_JITTER.triesAfter(5)).isFalse();
        assertThat(new RetrySchedule(1, BackoffPolicy.DEFAULT).triesAfter(1)).as("a single try").isFalse();
    }

    @Test
    void theLongestPausesAddUpTheCeilingsBetweenAllTries() {
        assertThat(NO_JITTER.longestPauses()).isEqualTo(Duration.ofMillis(500 + 1000 + 2000 + 3000));
        RetrySchedule fraction = new RetrySchedule(3,
                new BackoffPolicy(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, Jitter.parse("0.5")));
        assertThat(fraction.longestPauses()).isEqualTo(Duration.ofMillis(150 + 300));
        assertThat(new RetrySchedule(1, BackoffPolicy.DEFAULT).longestPauses()).isZero();
    }

    @Test
    void seededJitteredPausesStayWithinTheirBoundsAndAddUpToNoMoreThanTheLongest() {
        RetrySchedule equal = new RetrySchedule(25,
                new BackoffPolicy(Duration.ofMillis(100), Duration.ofSeconds(5), 2.0, Jitter.parse("equal")));
        for (long seed = 0; seed < 50; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            Duration total = Duration.ZERO;
            for (int tries = 1; equal.triesAfter(tries); tries++) {
                Duration pause = equal.pauseAfter(tries, random);
                Duration base = Backoff.base(equal.backoff(), tries + 1);
                assertThat(pause).as("seed %d, after try %d", seed, tries).isBetween(base.dividedBy(2), base);
                total = total.plus(pause);
            }
            assertThat(total).isLessThanOrEqualTo(equal.longestPauses());
        }
    }

    @Test
    void aScheduleWithoutTriesIsRefused() {
        assertThatThrownBy(() -> new RetrySchedule(0, BackoffPolicy.DEFAULT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxTries 0 (expected: >= 1)");
    }
}
