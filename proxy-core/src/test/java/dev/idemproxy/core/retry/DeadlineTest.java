package dev.idemproxy.core.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.TestClock;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class DeadlineTest {
    private final TestClock ticker = new TestClock();
    private final TestClock clock = TestClock.at("2026-01-01T00:00:00Z");
    private final Duration total = Duration.ofSeconds(60);

    private Deadline deadline(String timeoutMs, String epochMs) {
        return Deadline.of(total, timeoutMs, epochMs, ticker, clock);
    }

    @Test
    void withoutCallerHeadersTheRouteTotalApplies() {
        Deadline d = deadline(null, null);
        assertThat(d.remaining()).isEqualTo(total);
        assertThat(d.fromCaller()).isFalse();
    }

    @Test
    void aShorterCallerTimeoutWins() {
        Deadline d = deadline("1500", null);
        assertThat(d.remaining()).isEqualTo(Duration.ofMillis(1500));
        assertThat(d.fromCaller()).isTrue();
    }

    @Test
    void aLongerCallerTimeoutIsCappedByTotal() {
        Deadline d = deadline("600000", null);
        assertThat(d.remaining()).isEqualTo(total);
        assertThat(d.fromCaller()).isFalse();
    }

    @Test
    void anEpochDeadlineIsConvertedWithTheWallClock() {
        long epoch = clock.millis() + 2_500;
        assertThat(deadline(null, Long.toString(epoch)).remaining()).isEqualTo(Duration.ofMillis(2500));
    }

    @Test
    void theEarlierOfBothCallerHeadersWins() {
        long epoch = clock.millis() + 2_500;
        assertThat(deadline("4000", Long.toString(epoch)).remaining()).isEqualTo(Duration.ofMillis(2500));
        assertThat(deadline("1000", Long.toString(epoch)).remaining()).isEqualTo(Duration.ofMillis(1000));
    }

    @Test
    void anEpochInThePastExpiresAtOnce() {
        Deadline d = deadline(null, Long.toString(clock.millis() - 1));
        assertThat(d.expired()).isTrue();
        assertThat(d.remaining()).isZero();
    }

    @Test
    void aZeroTimeoutExpiresAtOnce() {
        assertThat(deadline("0", null).expired()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "abc", "-5", "1.5", "1e3", "0x10", "1234567890123456789012"})
    void invalidCallerValuesAreIgnored(String value) {
        assertThat(deadline(value, null).remaining()).isEqualTo(total);
        assertThat(deadline(null, value).remaining()).isEqualTo(total);
    }

    @Test
    void whitespaceAroundAValueIsTolerated() {
        assertThat(deadline(" 250 ", null).remaining()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void hugeValuesDoNotOverflow() {
        assertThat(deadline("999999999999999999", "999999999999999999").remaining()).isEqualTo(total);
        Deadline longTotal = Deadline.of(Duration.ofSeconds(Long.MAX_VALUE), "999999999999999999", null, ticker, clock);
        assertThat(longTotal.expired()).isFalse();
        assertThat(longTotal.remaining()).isPositive();
    }

    @Test
    void remainingShrinksAsTimePasses() {
        Deadline d = deadline("1000", null);
        ticker.advance(Duration.ofMillis(400));
        assertThat(d.remaining()).isEqualTo(Duration.ofMillis(600));
        assertThat(d.remainingMillis()).isEqualTo(600);
        ticker.advance(Duration.ofMillis(600));
        assertThat(d.expired()).isTrue();
        ticker.advance(Duration.ofMillis(600));
        assertThat(d.remaining()).isZero();
    }

    @Test
    void attemptTimeoutIsTheSmallerOfPerTryAndTimeLeft() {
        Deadline d = deadline("1000", null);
        assertThat(d.attemptTimeout(Duration.ofMillis(300))).isEqualTo(Duration.ofMillis(300));
        ticker.advance(Duration.ofMillis(800));
        assertThat(d.attemptTimeout(Duration.ofMillis(300))).isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void aWaitFitsOnlyIfAnAttemptCanStartAfterIt() {
        Deadline d = deadline("1000", null);
        assertThat(d.fits(Duration.ofMillis(999))).isTrue();
        assertThat(d.fits(Duration.ofMillis(1000))).isFalse();
        assertThat(d.fits(Duration.ofDays(1))).isFalse();
        assertThat(d.fits(Duration.ofSeconds(Long.MAX_VALUE))).isFalse();
    }

    @Test
    void afterIgnoresTheWallClock() {
        Deadline d = Deadline.after(Duration.ofSeconds(3), ticker);
        clock.advance(Duration.ofHours(1));
        assertThat(d.remaining()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void aTickerNearItsOverflowStillWorks() {
        TestClock t = new TestClock(java.time.Instant.EPOCH, Long.MAX_VALUE - 1_000);
        Deadline d = Deadline.after(Duration.ofSeconds(1), t);
        assertThat(d.expired()).isFalse();
        t.advance(Duration.ofSeconds(1));
        assertThat(d.expired()).isTrue();
    }
}
