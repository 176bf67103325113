package dev.idemproxy.core.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The stored response's encoding: what is written is read back, at any offset; damage is named, never misread. */
class StoreCodecTest {
    private static final StoredResponse RESPONSE = new StoredResponse(201,
            List.of(new StoredHeader("Content-Type", "application/json"), new StoredHeader("X-Ünïcode", "wert ✓")),
            "{\"id\":\"t-1\"}\n".getBytes(UTF_8));

    /** Values encoded one after another on one thread (its scratch buffer reused, a large one dropped) are each whole and apart. */
    @Test
    void valuesEncodedInTurnOnOneThreadAreEachWholeAndApart() {
        StoredResponse small = new StoredResponse(201, List.of(new StoredHeader("Content-Type", "application/json")),
                "{\"ok\":true}".getBytes(UTF_8));
        byte[] big = new byte[200_000];
        Arrays.fill(big, (byte) 'x');
        StoredResponse large = new StoredResponse(200, List.of(), big);
        byte[] first = StoreCodec.encodeResponse(small);
        byte[] second = StoreCodec.encodeResponse(large);
        byte[] third = StoreCodec.encodeResponse(small);
        assertThat(third).isEqualTo(first).isNotSameAs(first);
        assertThat(StoreCodec.decodeResponse(first)).isEqualTo(small);
        assertThat(StoreCodec.decodeResponse(second).body()).isEqualTo(big);
        assertThat(StoreCodec.decodeResponse(third)).isEqualTo(small);
    }

    @Test
    void aResponseReadsBackFieldByFieldFromTheStartOrFromAnOffset() {
        byte[] encoded = StoreCodec.encodeResponse(RESPONSE);
        assertThat(StoreCodec.decodeResponse(encoded)).isEqualTo(RESPONSE);
        byte[] behindAHeader = new byte[encoded.length + 7];
        System.arraycopy(encoded, 0, behindAHeader, 7, encoded.length);
        assertThat(StoreCodec.decodeResponse(behindAHeader, 7)).isEqualTo(RESPONSE);
    }

    @Test
    void aDeadLetterKeepsItsOwnerAndAnEntryOfTheVersionBeforeReadsWithItsCallIdAsOwner() {
        DeadLetter d = new DeadLetter("d-1", "c-1", null, "b-1", new RecordKey("r", "s", "k"), "ambiguous-outcome", 504, 1,
                java.time.Instant.ofEpochMilli(1_700_000_000_000L), new StoredRequest("POST", "/x", List.of(), new byte[] {1, 2}),
                "c-1.00000000000000ab");
        byte[] encoded = StoreCodec.encodeDeadLetter(d);
        assertThat(StoreCodec.decodeDeadLetter(encoded)).isEqualTo(d);
        // the version before wrote no owner after the body (and, reading this one, leaves it unread)
        byte[] before = Arrays.copyOf(encoded, encoded.length - 4 - "c-1.00000000000000ab".length());
        DeadLetter old = StoreCodec.decodeDeadLetter(before);
        assertThat(old.owner()).isEqualTo("c-1");
        assertThat(old.request()).isEqualTo(d.request());
    }

    @Test
    void anEmptyBodyAndNoHeadersRoundTrip() {
        StoredResponse empty = new StoredResponse(204, List.of(), new byte[0]);
        assertThat(StoreCodec.decodeResponse(StoreCodec.encodeResponse(empty))).isEqualTo(empty);
    }

    @Test
    void aTruncatedOrForeignValueIsCorruptNotMisread() {
        byte[] encoded = StoreCodec.encodeResponse(RESPONSE);
        for (int cut : new int[] {1, 6, 12, encoded.length - 1}) {
            assertThatThrownBy(() -> StoreCodec.decodeResponse(Arrays.copyOf(encoded, cut)))
                    .as("cut at %d of %d", cut, encoded.length)
                    .isInstanceOf(IllegalStateException.class).hasMessageStartingWith("corrupt store value");
        }
        byte[] hugeCount = encoded.clone();
        hugeCount[6] = 0x7f;  // the header count's high byte (after 'S', the version and the status): 2 billion
        assertThatThrownBy(() -> StoreCodec.decodeResponse(hugeCount))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("headers with");
        byte[] other = StoreCodec.encodeReceipt(new Receipt("c", null, "k", "r", "PROCESSING", null, 0, 0,
                java.time.Instant.EPOCH, null));
        assertThatThrownBy(() -> StoreCodec.decodeResponse(other))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("unknown encoding 'C'");
    }

    @Test
    void aRecordsExpiryIsReadWithoutDecodingItAndMatchesTheDecodedOne() {
        java.time.Instant t = java.time.Instant.ofEpochMilli(1_764_000_000_123L);
        IdempotencyRecord inFlight = new IdempotencyRecord(IdempotencyRecord.State.IN_FLIGHT, "owner-ü", "call-1", "fp",
                t.plusSeconds(30), t, null, t.plusSeconds(90), 0, 0, null);
        IdempotencyRecord done = new IdempotencyRecord(IdempotencyRecord.State.COMPLETED, "owner", "call-2", "f".repeat(64),
                t.plusSeconds(30), t, t.plusSeconds(1), t.plusSeconds(86_400), 2, 201, RESPONSE);
        for (IdempotencyRecord r : List.of(inFlight, done)) {
            byte[] encoded = StoreCodec.encodeRecord(r);
            assertThat(StoreCodec.recordExpiresAtMillis(encoded)).isEqualTo(StoreCodec.decodeRecord(encoded).expiresAt().toEpochMilli())
                    .isEqualTo(r.expiresAt().toEpochMilli());
        }
        assertThatThrownBy(() -> StoreCodec.recordExpiresAtMillis(StoreCodec.encodeResponse(RESPONSE)))
                .isInstanceOf(IllegalStateException.class).hasMessageStartingWith("corrupt store value");
    }

    @Test
    void aReceiptsToolIsAppendedAndAReceiptWithoutOneReadsAsBefore() {
        java.time.Instant t = java.time.Instant.ofEpochMilli(1_764_000_000_123L);
        Receipt plain = new Receipt("c-1", "b", "k", "orders", "SUCCESS", "executed", 201, 1, t, t.plusSeconds(1));
        Receipt mcp = new Receipt("c-2", null, "d:ab", "tools", "FAILED", "unsafe_to_repeat", 200, 1, t, t, "create_ticket");
        byte[] plainBytes = StoreCodec.encodeReceipt(plain);

        assertThat(StoreCodec.decodeReceipt(plainBytes)).isEqualTo(plain);
        assertThat(StoreCodec.decodeReceipt(StoreCodec.encodeReceipt(mcp))).isEqualTo(mcp);
        assertThat(StoreCodec.encodeReceipt(mcp)).as("the tool appended after the fields an earlier version reads")
                .startsWith(StoreCodec.encodeReceipt(mcp.withTool(null)));
    }

    @Test
    void aReceiptsDetailIsAppendedAfterItsToolAndReadsBackWhileAnEarlierVersionsValueStillDecodes() {
        java.time.Instant t = java.time.Instant.ofEpochMilli(1_764_000_000_123L);
        Receipt base = new Receipt("c-3", "b", "k", "orders", "SUCCESS", "executed", 201, 2, t, t.plusSeconds(1));
        dev.idemproxy.core.tries.CallTries tries = new dev.idemproxy.core.tries.CallTries(java.util.List.of(
                new dev.idemproxy.core.tries.Try(1, 2, 40, 503, null, dev.idemproxy.core.tries.TryClass.UNKNOWN,
                        dev.idemproxy.core.tries.TryNext.CHECK_RECEIPT, 200, "NOT_FOUND", 12, dev.idemproxy.core.tries.TryNext.RETRY,
                        "backoff"),
                new dev.idemproxy.core.tries.Try(2, 250, 7, 0, "reset", dev.idemproxy.core.tries.TryClass.UNKNOWN, null, -1, null,
                        -1, null, null)), 3);
        Receipt detailed = base.withDetail("task-1", tries,
                dev.idemproxy.core.tries.CallHeads.of(new dev.idemproxy.core.tries.RequestHead("POST", "/t?key=***", java.util.List.of(
                        new dev.idemproxy.core.tries.HeadField("Authorization", "***"))),
                new dev.idemproxy.core.tries.ResponseHead(201, java.util.List.of(
                        new dev.idemproxy.core.tries.HeadField("Content-Type", "caf\u00e9")))));
        byte[] bytes = StoreCodec.encodeReceipt(detailed);

        assertThat(StoreCodec.decodeReceipt(bytes)).isEqualTo(detailed);
        assertThat(StoreCodec.decodeReceipt(StoreCodec.encodeReceipt(base.withDetail("t", dev.idemproxy.core.tries.CallTries.NONE, null)))).isEqualTo(base.withDetail("t", dev.idemproxy.core.tries.CallTries.NONE, null));
        byte[] earlier = StoreCodec.encodeReceipt(base);
        assertThat(bytes).as("an earlier version reads the fields before the tool, then the tool (null), and leaves the rest")
                .startsWith(earlier);
        assertThat(StoreCodec.decodeReceipt(earlier)).isEqualTo(base);
        byte[] damaged = java.util.Arrays.copyOf(bytes, bytes.length - 3);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> StoreCodec.decodeReceipt(damaged))
                .isInstanceOf(IllegalStateException.class);
    }
}
