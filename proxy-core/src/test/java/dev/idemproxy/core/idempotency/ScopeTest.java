package dev.idemproxy.core.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ScopeTest {
    private static final List<RequestPart> AUTH = List.of(RequestPart.parse("header:Authorization"));

    @Test
    void differentPrincipalsHaveDifferentScopes() {
        assertThat(Scope.of(AUTH, TestRequest.post("/").withHeader("Authorization", "Bearer alice")))
                .isNotEqualTo(Scope.of(AUTH, TestRequest.post("/").withHeader("Authorization", "Bearer bob")));
    }

    @Test
    void thePrincipalsScopeIsStable() {
        assertThat(Scope.of(AUTH, TestRequest.post("/a").withHeader("Authorization", "Bearer alice")))
                .isEqualTo(Scope.of(AUTH, TestRequest.post("/b").withHeader("authorization", "Bearer alice")));
    }

    @Test
    void theScopeNeverContainsTheValue() {
        Scope s = Scope.of(AUTH, TestRequest.post("/").withHeader("Authorization", "Bearer secret-token"));
        assertThat(s.hash()).matches("[0-9a-f]{32}").doesNotContain("secret");
        assertThat(s.toString()).isEqualTo(s.hash());
    }

    @Test
    void anonymousCallersShareOneScopeApartFromAnEmptyCredential() {
        Scope none = Scope.of(AUTH, TestRequest.post("/"));
        assertThat(Scope.of(AUTH, TestRequest.post("/x"))).isEqualTo(none);
        assertThat(Scope.of(AUTH, TestRequest.post("/").withHeader("Authorization", ""))).isNotEqualTo(none);
    }

    @Test
    void severalPartsAreUnambiguous() {
        List<RequestPart> two = List.of(RequestPart.parse("header:A"), RequestPart.parse("header:B"));
        assertThat(Scope.of(two, TestRequest.post("/").withHeader("A", "ab").withHeader("B", "c")))
                .isNotEqualTo(Scope.of(two, TestRequest.post("/").withHeader("A", "a").withHeader("B", "bc")));
    }

    @Test
    void aHeaderOnSeveralLinesScopesByEveryLineInOrder() {
        Scope one = Scope.of(AUTH, TestRequest.post("/").withHeader("Authorization", "Bearer alice"));
        Scope two = Scope.of(AUTH, TestRequest.post("/").withHeaderLines("Authorization", "Bearer alice", "Bearer bob"));
        assertThat(two).as("a second line is part of the principal").isNotEqualTo(one);
        assertThat(Scope.of(AUTH, TestRequest.post("/").withHeaderLines("Authorization", "Bearer alice", "Bearer bob")))
                .isEqualTo(two);
        assertThat(Scope.of(AUTH, TestRequest.post("/").withHeaderLines("Authorization", "Bearer bob", "Bearer alice")))
                .as("the lines' order counts").isNotEqualTo(two);
        assertThat(Scope.of(AUTH, TestRequest.post("/").withHeaderLines("Authorization", "Bearer alice", "")))
                .as("an empty second line counts too").isNotEqualTo(one);
    }

    @Test
    void severalLinesNeverScopeLikeOneLineOfTheirJoinedText() {
        Scope lines = Scope.of(AUTH, TestRequest.post("/").withHeaderLines("Authorization", "a", "b"));
        for (String joined : new String[] {"a, b", "a,b", "ab", "a\nb", "a\0b", "a\r\nb"}) {
            assertThat(Scope.of(AUTH, TestRequest.post("/").withHeader("Authorization", joined))).as(joined).isNotEqualTo(lines);
        }
        assertThat(Scope.of(AUTH, TestRequest.post("/").withHeaderLines("Authorization", "ab", "c")))
                .isNotEqualTo(Scope.of(AUTH, TestRequest.post("/").withHeaderLines("Authorization", "a", "bc")));
        assertThat(Scope.of(AUTH, TestRequest.post("/").withHeaderLines("Authorization", "a", "b", "c")))
                .isNotEqualTo(Scope.of(AUTH, TestRequest.post("/").withHeaderLines("Authorization", "a", "b")));
    }

    @Test
    void anEmptyScopeListIsOneSharedScope() {
        assertThat(Scope.of(List.of(), TestRequest.post("/").withHeader("Authorization", "x")))
                .isEqualTo(Scope.of(List.of(), TestRequest.post("/")));
    }

    // the default: credential headers (docs/security.md)

    private static final ScopePolicy CREDENTIALS = ScopePolicy.CREDENTIALS;

    private static Scope credentials(TestRequest r) {
        return Scope.of(CREDENTIALS, r);
    }

    @Test
    void byDefaultEveryCredentialHeaderTheRequestCarriesScopesIt() {
        TestRequest base = TestRequest.post("/").withHeader("Authorization", "Bearer alice");
        for (String header : ScopePolicy.CREDENTIAL_HEADERS.subList(1, ScopePolicy.CREDENTIAL_HEADERS.size())) {
            Scope one = credentials(TestRequest.post("/").withHeader(header, "v1"));
            assertThat(one).as(header).isNotEqualTo(credentials(TestRequest.post("/").withHeader(header, "v2")))
                    .isNotEqualTo(credentials(TestRequest.post("/")))
                    .isNotEqualTo(credentials(TestRequest.post("/").withHeader(header, "")));
            assertThat(credentials(TestRequest.post("/x").withHeader(header.toLowerCase(java.util.Locale.ROOT), "v1")))
                    .as(header + ", another path, the name in lower case").isEqualTo(one);
            assertThat(credentials(base.withHeader(header, "v1"))).as("Authorization and " + header)
                    .isNotEqualTo(credentials(base.withHeader(header, "v2")))
                    .isNotEqualTo(credentials(base));
        }
    }

    @Test
    void callersWithOnlyAuthorizationOrNoCredentialKeepTheScopeTheEarlierDefaultGaveThem() {
        // Records written before the credential default were scoped by [header:Authorization]:
        // callers who send nothing else must find them.
        TestRequest alice = TestRequest.post("/").withHeader("Authorization", "Bearer alice");
        assertThat(credentials(alice).hash()).isEqualTo("a21a62fe8dfc2b99650eef56720f8611").isEqualTo(Scope.of(AUTH, alice).hash());
        assertThat(credentials(TestRequest.post("/"))).isEqualTo(Scope.of(AUTH, TestRequest.post("/")));
        assertThat(credentials(TestRequest.post("/").withHeaderLines("Authorization", "a", "b")))
                .isEqualTo(Scope.of(AUTH, TestRequest.post("/").withHeaderLines("Authorization", "a", "b")));
        assertThat(Scope.of(ScopePolicy.credentials(List.of("X-Auth-Token")), alice)).isEqualTo(credentials(alice));
    }

    @Test
    void credentialHeadersAreFramedApartFromEachOther() {
        assertThat(credentials(TestRequest.post("/").withHeader("Cookie", "k=v")))
                .isNotEqualTo(credentials(TestRequest.post("/").withHeader("X-Api-Key", "k=v")))
                .isNotEqualTo(credentials(TestRequest.post("/").withHeader("Authorization", "k=v")));
        assertThat(credentials(TestRequest.post("/").withHeader("Cookie", "a").withHeader("X-Api-Key", "bc")))
                .isNotEqualTo(credentials(TestRequest.post("/").withHeader("Cookie", "ab").withHeader("X-Api-Key", "c")));
    }

    @Test
    void secretHeadersJoinTheCredentialHeadersSortedAndEachOnce() {
        ScopePolicy extra = ScopePolicy.credentials(List.of("X-Tenant-Token", "X-Auth-Token"));
        TestRequest token = TestRequest.post("/").withHeader("X-Auth-Token", "t1");
        assertThat(Scope.of(extra, token)).isNotEqualTo(Scope.of(extra, TestRequest.post("/").withHeader("X-Auth-Token", "t2")))
                .isNotEqualTo(Scope.of(extra, TestRequest.post("/")));
        assertThat(credentials(token)).as("not a credential header without secretHeaders")
                .isEqualTo(credentials(TestRequest.post("/")));
        assertThat(ScopePolicy.credentials(List.of("X-Tenant-Token", "x-tenant-token", "X-Auth-Token")))
                .as("another order, a name twice in another case").isEqualTo(extra);
        assertThat(extra.credentialHeaders()).containsExactly("Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key",
                "Api-Key", "X-Auth-Token", "X-Tenant-Token");
        assertThat(ScopePolicy.credentials(List.of("x-api-key", "COOKIE"))).as("built-in names are not repeated")
                .isEqualTo(ScopePolicy.CREDENTIALS);
        assertThat(extra).hasToString("credential headers [Authorization, Proxy-Authorization, Cookie, X-Api-Key, Api-Key, "
                + "X-Auth-Token, X-Tenant-Token]");
    }

    @Test
    void aNamedScopeIsHashedAsBeforeAbsentPartsIncluded() {
        List<RequestPart> two = List.of(RequestPart.parse("header:Authorization"), RequestPart.parse("header:Cookie"));
        TestRequest alice = TestRequest.post("/").withHeader("Authorization", "Bearer alice");
        assertThat(Scope.of(ScopePolicy.of(two), alice)).isEqualTo(Scope.of(two, alice)).isNotEqualTo(credentials(alice));
        assertThat(Scope.of(ScopePolicy.of(List.of()), alice)).isEqualTo(Scope.of(List.of(), TestRequest.post("/")));
    }

    @Test
    void aCredentialScopeNamesHeadersAuthorizationFirst() {
        assertThatThrownBy(() -> new ScopePolicy(List.of(RequestPart.parse("header:Cookie")), true))
                .hasMessageContaining("(expected: header:Authorization first)");
        assertThatThrownBy(() -> new ScopePolicy(List.of(RequestPart.parse("header:Authorization"), RequestPart.parse("body")), true))
                .hasMessageContaining("(expected: header:NAME)");
    }

    @Test
    void aConnectionsMemoGivesWhatScopeOfGivesForCredentialScopesToo() {
        ScopePolicy extra = ScopePolicy.credentials(List.of("X-Auth-Token"));
        ScopePolicy named = ScopePolicy.of(List.of(RequestPart.parse("header:Authorization"), RequestPart.parse("header:Cookie")));
        String[] names = {"Authorization", "Cookie", "X-Api-Key", "X-Auth-Token", "Api-Key"};
        String[] values = {null, "", "a", "b"};
        java.util.Random rnd = new java.util.Random(5);
        Scope.Memo memo = new Scope.Memo();
        for (int i = 0; i < 2_000; i++) {
            ScopePolicy policy = switch (rnd.nextInt(3)) {
                case 0 -> CREDENTIALS;
                case 1 -> extra;
                default -> named;
            };
            TestRequest r = TestRequest.post("/");
            for (String name : names) {
                String v = values[rnd.nextInt(values.length)];
                if (v != null) {
                    r = r.withHeader(name, v);
                }
            }
            assertThat(memo.of(policy, r)).as("request %d", i).isEqualTo(Scope.of(policy, r));
        }
    }

    @Test
    void malformedHashesAreRejected() {
        assertThatThrownBy(() -> new Scope("Bearer x")).hasMessageContaining("(expected: 32 lower-case hex digits)");
    }

    @Test
    void theHashIsPinnedAcrossVersionsBecauseStoredRecordsAreKeyedByIt() {
        // Records written by an earlier version must still be found: this value must never change.
        assertThat(Scope.of(AUTH, TestRequest.post("/").withHeader("Authorization", "Bearer alice")).hash())
                .isEqualTo("a21a62fe8dfc2b99650eef56720f8611");
    }

    @Test
    void aConnectionsMemoGivesWhatScopeOfGivesWhateverTheSequence() {
        List<RequestPart> two = List.of(RequestPart.parse("header:Authorization"), RequestPart.parse("header:X-Tenant"));
        List<RequestPart> twoAgain = List.of(RequestPart.parse("header:Authorization"), RequestPart.parse("header:X-Tenant"));
        String[] auth = {null, "", "Bearer alice", "Bearer alicf", "Bearer bob"};
        String[] tenant = {null, "t1", "t2"};
        java.util.Random rnd = new java.util.Random(3);
        Scope.Memo memo = new Scope.Memo();
        for (int i = 0; i < 2_000; i++) {
            List<RequestPart> parts = switch (rnd.nextInt(4)) {
                case 0 -> AUTH;
                case 1 -> two;
                case 2 -> twoAgain;
                default -> List.of();
            };
            TestRequest r = TestRequest.post("/p" + rnd.nextInt(3));
            String a = auth[rnd.nextInt(auth.length)];
            String t = tenant[rnd.nextInt(tenant.length)];
            if (a != null) {
                r = rnd.nextInt(4) == 0 ? r.withHeaderLines("Authorization", a, auth[rnd.nextInt(auth.length - 1) + 1])
                        : r.withHeader("Authorization", a);
            }
            if (t != null) {
                r = r.withHeader("X-Tenant", t);
            }
            assertThat(memo.of(parts, r)).as("request %d: %s / %s / %s", i, parts, a, t).isEqualTo(Scope.of(parts, r));
        }
    }
}
