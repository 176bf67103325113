package dev.idemproxy.core.store.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.StoreCodec;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Redis record layout as Java writes and reads it (the scripts' side runs in the store contract suites). */
class RecordValueTest {

    @Test
    void anInFlightValueReadsBackFieldByField() {
        byte[] v = RecordValue.inFlight("o-1", "call-1", "fp", 1_700_000_000_123L, 30_000);
        assertThat(new String(v, UTF_8)).isEqualTo("F\no-1\ncall-1\nfp\n1700000000123\n30000\n");
        RecordValue.Header h = RecordValue.parse(v);
        assertThat(h).isEqualTo(new RecordValue.Header('F', "o-1", "call-1", "fp", 1_700_000_000_123L, 30_000, 0, 0, v.length,
                List.of()));
        assertThat(v).startsWith(RecordValue.ownedPrefix("o-1"));
        assertThat(RecordValue.existing(v, "fp")).as("in flight: for the script to judge the lease").isNull();
        assertThat(RecordValue.existing(v, "other")).isEqualTo(new ClaimResult.FingerprintMismatch("call-1"));
    }

    @Test
    void aTakenOverValueCarriesItsPriorsOnASeventhLine() {
        byte[] v = RecordValue.inFlight("o-3", "call-3", "fp", 5, 30_000, List.of("call-1", "call-2"));
        assertThat(new String(v, UTF_8)).isEqualTo("F\no-3\ncall-3\nfp\n5\n30000\ncall-1 call-2\n");
        assertThat(RecordValue.parse(v).priors()).containsExactly("call-1", "call-2");
        assertThat(v).startsWith(RecordValue.ownedPrefix("o-3"));
        assertThat(RecordValue.parse(RecordValue.inFlight("o-1", "call-1", "fp", 5, 30_000)).priors())
                .as("a value written before priors existed").isEmpty();
    }

    @Test
    void aTakeoverReplyNamesEveryPriorAndOneFromAnOlderScriptTheLapsedOwner() {
        assertThat(RecordValue.claimResult(List.of(b("takeover"), b("call-2"), b("call-1 call-2"))))
                .isEqualTo(new ClaimResult.Claimed(true, List.of("call-1", "call-2")));
        assertThat(RecordValue.claimResult(List.of(b("takeover"), b("call-2"))))
                .isEqualTo(ClaimResult.Claimed.takeover("call-2"));
    }

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    @Test
    void aCompletedValueCarriesItsResponseByteForByteEvenWithLineFeedsInIt() {
        StoredResponse response = new StoredResponse(201, List.of(new StoredHeader("Content-Type", "text/plain")),
                "line one\nline two\n".getBytes(UTF_8));
        byte[] v = concat("C\no-1\ncall-1\nfp\n1\n2\n".getBytes(UTF_8), RecordValue.endTail(3, 201, StoreCodec.encodeResponse(response)));
        RecordValue.Header h = RecordValue.parse(v);
        assertThat(h.state()).isEqualTo('C');
        assertThat(h.attempts()).isEqualTo(3);
        assertThat(h.status()).isEqualTo(201);
        ClaimResult.Completed replay = (ClaimResult.Completed) RecordValue.existing(v, "fp");
        assertThat(replay.callId()).isEqualTo("call-1");
        assertThat(replay.attempts()).isEqualTo(3);
        assertThat(replay.response().body()).isEqualTo(response.body());
        assertThat(replay.response().headers()).isEqualTo(response.headers());
    }

    @Test
    void aNotRetainedValueAnswersWithItsStatusAndAttempts() {
        byte[] v = concat("N\no-1\ncall-1\nfp\n1\n2\n".getBytes(UTF_8), RecordValue.endTail(2, 200, null));
        assertThat(RecordValue.existing(v, "fp")).isEqualTo(new ClaimResult.NotRetained("call-1", 200, 2));
    }

    @Test
    void aLineFeedInAFieldIsRefusedBeforeAnythingIsWritten() {
        assertThatThrownBy(() -> RecordValue.inFlight("o\n1", "call-1", "fp", 1, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("o\\n1");
    }

    @Test
    void aValueThatIsNotARecordSaysSo() {
        assertThatThrownBy(() -> RecordValue.parse("F\no\nc\n".getBytes(UTF_8)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("3 header lines");
        assertThatThrownBy(() -> RecordValue.parse("X\no\nc\nf\n1\n2\n".getBytes(UTF_8)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("state 'X'");
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
