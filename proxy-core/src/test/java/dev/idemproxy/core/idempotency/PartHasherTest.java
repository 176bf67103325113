package dev.idemproxy.core.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PartHasherTest {
    private static final List<RequestPart> PARTS = List.of(RequestPart.parse("method"), RequestPart.parse("path"),
            RequestPart.parse("header:X-Tenant"), RequestPart.parse("query:page"), RequestPart.parse("body:/userId"),
            RequestPart.parse("body:/op"));

    private static TestRequest ticket(String json) {
        return TestRequest.post("/api/tickets").withQuery("page", "2").withJson(json);
    }

    @Test
    void fingerprintsAndDerivedKeysArePinnedAcrossVersionsBecauseStoredRecordsHoldThem() {
        // Computed by the build of git 51cc2ba, before the hashing was sped up. A stored record keeps its fingerprint
        // and derived keys name records: if these change, a retry across an upgrade gets a 422 or
        // runs a second time. They must never change.
        TestRequest r = ticket("{\"userId\":42,\"op\":\"create\",\"title\":\"printer jammed\",\"tags\":[\"b\",\"a\"]}");
        assertThat(Fingerprint.of(List.of(RequestPart.parse("body")), r).value())
                .isEqualTo("d9635223e08e1ab84388368740c1b89d901eab144c411bd34f5774df93e5709d");
        assertThat(Fingerprint.of(PARTS, r).value()).isEqualTo("fbc164cdff7d16e77d7202cc46197e5549163c5c51f81cfcbccf4116b711df7e");
        KeyResolver keys = new KeyResolver(new KeyPolicy("Idempotency-Key", PARTS, Duration.ofMinutes(10), false),
                new SplittableRandom(1));
        assertThat(keys.resolve(r).storeKey()).isEqualTo("d:1d365d29edbe39d366c01f9565087565");
        assertThat(keys.resolve(ticket("{\"userId\":42,\"op\":\"create\"}").withHeader("X-Tenant", "t1")).storeKey())
                .isEqualTo("d:f34dccfe74850b475cf1fef3e0e88c1d");
    }

    @Test
    void theEndpointFingerprintIsPinnedAcrossVersionsToo() {
        // Computed when method and path joined every route's fingerprint (and checked against the class
        // comment's framing by hand: purpose, then method, path and the canonical body): records hold it from then on.
        TestRequest r = ticket("{\"userId\":42,\"op\":\"create\",\"title\":\"printer jammed\",\"tags\":[\"b\",\"a\"]}");
        IdempotencyPolicy d = IdempotencyPolicy.DISABLED;
        IdempotencyPolicy policy = new IdempotencyPolicy(true, d.methods(), d.key(), d.scope(), List.of(), d.ttl(), d.lease(),
                d.onConcurrent(), d.waitTimeout(), d.maxRequestBody(), d.maxResponseBody());
        assertThat(Fingerprint.of(policy, false, r).value()).isEqualTo("d291ccb30364e321412f878ca3cb95851df1aa4410304b731bce0fafdcaa09fd");
    }

    @Test
    void theHashIsTheDocumentedFramingOverAnyPartsAndValues() {
        Random rnd = new Random(11);
        String[] spellings = {"method", "path", "body", "header:Authorization", "header:X-Tenant", "query:q", "body:/a/0",
            "body:/ünï"};
        for (int round = 0; round < 2_000; round++) {
            List<RequestPart> parts = new ArrayList<>();
            int n = rnd.nextInt(5);
            Object[] values = new Object[n];
            for (int i = 0; i < n; i++) {
                parts.add(RequestPart.parse(spellings[rnd.nextInt(spellings.length)]));
                int kind = rnd.nextInt(5);
                if (kind == 4) {
                    byte[][] lines = new byte[2 + rnd.nextInt(3)][];
                    for (int l = 0; l < lines.length; l++) {
                        lines[l] = randomBytes(rnd);
                    }
                    values[i] = lines;
                } else if (kind > 0) {
                    values[i] = randomBytes(rnd);
                }
            }
            String purpose = rnd.nextBoolean() ? Fingerprint.PURPOSE : Scope.PURPOSE;
            int bytes = rnd.nextBoolean() ? 16 : 32;
            boolean omitAbsent = rnd.nextBoolean();
            assertThat(PartHasher.hex(purpose, parts, values, bytes, omitAbsent)).as("round %d", round)
                    .isEqualTo(reference(purpose, parts, values, bytes, omitAbsent));
        }
    }

    private static byte[] randomBytes(Random rnd) {
        byte[] b = new byte[rnd.nextInt(rnd.nextBoolean() ? 4 : 300)];
        rnd.nextBytes(b);
        return b;
    }

    private static String reference(String purpose, List<RequestPart> parts, Object[] values, int bytes) {
        return reference(purpose, parts, values, bytes, false);
    }

    /** The framing of {@link PartHasher}'s class comment, one byte at a time. */
    private static String reference(String purpose, List<RequestPart> parts, Object[] values, int bytes, boolean omitAbsent) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(purpose.getBytes(StandardCharsets.UTF_8));
            d.update((byte) 0);
            for (int i = 0; i < values.length; i++) {
                if (omitAbsent && i > 0 && values[i] == null) {
                    continue;
                }
                d.update(parts.get(i).toString().getBytes(StandardCharsets.UTF_8));
                d.update((byte) 0);
                if (values[i] == null) {
                    d.update((byte) 0);
                } else if (values[i] instanceof byte[] one) {
                    d.update((byte) 1);
                    bigEndian(d, one.length);
                    d.update(one);
                } else {
                    byte[][] lines = (byte[][]) values[i];
                    d.update((byte) 2);
                    bigEndian(d, lines.length);
                    for (byte[] line : lines) {
                        bigEndian(d, line.length);
                        d.update(line);
                    }
                }
            }
            return HexFormat.of().formatHex(d.digest(), 0, bytes);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    private static void bigEndian(MessageDigest d, long v) {
        for (int shift = 56; shift >= 0; shift -= 8) {
            d.update((byte) (v >>> shift));
        }
    }

    @Test
    void aHeaderOnSeveralLinesHashesEveryLineFramedApartFromAnySingleLine() {
        List<RequestPart> auth = List.of(RequestPart.parse("header:Authorization"));
        TestRequest two = TestRequest.post("/").withHeaderLines("Authorization", "a", "b");
        assertThat(RequestValues.value(auth.get(0), two)).isInstanceOf(byte[][].class);
        assertThat(PartHasher.hex(Scope.PURPOSE, auth, two, 16))
                .isEqualTo(reference(Scope.PURPOSE, auth, new Object[] {new byte[][] {{'a'}, {'b'}}}, 16));
        // One line holding exactly the bytes that follow the marker in the two lines' frame (count 2, length 1,
        // 'a', length 1, 'b') still hashes apart: its frame opens with marker 1, theirs with marker 2.
        byte[] lookalike = {0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 'a', 0, 0, 0, 0, 0, 0, 0, 1, 'b'};
        assertThat(PartHasher.hex(Scope.PURPOSE, auth, two, 16))
                .isNotEqualTo(reference(Scope.PURPOSE, auth, new Object[] {lookalike}, 16));
    }
}
