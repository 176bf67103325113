package dev.idemproxy.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The pace of store writes tried again: the pauses they always had, about ten minutes in all. */
class StoreRetriesTest {

    @Test
    void writesAreTried25TimesWithPausesFromHalfASecondDoublingTo30Seconds() {
        SplittableRandom random = new SplittableRandom(3);
        long[] millis = {500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000};
        for (int tries = 1; tries <= millis.length; tries++) {
            assertThat(StoreRetries.WRITES.pauseAfter(tries, random)).as("after try %d", tries)
                    .isEqualTo(Duration.ofMillis(millis[tries - 1]));
        }
        assertThat(StoreRetries.WRITES.pauseAfter(24, random)).isEqualTo(Duration.ofSeconds(30));
        assertThat(StoreRetries.WRITES.triesAfter(24)).isTrue();
        assertThat(StoreRetries.WRITES.triesAfter(25)).isFalse();
    }

    @Test
    void allTheirPausesTakeAboutTenMinutes() {
        assertThat(StoreRetries.WRITES.longestPauses()).isEqualTo(Duration.ofMillis(31_500 + 18 * 30_000));
    }
}
