package dev.idemproxy.core.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.problem.Problem;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KeyResolverTest {
    private static final List<RequestPart> DERIVE = List.of(RequestPart.parse("method"), RequestPart.parse("path"),
            RequestPart.parse("header:X-Task-Id"), RequestPart.parse("body:/userId"), RequestPart.parse("body:/faultType"));

    private static KeyResolver resolver(List<RequestPart> derive, boolean required) {
        return new KeyResolver(new KeyPolicy("Idempotency-Key", derive, Duration.ofMinutes(10), required), new SplittableRandom(1));
    }

    private static KeyResolution client(String value) {
        return resolver(List.of(), false).resolve(TestRequest.post("/t").withHeader("Idempotency-Key", value));
    }

    // client keys

    @ParameterizedTest
    @ValueSource(strings = {"abc", "0f8fad5b-d9cb-469f-a165-70867728950e", "a:b/c=+~!#$%&'*.^_`|", "x"})
    void bareKeysOfVisibleAsciiAreAccepted(String key) {
        KeyResolution r = client(key);
        assertThat(r.kind()).isEqualTo(KeyResolution.Kind.CLIENT);
        assertThat(r.key()).isEqualTo(key);
        assertThat(r.headerValue()).isEqualTo(key);
        assertThat(r.derived()).isFalse();
        assertThat(r.problem()).isEmpty();
    }

    @Test
    void quotedKeysAreUnquotedButSentUpstreamUnchanged() {
        KeyResolution r = client("\"a \\\"quoted\\\" \\\\ key\"");
        assertThat(r.kind()).isEqualTo(KeyResolution.Kind.CLIENT);
        assertThat(r.key()).isEqualTo("a \"quoted\" \\ key");
        assertThat(r.headerValue()).isEqualTo("\"a \\\"quoted\\\" \\\\ key\"");
    }

    @Test
    void bareAndQuotedFormsOfOneKeyAreTheSameKey() {
        assertThat(client("\"k-1\"").storeKey()).isEqualTo(client("k-1").storeKey());
    }

    @Test
    void surroundingWhitespaceIsIgnored() {
        assertThat(client("  k-1\t").key()).isEqualTo("k-1");
    }

    @Test
    void keysOfExactly255CharactersAreAccepted() {
        assertThat(client("k".repeat(255)).kind()).isEqualTo(KeyResolution.Kind.CLIENT);
        assertThat(client("\"" + "k".repeat(255) + "\"").kind()).isEqualTo(KeyResolution.Kind.CLIENT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "\"\"", "a b", "a,b", "ké", "a\u0001b", "a\"b", "a\\b", "\"unterminated",
            "\"bad \\n escape\"", "\"x\"y", "\"x\" \"y\"", "\"tab\tinside\"", "\"é\"", "\"trailing\\\""})
    void malformedKeysAreBadRequests(String value) {
        KeyResolution r = client(value);
        assertThat(r.kind()).isEqualTo(KeyResolution.Kind.BAD);
        assertThat(r.hasKey()).isFalse();
        assertThat(r.problem()).contains(Problem.BAD_REQUEST);
        assertThat(r.detail()).contains("Idempotency-Key").contains("(expected:");
    }

    @Test
    void aKeySentOnTwoHeaderLinesIsABadRequestWhateverTheValues() {
        for (String[] lines : List.of(new String[] {"a", "b"}, new String[] {"same", "same"}, new String[] {"a", "b", "c"})) {
            KeyResolution r = resolver(DERIVE, false).resolve(TestRequest.post("/t")
                    .withHeaderLines("Idempotency-Key", lines).withHeader("X-Task-Id", "t1"));
            assertThat(r.kind()).isEqualTo(KeyResolution.Kind.BAD);
            assertThat(r.problem()).contains(Problem.BAD_REQUEST);
            assertThat(r.detail()).isEqualTo("Idempotency-Key was sent on " + lines.length
                    + " header lines (expected: one key on one line)");
        }
    }

    @Test
    void twoLinesOfTheConfiguredKeyHeaderAreABadRequestAndOtherHeadersMayRepeat() {
        KeyResolver r = new KeyResolver(new KeyPolicy("X-Request-Key", List.of(), Duration.ofMinutes(1), false), new SplittableRandom(1));
        assertThat(r.resolve(TestRequest.post("/t").withHeaderLines("x-request-key", "k1", "k2")).kind())
                .isEqualTo(KeyResolution.Kind.BAD);
        KeyResolution other = r.resolve(TestRequest.post("/t").withHeader("X-Request-Key", "k")
                .withHeaderLines("Idempotency-Key", "a", "b"));
        assertThat(other.kind()).isEqualTo(KeyResolution.Kind.CLIENT);
        assertThat(other.key()).isEqualTo("k");
    }

    @Test
    void keysLongerThan255CharactersAreBadRequests() {
        assertThat(client("k".repeat(256)).kind()).isEqualTo(KeyResolution.Kind.BAD);
        assertThat(client("\"" + "k".repeat(256) + "\"").detail()).contains("256 characters");
    }

    @Test
    void aBadClientKeyIsNeverReplacedByADerivedOne() {
        KeyResolution r = resolver(DERIVE, false).resolve(TestRequest.post("/t")
                .withHeader("Idempotency-Key", "bad key").withHeader("X-Task-Id", "t1"));
        assertThat(r.kind()).isEqualTo(KeyResolution.Kind.BAD);
    }

    @Test
    void theClientKeyWinsOverDerivation() {
        KeyResolution r = resolver(DERIVE, true).resolve(TestRequest.post("/t")
                .withHeader("Idempotency-Key", "mine").withHeader("X-Task-Id", "t1"));
        assertThat(r.kind()).isEqualTo(KeyResolution.Kind.CLIENT);
    }

    @Test
    void theKeyHeaderNameFollowsThePolicy() {
        KeyResolver r = new KeyResolver(new KeyPolicy("X-Request-Key", List.of(), Duration.ofMinutes(1), true), new SplittableRandom(1));
        assertThat(r.resolve(TestRequest.post("/t").withHeader("x-request-key", "k")).key()).isEqualTo("k");
        assertThat(r.resolve(TestRequest.post("/t").withHeader("Idempotency-Key", "k")).kind()).isEqualTo(KeyResolution.Kind.MISSING);
    }

    @Test
    void clientKeysAreStoredApartFromDerivedAndGeneratedOnes() {
        KeyResolution derived = resolver(DERIVE, false).resolve(TestRequest.post("/t").withHeader("X-Task-Id", "t1"));
        KeyResolution mimic = client(derived.key());
        assertThat(mimic.storeKey()).isNotEqualTo(derived.storeKey()).isEqualTo("c:" + derived.key());
        assertThat(derived.storeKey()).isEqualTo(derived.key());
    }

    // derived keys

    @Test
    void derivedKeysAreStableHexHashes() {
        TestRequest req = TestRequest.post("/tickets").withHeader("X-Task-Id", "task-9").withJson("{\"userId\":42,\"faultType\":\"disk\"}");
        KeyResolution a = resolver(DERIVE, false).resolve(req);
        KeyResolution b = resolver(DERIVE, false).resolve(req);
        assertThat(a.kind()).isEqualTo(KeyResolution.Kind.DERIVED);
        assertThat(a.derived()).isTrue();
        assertThat(a.key()).matches("d:[0-9a-f]{32}").isEqualTo(b.key());
        assertThat(a.headerValue()).isEqualTo(a.key());
    }

    @Test
    void derivedKeysIgnoreBodyFieldsNotNamedAndJsonLayout() {
        KeyResolver r = resolver(DERIVE, false);
        TestRequest one = TestRequest.post("/tickets").withHeader("X-Task-Id", "t")
                .withJson("{\"userId\":42,\"faultType\":\"disk\",\"note\":\"please\"}");
        TestRequest two = TestRequest.post("/tickets").withHeader("X-Task-Id", "t")
                .withJson("{ \"note\": \"PLEASE, reworded\", \"faultType\": \"disk\", \"userId\": 42.0 }");
        assertThat(r.resolve(one).key()).isEqualTo(r.resolve(two).key());
    }

    @Test
    void derivedKeysDifferWhenAnyPartDiffers() {
        KeyResolver r = resolver(DERIVE, false);
        TestRequest base = TestRequest.post("/tickets").withHeader("X-Task-Id", "t").withJson("{\"userId\":42,\"faultType\":\"disk\"}");
        String key = r.resolve(base).key();
        assertThat(r.resolve(base.withMethod("PUT")).key()).isNotEqualTo(key);
        assertThat(r.resolve(new TestRequest("POST", "/other", base.headers(), base.query(), base.body())).key()).isNotEqualTo(key);
        assertThat(r.resolve(base.withHeader("X-Task-Id", "u")).key()).isNotEqualTo(key);
        assertThat(r.resolve(base.withJson("{\"userId\":43,\"faultType\":\"disk\"}")).key()).isNotEqualTo(key);
        assertThat(r.resolve(base.withJson("{\"userId\":\"42\",\"faultType\":\"disk\"}")).key())
                .as("the string \"42\" is not the number 42").isNotEqualTo(key);
    }

    @Test
    void aDerivedKeysHeaderPartTakesEveryLineInOrder() {
        KeyResolver r = resolver(DERIVE, false);
        TestRequest one = TestRequest.post("/tickets").withHeader("X-Task-Id", "t1");
        String key = r.resolve(one).key();
        assertThat(r.resolve(one.withHeaderLines("X-Task-Id", "t1", "t2")).key()).isNotEqualTo(key);
        assertThat(r.resolve(one.withHeaderLines("X-Task-Id", "t1", "t2")).key())
                .isNotEqualTo(r.resolve(one.withHeaderLines("X-Task-Id", "t2", "t1")).key())
                .isNotEqualTo(r.resolve(one.withHeader("X-Task-Id", "t1, t2")).key())
                .isEqualTo(r.resolve(one.withHeaderLines("X-Task-Id", "t1", "t2")).key());
    }

    @Test
    void anAbsentPartDiffersFromAnEmptyOne() {
        KeyResolver r = resolver(List.of(RequestPart.parse("header:A"), RequestPart.parse("header:B")), false);
        assertThat(r.resolve(TestRequest.post("/").withHeader("A", "x")).key())
                .isNotEqualTo(r.resolve(TestRequest.post("/").withHeader("A", "x").withHeader("B", "")).key());
    }

    @Test
    void queryParametersCanBeDerivedFrom() {
        KeyResolver r = resolver(List.of(RequestPart.parse("path"), RequestPart.parse("query:op")), false);
        assertThat(r.resolve(TestRequest.post("/").withQuery("op", "1")).kind()).isEqualTo(KeyResolution.Kind.DERIVED);
        assertThat(r.resolve(TestRequest.post("/").withQuery("op", "1")).key())
                .isNotEqualTo(r.resolve(TestRequest.post("/").withQuery("op", "2")).key());
    }

    @Test
    void methodAndPathAloneNeverMakeADerivedKey() {
        KeyResolver r = resolver(DERIVE, false);
        KeyResolution k = r.resolve(TestRequest.post("/tickets").withJson("{\"other\":1}"));
        assertThat(k.kind()).isEqualTo(KeyResolution.Kind.GENERATED);
        KeyResolver methodPath = resolver(List.of(RequestPart.parse("method"), RequestPart.parse("path"), RequestPart.parse("body")), false);
        assertThat(methodPath.resolve(TestRequest.post("/tickets")).kind()).isEqualTo(KeyResolution.Kind.GENERATED);
        assertThat(methodPath.resolve(TestRequest.post("/tickets").withBody("x")).kind()).isEqualTo(KeyResolution.Kind.DERIVED);
    }

    // the default: [method, path, body]

    @Test
    void byDefaultAKeylessCallIsKeyedByItsMethodPathAndBody() {
        KeyResolver r = new KeyResolver(KeyPolicy.DEFAULT, new SplittableRandom(1));
        TestRequest call = TestRequest.post("/v1/chat/completions").withJson("{\"model\":\"m\",\"messages\":[{\"role\":\"user\"}]}");
        KeyResolution k = r.resolve(call);
        assertThat(KeyPolicy.DEFAULT.derive()).containsExactly(RequestPart.parse("method"), RequestPart.parse("path"),
                RequestPart.parse("body"));
        assertThat(KeyPolicy.DEFAULT.window()).isEqualTo(Duration.ofMinutes(10));
        assertThat(k.kind()).isEqualTo(KeyResolution.Kind.DERIVED);
        assertThat(k.key()).startsWith("d:").isEqualTo(r.resolve(call).key())
                .as("canonical JSON").isEqualTo(r.resolve(TestRequest.post("/v1/chat/completions")
                        .withJson("{ \"messages\" : [ { \"role\" : \"user\" } ], \"model\" : \"m\" }")).key());
        assertThat(r.resolve(call.withMethod("PUT")).key()).isNotEqualTo(k.key());
        assertThat(r.resolve(new TestRequest("POST", "/v1/embeddings", call.headers(), call.query(), call.body())).key())
                .isNotEqualTo(k.key());
        assertThat(r.resolve(call.withJson("{\"model\":\"m\",\"messages\":[]}")).key()).isNotEqualTo(k.key());
        assertThat(r.resolve(TestRequest.post("/t").withHeader("Content-Type", "text/plain").withBody("same bytes")).key())
                .as("a body that is not JSON, as sent").isEqualTo(r.resolve(TestRequest.post("/t").withBody("same bytes")).key());
        assertThat(r.resolve(TestRequest.post("/t")).kind()).as("no body: nothing to tell calls apart")
                .isEqualTo(KeyResolution.Kind.GENERATED);
        assertThat(r.resolve(call.withHeader("Idempotency-Key", "mine")).kind()).isEqualTo(KeyResolution.Kind.CLIENT);
    }

    @Test
    void anEmptyDeriveListTurnsDerivationOffSoEachKeylessCallGetsItsOwnKey() {
        KeyResolver r = resolver(List.of(), false);
        TestRequest call = TestRequest.post("/t").withJson("{\"a\":1}");
        KeyResolution a = r.resolve(call);
        assertThat(a.kind()).isEqualTo(KeyResolution.Kind.GENERATED);
        assertThat(r.resolve(call).key()).isNotEqualTo(a.key());
    }

    // missing and generated

    @Test
    void requiredWithNoKeyIsMissing() {
        KeyResolution r = resolver(DERIVE, true).resolve(TestRequest.post("/t"));
        assertThat(r.kind()).isEqualTo(KeyResolution.Kind.MISSING);
        assertThat(r.problem()).contains(Problem.MISSING_IDEMPOTENCY_KEY);
        assertThat(r.detail()).contains("Idempotency-Key");
    }

    @Test
    void requiredIsSatisfiedByADerivedKey() {
        assertThat(resolver(DERIVE, true).resolve(TestRequest.post("/t").withHeader("X-Task-Id", "t")).kind())
                .isEqualTo(KeyResolution.Kind.DERIVED);
    }

    @Test
    void withNoKeyAndNotRequiredAKeyIsGeneratedPerCall() {
        KeyResolver r = resolver(List.of(), false);
        KeyResolution a = r.resolve(TestRequest.post("/t"));
        KeyResolution b = r.resolve(TestRequest.post("/t"));
        assertThat(a.kind()).isEqualTo(KeyResolution.Kind.GENERATED);
        assertThat(a.key()).startsWith("g:").isNotEqualTo(b.key());
        UUID uuid = UUID.fromString(a.key().substring(2));
        assertThat(uuid.version()).isEqualTo(4);
        assertThat(uuid.variant()).isEqualTo(2);
        assertThat(a.storeKey()).isEqualTo(a.key());
    }

    @Test
    void generatedKeysFollowTheSeed() {
        KeyResolver a = new KeyResolver(KeyPolicy.DEFAULT, new SplittableRandom(5));
        KeyResolver b = new KeyResolver(KeyPolicy.DEFAULT, new SplittableRandom(5));
        assertThat(a.resolve(TestRequest.post("/")).key()).isEqualTo(b.resolve(TestRequest.post("/")).key());
    }
}
