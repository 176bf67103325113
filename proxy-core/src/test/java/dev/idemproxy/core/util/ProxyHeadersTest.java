package dev.idemproxy.core.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idemproxy.core.call.CallIdentity;
import io.netty.handler.codec.DefaultHeaders.NameValidator;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ProxyHeadersTest {
    static final NameValidator<CharSequence> NETTY = DefaultHttpHeadersFactory.headersFactory().getNameValidator();

    static boolean accepts(NameValidator<CharSequence> v, CharSequence name) {
        try {
            v.validateName(name);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    @Test
    void everySingleCharacterIsJudgedAsNettyJudgesIt() {
        int accepted = 0;
        for (int c = 0; c < 0x400; c++) {
            String s = String.valueOf((char) c);
            assertThat(accepts(ProxyHeaders.NAME_CHECK, s)).as("char 0x%x", c).isEqualTo(accepts(NETTY, s));
            if (c < 0x100) {
                AsciiString a = new AsciiString(new byte[] {(byte) c}, false);
                assertThat(accepts(ProxyHeaders.NAME_CHECK, a)).as("byte 0x%x", c).isEqualTo(accepts(NETTY, a));
                accepted += accepts(ProxyHeaders.NAME_CHECK, a) ? 1 : 0;
            }
        }
        // RFC 9110 tchar: 15 symbols, 10 digits, 52 letters.
        assertThat(accepted).isEqualTo(77);
    }

    @Test
    void randomNamesAreJudgedAsNettyJudgesThem() {
        Random rnd = new Random(42);
        String alphabet = "aZ09-_.!~ @:()/\"\t\u00e9\u0100";
        int refused = 0;
        for (int i = 0; i < 5_000; i++) {
            StringBuilder sb = new StringBuilder();
            for (int n = 1 + rnd.nextInt(12); n > 0; n--) {
                sb.append(rnd.nextInt(4) == 0 ? alphabet.charAt(rnd.nextInt(alphabet.length())) : (char) ('a' + rnd.nextInt(26)));
            }
            String s = sb.toString();
            boolean netty = accepts(NETTY, s);
            assertThat(accepts(ProxyHeaders.NAME_CHECK, s)).as(s).isEqualTo(netty);
            if (s.chars().allMatch(ch -> ch < 0x100)) {
                AsciiString a = new AsciiString(s.getBytes(StandardCharsets.ISO_8859_1), false);
                assertThat(accepts(ProxyHeaders.NAME_CHECK, a)).as(s).isEqualTo(netty);
            }
            refused += netty ? 0 : 1;
        }
        assertThat(refused).isBetween(500, 4_500);  // both outcomes are exercised
    }

    @Test
    void isTokenAgreesWithTheCheck() {
        for (String s : new String[] {"X-Ok", "a", "~", "", "X Bad", "X-Bad@", "X-\u00e9", "X-\u0100"}) {
            assertThat(ProxyHeaders.isToken(s)).as(s).isEqualTo(accepts(NETTY, s));
        }
        assertThat(ProxyHeaders.isToken(null)).isFalse();
    }

    @Test
    void anAsciiStringIsReadFromItsOffsetOnly() {
        AsciiString whole = new AsciiString("@@x-good@@");
        assertThat(accepts(ProxyHeaders.NAME_CHECK, whole.subSequence(2, 8, false))).isTrue();
        assertThat(accepts(ProxyHeaders.NAME_CHECK, whole.subSequence(1, 8, false))).isFalse();
        assertThat(accepts(ProxyHeaders.NAME_CHECK, whole.subSequence(2, 9, false))).isFalse();
    }

    @Test
    void emptyAndNullNamesAreRefused() {
        assertThatThrownBy(() -> ProxyHeaders.NAME_CHECK.validateName("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProxyHeaders.NAME_CHECK.validateName(AsciiString.EMPTY_STRING))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProxyHeaders.NAME_CHECK.validateName(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void onlyTheConstantsThemselvesSkipTheCheck() {
        assertThat(accepts(NETTY, CallIdentity.X_CALL_ID)).isTrue();
        assertThat(accepts(NETTY, ProxyHeaders.X_FORWARDED_FOR)).isTrue();
        // An equal but distinct string is checked in full, and a bad one refused.
        assertThat(accepts(ProxyHeaders.NAME_CHECK, new AsciiString("X-Call-Id"))).isTrue();
        assertThat(accepts(ProxyHeaders.NAME_CHECK, new AsciiString("X-Call Id"))).isFalse();
    }

    @Test
    void headersFromTheFactoryUseTheCheck() {
        HttpHeaders h = ProxyHeaders.HEADERS.newHeaders();
        h.set(ProxyHeaders.X_FORWARDED_PROTO, "http").add("X-Ok", "1");
        assertThatThrownBy(() -> h.add("X-Bad@Name", "1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0x40 at index 5");
        assertThat(h.names()).containsExactlyInAnyOrder("x-forwarded-proto", "X-Ok");
    }
}
