package dev.idemproxy.core.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.TestClock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RetryAfterTest {
    private final TestClock clock = TestClock.at("1994-11-06T08:49:30Z");

    @Test
    void deltaSecondsAreTheWait() {
        assertThat(RetryAfter.parse("120", clock)).contains(Duration.ofSeconds(120));
        assertThat(RetryAfter.parse("0", clock)).contains(Duration.ZERO);
        assertThat(RetryAfter.parse(" 5 ", clock)).contains(Duration.ofSeconds(5));
    }

    @Test
    void hugeDeltaSecondsSaturate() {
        assertThat(RetryAfter.parse("99999999999999999999999", clock)).contains(Duration.ofSeconds(2_147_483_648L));
        assertThat(RetryAfter.parse("4294967296", clock)).contains(Duration.ofSeconds(2_147_483_648L));
    }

    @Test
    void imfFixdateIsRelativeToTheClock() {
        assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", clock)).contains(Duration.ofSeconds(7));
    }

    @Test
    void obsoleteRfc850DateIsAccepted() {
        assertThat(RetryAfter.parse("Sunday, 06-Nov-94 08:49:37 GMT", clock)).contains(Duration.ofSeconds(7));
    }

    @Test
    void asctimeDateIsAccepted() {
        assertThat(RetryAfter.parse("Sun Nov  6 08:49:37 1994", clock)).contains(Duration.ofSeconds(7));
        assertThat(RetryAfter.parse("Sun Nov 16 08:49:37 1994", clock)).contains(Duration.ofDays(10).plusSeconds(7));
    }

    @Test
    void aDateInThePastMeansNoWait() {
        assertThat(RetryAfter.parse("Sat, 05 Nov 1994 08:49:37 GMT", clock)).contains(Duration.ZERO);
    }

    @Test
    void twoDigitYearsMoreThanFiftyYearsAheadAreInThePastCentury() {
        TestClock in2030 = TestClock.at("2030-01-01T00:00:00Z");
        assertThat(RetryAfter.fullYear(79, in2030)).isEqualTo(2079);
        assertThat(RetryAfter.fullYear(81, in2030)).isEqualTo(1981);
        assertThat(RetryAfter.fullYear(94, clock)).isEqualTo(1994);
        assertThat(RetryAfter.fullYear(44, clock)).isEqualTo(2044);
        assertThat(RetryAfter.fullYear(45, clock)).isEqualTo(1945);
    }

    @Test
    void fractionsOfMillisecondsFollowTheClock() {
        TestClock c = TestClock.at("1994-11-06T08:49:36.750Z");
        assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", c)).contains(Duration.ofMillis(250));
    }

    @Test
    void absentIsEmpty() {
        assertThat(RetryAfter.parse(null, clock)).isEqualTo(Optional.empty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-1", "1.5", "+3", "0x10", "soon", "5 s",
            "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 94 08:49:37 GMT",
            "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
            "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov 6 08:49:37 1994", "Xyz, 06 Nov 1994 08:49:37 GMT"})
    void garbageIsEmpty(String value) {
        assertThat(RetryAfter.parse(value, clock)).isEmpty();
    }
}
