package dev.idemproxy.core.secret;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RedactorTest {
    private final Redactor configured = Redactor.of(List.of("X-Auth-Token"), List.of("sig"));

    @Test
    void credentialHeadersAndConfiguredOnesAreSecretInAnyCase() {
        for (String name : List.of("Authorization", "proxy-authorization", "COOKIE", "x-api-key", "Api-Key", "x-auth-token")) {
            assertThat(configured.isSecretHeader(name)).as(name).isTrue();
            assertThat(configured.header(name, "v")).isEqualTo("***");
        }
        assertThat(configured.isSecretHeader("Content-Type")).isFalse();
        assertThat(configured.header("Content-Type", "text/plain")).isEqualTo("text/plain");
        assertThat(Redactor.BUILT_IN.isSecretHeader("X-Auth-Token")).isFalse();
        assertThat(configured.secretHeaders())
                .containsExactly("Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "Api-Key", "X-Auth-Token");
    }

    @Test
    void secretQueryParameterValuesAreMaskedAndTheRestKeptByteForByte() {
        assertThat(configured.target("/pay?amount=5&api_key=abc&KEY=k1;Token=t&sig=s9&signature=zz&next=%2Fa#frag"))
                .isEqualTo("/pay?amount=5&api_key=***&KEY=***;Token=***&sig=***&signature=***&next=%2Fa#frag");
        assertThat(configured.target("/p?access_token=a&apikey=b&password=c&secret=d&token"))
                .isEqualTo("/p?access_token=***&apikey=***&password=***&secret=***&token");
        assertThat(Redactor.BUILT_IN.target("/p?sig=s9")).isEqualTo("/p?sig=s9");
    }

    @Test
    void percentEncodedNamesAreRecognised() {
        assertThat(Redactor.BUILT_IN.target("/p?api%5Fkey=abc&%74oken=t")).isEqualTo("/p?api%5Fkey=***&%74oken=***");
    }

    @Test
    void nothingToHideGivesTheSameString() {
        String plain = "/api/tickets/42";
        assertThat(Redactor.BUILT_IN.target(plain)).isSameAs(plain);
        String query = "/api/tickets?page=2&key=";
        assertThat(Redactor.BUILT_IN.target(query)).isSameAs(query);
        String text = "no route for POST tickets.internal/api";
        assertThat(Redactor.BUILT_IN.text(text)).isSameAs(text);
        String url = "https://tickets.internal:8443/api";
        assertThat(Redactor.BUILT_IN.url(url)).isSameAs(url);
        assertThat(Redactor.BUILT_IN.target(null)).isNull();
        assertThat(Redactor.BUILT_IN.url(null)).isNull();
        assertThat(Redactor.BUILT_IN.text(null)).isNull();
    }

    @Test
    void allOfTheUserInfoOfAUrlIsMasked() {
        assertThat(Redactor.BUILT_IN.url("http://alice:s3cret@tickets.internal:8443/api"))
                .isEqualTo("http://***@tickets.internal:8443/api");
        assertThat(Redactor.BUILT_IN.url("redis://:pw@cache:6379/0")).isEqualTo("redis://***@cache:6379/0");
        assertThat(Redactor.BUILT_IN.url("redis-sentinel://u:p@s1:26379,s2:26379/0#mymaster"))
                .isEqualTo("redis-sentinel://***@s1:26379,s2:26379/0#mymaster");
        assertThat(Redactor.BUILT_IN.url("rediss://user@cache")).isEqualTo("rediss://***@cache");
        // an @ in the path is no user-info
        assertThat(Redactor.BUILT_IN.url("http://h/users/@me")).isEqualTo("http://h/users/@me");
    }

    @Test
    void aUrlsQueryIsRedactedTooAsInAReceiptTemplate() {
        assertThat(configured.url("https://u:p@tickets.internal:8443/receipts/{callId}?api_key=abc&sig=x&v=1"))
                .isEqualTo("https://***@tickets.internal:8443/receipts/{callId}?api_key=***&sig=***&v=1");
        assertThat(configured.url("https://h/r?token=t")).isEqualTo("https://h/r?token=***");
    }

    @Test
    void urlsAndTargetsInFreeTextAreRedacted() {
        assertThat(configured.text("upstream 'http://bob:pw@h:99999/x?sig=1' is not a URI (expected: a URI)"))
                .isEqualTo("upstream 'http://***@h:99999/x?sig=***' is not a URI (expected: a URI)");
        assertThat(Redactor.BUILT_IN.text("GET /a?token=t1 failed; see \"redis://:p@h\"\nand <https://x/?key=k>"))
                .isEqualTo("GET /a?token=*** failed; see \"redis://***@h\"\nand <https://x/?key=***>");
        assertThat(Redactor.BUILT_IN.text("what? nothing=here")).isEqualTo("what? nothing=here");
    }

    @Test
    void noConfiguredNamesIsTheBuiltInRules() {
        assertThat(Redactor.of(List.of(), List.of())).isSameAs(Redactor.BUILT_IN);
    }
}
