package dev.idemproxy.core.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BackoffTest {
    private static BackoffPolicy policy(String jitter) {
        return new BackoffPolicy(Duration.ofMillis(200), Duration.ofSeconds(10), 2.0, Jitter.parse(jitter));
    }

    @Test
    void baseGrowsByTheMultiplierFromTheSecondAttempt() {
        BackoffPolicy p = policy("none");
        assertThat(Backoff.base(p, 2)).isEqualTo(Duration.ofMillis(200));
        assertThat(Backoff.base(p, 3)).isEqualTo(Duration.ofMillis(400));
        assertThat(Backoff.base(p, 4)).isEqualTo(Duration.ofMillis(800));
        assertThat(Backoff.base(p, 7)).isEqualTo(Duration.ofMillis(6400));
    }

    @Test
    void baseIsCappedAtMax() {
        BackoffPolicy p = policy("none");
        assertThat(Backoff.base(p, 8)).isEqualTo(Duration.ofSeconds(10));
        assertThat(Backoff.base(p, 100)).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void hugeAttemptNumbersDoNotOverflow() {
        BackoffPolicy p = new BackoffPolicy(Duration.ofMillis(1), Duration.ofDays(100), 100.0, Jitter.parse("none"));
        assertThat(Backoff.base(p, Integer.MAX_VALUE)).isEqualTo(Duration.ofDays(100));
        assertThat(new Backoff(p, new FixedRandom(0.5)).delayBefore(Integer.MAX_VALUE)).isPositive();
    }

    @Test
    void durationsBeyondLongNanosSaturate() {
        BackoffPolicy p = new BackoffPolicy(Duration.ofSeconds(1), Duration.ofSeconds(Long.MAX_VALUE / 2), 2.0, Jitter.parse("none"));
        assertThat(Backoff.base(p, 200)).isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
    }

    @Test
    void multiplierOneGivesAConstantDelay() {
        BackoffPolicy p = new BackoffPolicy(Duration.ofMillis(300), Duration.ofSeconds(1), 1.0, Jitter.parse("none"));
        assertThat(new Backoff(p, new FixedRandom(0.9)).delayBefore(2)).isEqualTo(Duration.ofMillis(300));
        assertThat(new Backoff(p, new FixedRandom(0.9)).delayBefore(50)).isEqualTo(Duration.ofMillis(300));
    }

    @Test
    void fullJitterScalesTheBaseByTheRandomDraw() {
        assertThat(new Backoff(policy("full"), new FixedRandom(0.0)).delayBefore(3)).isEqualTo(Duration.ZERO);
        assertThat(new Backoff(policy("full"), new FixedRandom(0.25)).delayBefore(3)).isEqualTo(Duration.ofMillis(100));
        assertThat(new Backoff(policy("full"), new FixedRandom(0.999)).delayBefore(3)).isLessThan(Duration.ofMillis(400));
    }

    @Test
    void equalJitterKeepsAtLeastHalfTheBase() {
        assertThat(new Backoff(policy("equal"), new FixedRandom(0.0)).delayBefore(3)).isEqualTo(Duration.ofMillis(200));
        assertThat(new Backoff(policy("equal"), new FixedRandom(0.5)).delayBefore(3)).isEqualTo(Duration.ofMillis(300));
    }

    @Test
    void noJitterIsTheBase() {
        assertThat(new Backoff(policy("none"), new FixedRandom(0.7)).delayBefore(4)).isEqualTo(Duration.ofMillis(800));
    }

    @Test
    void fractionJitterSpreadsAroundTheBase() {
        assertThat(new Backoff(policy("0.2"), new FixedRandom(0.0)).delayBefore(3)).isEqualTo(Duration.ofMillis(320));
        assertThat(new Backoff(policy("0.2"), new FixedRandom(0.5)).delayBefore(3)).isEqualTo(Duration.ofMillis(400));
        assertThat(new Backoff(policy("0.2"), new FixedRandom(0.75)).delayBefore(3)).isEqualTo(Duration.ofMillis(440));
    }

    @Test
    void fractionJitterNeverExceedsMax() {
        assertThat(new Backoff(policy("0.5"), new FixedRandom(0.99)).delayBefore(20)).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void seededDelaysStayWithinTheirBounds() {
        SplittableRandom random = new SplittableRandom(42);
        Backoff full = new Backoff(policy("full"), random);
        Backoff equal = new Backoff(policy("equal"), random);
        Backoff fraction = new Backoff(policy("0.3"), random);
        for (int n = 2; n < 12; n++) {
            Duration base = Backoff.base(policy("none"), n);
            for (int i = 0; i < 200; i++) {
                assertThat(full.delayBefore(n)).isBetween(Duration.ZERO, base);
                assertThat(equal.delayBefore(n)).isBetween(base.dividedBy(2), base);
                assertThat(fraction.delayBefore(n)).isBetween(base.multipliedBy(7).dividedBy(10), Duration.ofSeconds(10));
            }
        }
    }

    @Test
    void sameSeedGivesSameDelays() {
        Backoff a = new Backoff(policy("full"), new SplittableRandom(7));
        Backoff b = new Backoff(policy("full"), new SplittableRandom(7));
        for (int n = 2; n < 10; n++) {
            assertThat(a.delayBefore(n)).isEqualTo(b.delayBefore(n));
        }
    }

    @Test
    void theFirstAttemptHasNoBackoff() {
        assertThatThrownBy(() -> new Backoff(policy("full"), new SplittableRandom(1)).delayBefore(1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("(expected: >= 2");
    }

    @Test
    void noSeededDelayExceedsTheCeilingOfItsJitter() {
        SplittableRandom random = new SplittableRandom(35);
        for (String jitter : new String[] {"full", "equal", "none", "0.2", "1.0"}) {
            BackoffPolicy p = policy(jitter);
            Backoff backoff = new Backoff(p, random);
            for (int attempt = 2; attempt < 12; attempt++) {
                Duration ceiling = Backoff.ceiling(p, attempt);
                for (int i = 0; i < 200; i++) {
                    assertThat(backoff.delayBefore(attempt)).as("%s, attempt %d", jitter, attempt).isLessThanOrEqualTo(ceiling);
                }
            }
        }
    }

    @Test
    void theCeilingIsTheBaseButForAFractionWhichMayExceedItUpToMax() {
        assertThat(Backoff.ceiling(policy("full"), 3)).isEqualTo(Duration.ofMillis(400));
        assertThat(Backoff.ceiling(policy("equal"), 3)).isEqualTo(Duration.ofMillis(400));
        assertThat(Backoff.ceiling(policy("none"), 3)).isEqualTo(Duration.ofMillis(400));
        assertThat(Backoff.ceiling(policy("0.25"), 3)).isEqualTo(Duration.ofMillis(500));
        assertThat(Backoff.ceiling(policy("0.25"), 40)).isEqualTo(Duration.ofSeconds(10));
        assertThat(Backoff.ceiling(policy("0.5"), 7)).isEqualTo(Duration.ofMillis(9600));
    }
}
