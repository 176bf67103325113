package dev.idemproxy.core.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FingerprintTest {
    private static final List<RequestPart> BODY = List.of(RequestPart.parse("body"));

    private static Fingerprint body(TestRequest r) {
        return Fingerprint.of(BODY, r);
    }

    @Test
    void jsonBodiesMatchWhateverTheirKeyOrderAndWhitespace() {
        assertThat(body(TestRequest.post("/").withJson("{\"a\":1,\"b\":[1,2]}")))
                .isEqualTo(body(TestRequest.post("/").withJson("{\n  \"b\" : [ 1, 2 ],\n  \"a\" : 1.0\n}")));
    }

    @Test
    void jsonBodiesWithDifferentValuesDiffer() {
        assertThat(body(TestRequest.post("/").withJson("{\"a\":1}"))).isNotEqualTo(body(TestRequest.post("/").withJson("{\"a\":2}")));
        assertThat(body(TestRequest.post("/").withJson("{\"a\":[1,2]}"))).isNotEqualTo(body(TestRequest.post("/").withJson("{\"a\":[2,1]}")));
    }

    @Test
    void nonJsonBodiesAreHashedAsSent() {
        TestRequest text = TestRequest.post("/").withHeader("Content-Type", "text/plain");
        assertThat(body(text.withBody("{\"a\":1,\"b\":2}"))).isNotEqualTo(body(text.withBody("{\"b\":2,\"a\":1}")));
        assertThat(body(text.withBody("same"))).isEqualTo(body(text.withBody("same")));
    }

    @Test
    void aJsonContentTypeWithABodyThatDoesNotParseIsHashedAsSent() {
        Fingerprint broken = body(TestRequest.post("/").withJson("{\"a\":"));
        assertThat(broken).isEqualTo(body(TestRequest.post("/").withJson("{\"a\":")));
        assertThat(broken).isNotEqualTo(body(TestRequest.post("/").withJson("{\"a\": ")));
    }

    @Test
    void pointerPartsCompareOnlyWhatTheyName() {
        List<RequestPart> parts = List.of(RequestPart.parse("body:/amount"), RequestPart.parse("header:X-Account"));
        TestRequest a = TestRequest.post("/").withHeader("X-Account", "acc").withJson("{\"amount\":10,\"memo\":\"one\"}");
        TestRequest b = TestRequest.post("/").withHeader("X-Account", "acc").withJson("{\"memo\":\"two\",\"amount\":10.00}");
        assertThat(Fingerprint.of(parts, a)).isEqualTo(Fingerprint.of(parts, b));
        assertThat(Fingerprint.of(parts, a)).isNotEqualTo(Fingerprint.of(parts, b.withHeader("X-Account", "other")));
    }

    @Test
    void aHeaderPartOfAFingerprintTakesEveryLine() {
        List<RequestPart> parts = List.of(RequestPart.parse("body"), RequestPart.parse("header:X-Account"));
        TestRequest one = TestRequest.post("/").withHeader("X-Account", "acc").withJson("{}");
        assertThat(Fingerprint.of(parts, one)).isNotEqualTo(Fingerprint.of(parts, one.withHeaderLines("X-Account", "acc", "other")));
        assertThat(Fingerprint.of(parts, one.withHeaderLines("X-Account", "acc", "other")))
                .isEqualTo(Fingerprint.of(parts, one.withHeaderLines("X-Account", "acc", "other")))
                .isNotEqualTo(Fingerprint.of(parts, one.withHeader("X-Account", "acc, other")));
    }

    @Test
    void fingerprintsAreSha256Hex() {
        assertThat(body(TestRequest.post("/")).value()).matches("[0-9a-f]{64}");
        assertThatThrownBy(() -> new Fingerprint("xyz")).hasMessageContaining("(expected: 64 lower-case hex digits)");
    }

    @Test
    void aFingerprintIsNotAScopeOfTheSameParts() {
        TestRequest r = TestRequest.post("/").withHeader("Authorization", "Bearer t");
        List<RequestPart> parts = List.of(RequestPart.parse("header:Authorization"));
        assertThat(Fingerprint.of(parts, r).value()).doesNotStartWith(Scope.of(parts, r).hash());
    }

    @Test
    void defaultPartsAreTheBodyForClientKeysAndTheDerivePartsForDerivedKeys() {
        List<RequestPart> derive = List.of(RequestPart.parse("header:X-Task-Id"), RequestPart.parse("body:/userId"));
        IdempotencyPolicy policy = policy(derive, List.of());
        assertThat(Fingerprint.parts(policy, false)).isEqualTo(BODY);
        assertThat(Fingerprint.parts(policy, true)).isEqualTo(derive);
        IdempotencyPolicy configured = policy(derive, List.of(RequestPart.parse("body:/amount")));
        assertThat(Fingerprint.parts(configured, true)).containsExactly(RequestPart.parse("body:/amount"));
        assertThat(Fingerprint.parts(policy(List.of(), List.of()), true)).isEqualTo(BODY);
    }

    @Test
    void aDerivedKeysDefaultFingerprintToleratesRewordedFreeText() {
        List<RequestPart> derive = List.of(RequestPart.parse("header:X-Task-Id"), RequestPart.parse("body:/userId"));
        IdempotencyPolicy policy = policy(derive, List.of());
        KeyResolver resolver = new KeyResolver(policy.key(), new SplittableRandom(1));
        TestRequest first = TestRequest.post("/").withHeader("X-Task-Id", "t").withJson("{\"userId\":1,\"text\":\"hi\"}");
        TestRequest reworded = TestRequest.post("/").withHeader("X-Task-Id", "t").withJson("{\"userId\":1,\"text\":\"hello\"}");
        KeyResolution k1 = resolver.resolve(first);
        KeyResolution k2 = resolver.resolve(reworded);
        assertThat(k1.key()).isEqualTo(k2.key());
        assertThat(Fingerprint.of(policy, k1, first)).isEqualTo(Fingerprint.of(policy, k2, reworded));
    }

    private static IdempotencyPolicy policy(List<RequestPart> derive, List<RequestPart> fingerprint) {
        IdempotencyPolicy d = IdempotencyPolicy.DISABLED;
        return new IdempotencyPolicy(true, d.methods(), new KeyPolicy("Idempotency-Key", derive, Duration.ofMinutes(10), false),
                d.scope(), fingerprint, d.ttl(), d.lease(), d.onConcurrent(), d.waitTimeout(), d.maxRequestBody(), d.maxResponseBody());
    }

    private static final String[] METHODS = {"POST", "PUT", "HEAD", "GET"};

    // a record belongs to one endpoint (docs/security.md)

    private static final KeyResolution CLIENT_KEY = KeyResolver.parseClientKey("Idempotency-Key", "k");

    @Test
    void aRoutesFingerprintAlwaysTakesTheMethodAndPath() {
        IdempotencyPolicy policy = policy(List.of(), List.of());
        TestRequest post = TestRequest.post("/tickets").withJson("{\"a\":1}");
        Fingerprint f = Fingerprint.of(policy, CLIENT_KEY, post);
        assertThat(Fingerprint.of(policy, CLIENT_KEY, TestRequest.post("/tickets").withJson("{ \"a\" : 1 }"))).isEqualTo(f);
        assertThat(Fingerprint.of(policy, CLIENT_KEY, post.withMethod("PUT"))).isNotEqualTo(f);
        assertThat(Fingerprint.of(policy, CLIENT_KEY, TestRequest.post("/tickets/2").withJson("{\"a\":1}"))).isNotEqualTo(f);
        assertThat(Fingerprint.of(policy, CLIENT_KEY, post.withMethod("HEAD")))
                .isNotEqualTo(Fingerprint.of(policy, CLIENT_KEY, post.withMethod("GET")));
        IdempotencyPolicy explicit = policy(List.of(), List.of(RequestPart.parse("body:/a")));
        assertThat(Fingerprint.of(explicit, CLIENT_KEY, post.withMethod("PATCH")))
                .as("whatever parts are configured").isNotEqualTo(Fingerprint.of(explicit, CLIENT_KEY, post));
    }

    @Test
    void theEndpointFingerprintNeverMatchesTheLegacyOne() {
        IdempotencyPolicy policy = policy(List.of(), List.of());
        for (String method : METHODS) {
            TestRequest r = TestRequest.post("/tickets").withMethod(method).withJson("{\"a\":1}");
            assertThat(Fingerprint.legacy(policy, false, r)).as(method).isEqualTo(Fingerprint.of(BODY, r))
                    .isNotEqualTo(Fingerprint.of(policy, false, r));
        }
        // The same parts hashed under the old purpose: a record written before can only match the legacy fingerprint.
        TestRequest r = TestRequest.post("/tickets").withJson("{}");
        assertThat(Fingerprint.of(policy, false, r))
                .isNotEqualTo(Fingerprint.of(List.of(RequestPart.parse("method"), RequestPart.parse("path"), RequestPart.parse("body")), r));
    }

    @Test
    void configuredMethodAndPathPartsAreNotHashedTwice() {
        List<RequestPart> derive = List.of(RequestPart.parse("path"), RequestPart.parse("method"), RequestPart.parse("body"));
        IdempotencyPolicy derived = policy(derive, List.of());
        IdempotencyPolicy bodyOnly = policy(List.of(), List.of());
        TestRequest r = TestRequest.post("/tickets").withJson("{\"a\":1}");
        assertThat(Fingerprint.of(derived, true, r)).isEqualTo(Fingerprint.of(bodyOnly, false, r));
        assertThat(Fingerprint.endpointAnd(derive)).containsExactly(RequestPart.parse("method"), RequestPart.parse("path"),
                RequestPart.parse("body"));
    }

    @Test
    void aConnectionsMemoGivesWhatOfGivesForARoutesFingerprint() {
        List<IdempotencyPolicy> policies = List.of(policy(List.of(), List.of()),
                policy(List.of(RequestPart.parse("method"), RequestPart.parse("path"), RequestPart.parse("body")), List.of()),
                policy(List.of(), List.of(RequestPart.parse("body:/a"))));
        KeyResolution derivedKey = new KeyResolution(KeyResolution.Kind.DERIVED, "d:1", "d:1", null);
        SplittableRandom rnd = new SplittableRandom(7);
        Fingerprint.Memo memo = new Fingerprint.Memo();
        for (int i = 0; i < 2_000; i++) {
            IdempotencyPolicy policy = policies.get(rnd.nextInt(policies.size()));
            KeyResolution key = rnd.nextBoolean() ? CLIENT_KEY : derivedKey;
            TestRequest r = TestRequest.post("/p" + rnd.nextInt(2)).withMethod(METHODS[rnd.nextInt(METHODS.length)])
                    .withJson(rnd.nextBoolean() ? "{\"a\":1}" : "{\"a\":2}");
            if (rnd.nextInt(4) == 0) {
                assertThat(memo.of(BODY, r)).isEqualTo(Fingerprint.of(BODY, r));
            }
            assertThat(memo.of(policy, key, r)).as("request %d", i).isEqualTo(Fingerprint.of(policy, key, r));
        }
    }


    @Test
    void aHeadIsFingerprintedApartFromEveryOtherMethodWhateverTheParts() {
        // Its record holds no body: replayed to a GET it would answer with an empty one.
        for (List<RequestPart> parts : List.of(BODY, List.of(RequestPart.parse("path")))) {
            Fingerprint head = Fingerprint.of(parts, TestRequest.post("/r").withMethod("HEAD"));
            assertThat(head).isEqualTo(Fingerprint.of(parts, TestRequest.post("/r").withMethod("HEAD")));
            assertThat(head).isNotEqualTo(Fingerprint.of(parts, TestRequest.post("/r").withMethod("GET")));
            assertThat(head).isNotEqualTo(Fingerprint.of(parts, TestRequest.post("/r")));
        }
        // Other methods still share one fingerprint unless the parts name the method, as before.
        assertThat(body(TestRequest.post("/r").withMethod("GET"))).isEqualTo(body(TestRequest.post("/r")));
    }

    @Test
    void aConnectionsMemoGivesWhatOfGivesWhateverTheSequence() {
        List<RequestPart> bodyAgain = List.of(RequestPart.parse("body"));
        List<RequestPart> pointer = List.of(RequestPart.parse("body:/a"));
        List<RequestPart> mixed = List.of(RequestPart.parse("body"), RequestPart.parse("header:X-Tenant"));
        List<RequestPart> method = List.of(RequestPart.parse("method"), RequestPart.parse("path"));
        String[] bodies = {"", "{\"a\":1}", "{ \"a\" : 1 }", "{\"a\":2}", "{\"a\":", "x".repeat(PartHasher.Memo.MAX_KEPT + 1)};
        String[] types = {null, "application/json", "text/plain"};
        String[] tenants = {null, "t1", "t2"};
        SplittableRandom rnd = new SplittableRandom(5);
        Fingerprint.Memo memo = new Fingerprint.Memo();
        for (int i = 0; i < 3_000; i++) {
            List<RequestPart> parts = switch (rnd.nextInt(5)) {
                case 0 -> BODY;
                case 1 -> bodyAgain;
                case 2 -> pointer;
                case 3 -> mixed;
                default -> method;
            };
            TestRequest r = TestRequest.post("/p" + rnd.nextInt(2)).withMethod(METHODS[rnd.nextInt(METHODS.length)])
                    .withBody(bodies[rnd.nextInt(bodies.length)]);
            String type = types[rnd.nextInt(types.length)];
            String tenant = tenants[rnd.nextInt(tenants.length)];
            if (type != null) {
                r = r.withHeader("Content-Type", type);
            }
            if (tenant != null) {
                r = r.withHeader("X-Tenant", tenant);
            }
            assertThat(memo.of(parts, r)).as("request %d: %s / %s / %s", i, parts, type, tenant).isEqualTo(Fingerprint.of(parts, r));
        }
    }
}
