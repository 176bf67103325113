package dev.idemproxy.core.util;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LogValuesTest {
    private static final JsonFactory JSON = new JsonFactory();

    @Test
    void plainValuesAreWrittenAsTheyAre() {
        for (String v : new String[] {"k-1", "order-42", "/api/tickets?page&x", "über", "東京", "\uD83D\uDE00", "a-", "--"}) {
            assertThat(LogValues.of(v)).isSameAs(v);
        }
        assertThat(LogValues.of(null)).isEqualTo("-");
    }

    @Test
    void aValueThatCouldForgeAFieldIsQuotedWithJsonEscaping() {
        assertThat(LogValues.of("order 42")).isEqualTo("\"order 42\"");
        assertThat(LogValues.of("a]b")).isEqualTo("\"a]b\"");
        assertThat(LogValues.of("x status=200")).isEqualTo("\"x status=200\"");
        assertThat(LogValues.of("/a?page=2")).as("an = too").isEqualTo("\"/a?page=2\"");
        assertThat(LogValues.of("say \"hi\"")).isEqualTo("\"say \\\"hi\\\"\"");
        assertThat(LogValues.of("C:\\dir")).isEqualTo("\"C:\\\\dir\"");
        assertThat(LogValues.of("")).isEqualTo("\"\"");
        assertThat(LogValues.of("-")).as("a literal dash is not 'none'").isEqualTo("\"-\"");
        assertThat(LogValues.of("a\u00A0b")).as("a no-break space is a space").isEqualTo("\"a\u00A0b\"");
    }

    @Test
    void everyControlCharacterIsEscapedAsAUnicodeEscape() {
        assertThat(LogValues.of("a\nb")).isEqualTo("\"a\\u000ab\"");
        assertThat(LogValues.of("a\rb\tc")).isEqualTo("\"a\\u000db\\u0009c\"");
        assertThat(LogValues.of("a\u007fb")).isEqualTo("\"a\\u007fb\"");
        assertThat(LogValues.of("a\u0085b\u009fc")).isEqualTo("\"a\\u0085b\\u009fc\"");
        assertThat(LogValues.of("a\u2028b\u2029c")).isEqualTo("\"a\\u2028b\\u2029c\"");
        assertThat(LogValues.of("a\uD800b")).as("half a surrogate pair").isEqualTo("\"a\\ud800b\"");
    }

    @Test
    void aQuotedValueReadsBackAsAJsonStringOfTheSameText() throws Exception {
        SplittableRandom random = new SplittableRandom(34);
        char[] alphabet = "aZ0 -=]\"\\\n\r\t\u0000\u007f\u0085\u009f\u00a0é東\u2028\u2029\uD800\uDC00[".toCharArray();
        for (int round = 0; round < 2_000; round++) {
            StringBuilder sb = new StringBuilder();
            for (int i = random.nextInt(20); i > 0; i--) {
                sb.append(alphabet[random.nextInt(alphabet.length)]);
            }
            String v = sb.toString();
            String shown = LogValues.of(v);
            for (char c : shown.toCharArray()) {
                assertThat(LogValues.isControl(c)).as("no control character in %s", shown).isFalse();
            }
            if (shown.startsWith("\"")) {
                try (JsonParser p = JSON.createParser(shown)) {
                    p.nextToken();
                    assertThat(p.getText()).isEqualTo(v);
                }
            } else {
                assertThat(shown).isEqualTo(v).doesNotContain(" ", "]", "=", "\"", "\\");
            }
        }
    }
}
