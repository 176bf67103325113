package dev.idemproxy.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationParserTest {

    @Test
    void parsesEachUnit() {
        assertThat(DurationParser.parse("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(DurationParser.parse("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(DurationParser.parse("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(DurationParser.parse("24h")).isEqualTo(Duration.ofHours(24));
        assertThat(DurationParser.parse("7d")).isEqualTo(Duration.ofDays(7));
        assertThat(DurationParser.parse("0s")).isEqualTo(Duration.ZERO);
    }

    @Test
    void parsesCompoundDurations() {
        assertThat(DurationParser.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(DurationParser.parse("1s500ms")).isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void rejectsEverythingElseSayingWhatWasExpected() {
        for (String bad : new String[] {"abc", "10", "", "1.5s", "-1s", "10 s", "s", "1y"}) {
            assertThatIllegalArgumentException().isThrownBy(() -> DurationParser.parse(bad))
                    .withMessage("expected a duration such as 250ms, 10s, 5m, 24h, got '" + bad + "'");
        }
    }

    @Test
    void rejectsOverflow() {
        assertThatIllegalArgumentException().isThrownBy(() -> DurationParser.parse("99999999999999999999h"))
                .withMessageContaining("is too long");
    }

    @Test
    void formatsInTheShortestSpelling() {
        assertThat(DurationParser.format(Duration.ofMillis(200))).isEqualTo("200ms");
        assertThat(DurationParser.format(Duration.ofSeconds(90))).isEqualTo("1m30s");
        assertThat(DurationParser.format(Duration.ofHours(24))).isEqualTo("1d");
        assertThat(DurationParser.format(Duration.ZERO)).isEqualTo("0s");
    }

    @Test
    void formatThenParseIsTheIdentity() {
        for (Duration d : new Duration[] {Duration.ofMillis(1), Duration.ofMillis(61_001), Duration.ofDays(3).plusMinutes(1)}) {
            assertThat(DurationParser.parse(DurationParser.format(d))).isEqualTo(d);
        }
    }
}
