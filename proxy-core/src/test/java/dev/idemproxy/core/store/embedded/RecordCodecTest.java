package dev.idemproxy.core.store.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.IdempotencyRecord.State;
import dev.idemproxy.core.store.StoreCodec;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordCodecTest {
    private static final Instant T = Instant.parse("2026-12-04T20:47:28.123Z");

    @Test
    void recordsRoundTripWhateverTheirStrings() {
        for (String s : List.of("01a242cfdc8066e9c37df6b35a109f65", "01a242cfdc8066e9c37df6b35a109f65.edfa698631762bdc", "ABCDEF",
                "abc", "", "é🙂x", "0")) {
            IdempotencyRecord inFlight = new IdempotencyRecord(State.IN_FLIGHT, s, s, s, T, T, null, T.plusSeconds(60), 0, 0, null);
            assertThat(roundTrip(inFlight)).as(s).isEqualTo(inFlight);
            IdempotencyRecord done = new IdempotencyRecord(State.COMPLETED, s, "c1", "fp", T, T, T.plusMillis(5), T.plusSeconds(3600),
                    3, 201, new StoredResponse(201, List.of(new StoredHeader("X-Call-Id", s), new StoredHeader(s, "v")),
                            s.getBytes(StandardCharsets.UTF_8)));
            assertThat(roundTrip(done)).as(s).isEqualTo(done);
        }
        IdempotencyRecord notRetained = new IdempotencyRecord(State.NOT_RETAINED, "o", "c", "f", T, T, T, T, 2, 502, null);
        assertThat(roundTrip(notRetained)).isEqualTo(notRetained);
    }

    @Test
    void aTakenOverRecordKeepsItsPriorsAndOneWithoutIsWrittenAsBeforePriorsExisted() {
        List<String> priors = List.of("01a242cfdc8066e9c37df6b35a109f65", "01a242cfdc8066e9c37df6b35a109f66", "legacy id");
        IdempotencyRecord taken = new IdempotencyRecord(State.IN_FLIGHT, "o3", "c3", "fp", T, T, null, T.plusSeconds(60), 0, 0, null,
                priors);
        assertThat(roundTrip(taken).priors()).containsExactlyElementsOf(priors);
        IdempotencyRecord fresh = new IdempotencyRecord(State.IN_FLIGHT, "o1", "c1", "fp", T, T, null, T.plusSeconds(60), 0, 0, null);
        ByteBuffer b = encode(fresh);
        assertThat(b.get(0)).as("the state byte of a log written before priors existed").isEqualTo((byte) State.IN_FLIGHT.ordinal());
        assertThat(b.remaining()).isEqualTo(encode(taken).remaining() - 1 - 17 - 17 - 10);
    }

    @Test
    void aProtectedCallsRecordIsMuchSmallerThanStoreCodecs() {
        String callId = "01a242cfdc8066e9c37df6b35a109f65";
        IdempotencyRecord done = new IdempotencyRecord(State.COMPLETED, callId + ".edfa698631762bdc", callId,
                "96b46b4aac8991b8da678bac5e17f65db2141db1f8a5378639ad8703b9cc21e9", T, T, T, T.plusSeconds(120), 1, 200,
                new StoredResponse(200, List.of(new StoredHeader("Content-Type", "application/json"),
                        new StoredHeader("X-Call-Id", callId)), "{\"ok\":true}".getBytes(StandardCharsets.UTF_8)));
        int compact = encode(done).remaining();
        int codec = StoreCodec.encodeRecord(done).length;
        assertThat(compact).as("compact %d against StoreCodec's %d", compact, codec).isLessThan(codec * 7 / 10);
    }

    private static ByteBuffer encode(IdempotencyRecord r) {
        ByteBuffer b = ByteBuffer.allocate(RecordCodec.maxLength(r));
        RecordCodec.write(b, r);
        return b.flip();
    }

    private static IdempotencyRecord roundTrip(IdempotencyRecord r) {
        ByteBuffer b = encode(r);
        IdempotencyRecord back = RecordCodec.read(b);
        assertThat(b.hasRemaining()).isFalse();
        return back;
    }
}
