package dev.idemproxy.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

class SizeParserTest {

    @Test
    void parsesPlainBytesAndBinaryUnits() {
        assertThat(SizeParser.parse("1024")).isEqualTo(1024);
        assertThat(SizeParser.parse("100B")).isEqualTo(100);
        assertThat(SizeParser.parse("512KiB")).isEqualTo(512 * 1024);
        assertThat(SizeParser.parse("4MiB")).isEqualTo(4 * 1024 * 1024);
        assertThat(SizeParser.parse("1GiB")).isEqualTo(1024L * 1024 * 1024);
        assertThat(SizeParser.parse("4 MiB")).isEqualTo(4 * 1024 * 1024);
    }

    @Test
    void rejectsEverythingElseSayingWhatWasExpected() {
        for (String bad : new String[] {"4MB", "1.5MiB", "-1", "", "MiB", "4mib", "1TiB"}) {
            assertThatIllegalArgumentException().isThrownBy(() -> SizeParser.parse(bad))
                    .withMessage("expected a size such as 1024, 512KiB, 4MiB, 1GiB, got '" + bad + "'");
        }
    }

    @Test
    void rejectsOverflow() {
        assertThatIllegalArgumentException().isThrownBy(() -> SizeParser.parse("99999999999GiB"))
                .withMessageContaining("is too large");
    }

    @Test
    void formatsWithTheLargestExactUnit() {
        assertThat(SizeParser.format(4 * 1024 * 1024)).isEqualTo("4MiB");
        assertThat(SizeParser.format(1536)).isEqualTo("1536");
        assertThat(SizeParser.format(16 * 1024)).isEqualTo("16KiB");
        assertThat(SizeParser.format(0)).isEqualTo("0");
    }
}
