package dev.idemproxy.core.call;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.testing.TestClock;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

class ReplayAuthorityTest {
    private final ReplayAuthority authority = new ReplayAuthority(new SecureRandom());
    private final String callId = CallId.next(new TestClock(), new java.util.Random(2));
    private final RecordKey record = new RecordKey("pay", "0123456789abcdef0123456789abcdef", "k-1");

    @Test
    void theTokenIs256SecureRandomBitsOfItsOwnProcess() {
        assertThat(authority.token()).matches("[0-9a-f]{64}");
        assertThat(new ReplayAuthority(new SecureRandom()).token()).isNotEqualTo(authority.token());
    }

    private static HttpRequest request() {
        return new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/pay");
    }

    @Test
    void theProcessesOwnTokenProvesAReplayOfTheCallAndRecordItNames() {
        HttpRequest r = request();
        r.headers().set(ReplayAuthority.TOKEN_HEADER, authority.token()).set(ReplayAuthority.RECORD_HEADER, record.id())
                .set(CallIdentity.X_CALL_ID, callId);
        assertThat(authority.take(r)).isEqualTo(new ReplayAuthority.Replay(callId, record, null));
        assertThat(r.headers().contains(ReplayAuthority.TOKEN_HEADER)).isFalse();
        assertThat(r.headers().contains(ReplayAuthority.RECORD_HEADER)).isFalse();
    }

    @Test
    void aProvenReplayKeepsTheOriginalCallsStartAndTheHeaderIsStripped() {
        java.time.Instant first = java.time.Instant.parse("2024-05-01T10:15:30.123456789Z");
        HttpRequest r = request();
        r.headers().set(ReplayAuthority.TOKEN_HEADER, authority.token()).set(ReplayAuthority.RECORD_HEADER, record.id())
                .set(ReplayAuthority.CREATED_HEADER, first.toString()).set(CallIdentity.X_CALL_ID, callId);
        ReplayAuthority.Replay replay = authority.take(r);
        assertThat(replay).isEqualTo(new ReplayAuthority.Replay(callId, record, first));
        assertThat(ReplayAuthority.createdAt(replay, java.time.Instant.EPOCH)).isEqualTo(first);
        assertThat(r.headers().contains(ReplayAuthority.CREATED_HEADER)).isFalse();
    }

    @Test
    void aStartTimeWithoutTheTokenIsStrippedAndProvesNothing() {
        HttpRequest r = request();
        r.headers().set(ReplayAuthority.CREATED_HEADER, "2024-05-01T10:15:30Z").set(CallIdentity.X_CALL_ID, callId);
        ReplayAuthority.Replay replay = authority.take(r);
        assertThat(replay).isNull();
        assertThat(ReplayAuthority.createdAt(replay, java.time.Instant.EPOCH)).isEqualTo(java.time.Instant.EPOCH);
        assertThat(r.headers().contains(ReplayAuthority.CREATED_HEADER)).isFalse();
    }

    @Test
    void theTokenWithAMalformedStartTimeProvesNothing() {
        HttpRequest r = request();
        r.headers().set(ReplayAuthority.TOKEN_HEADER, authority.token()).set(ReplayAuthority.CREATED_HEADER, "yesterday")
                .set(CallIdentity.X_CALL_ID, callId);
        assertThat(authority.take(r)).isNull();
    }

    @Test
    void aForgedOrRepeatedTokenProvesNothingAndEveryValueOfBothHeadersIsStripped() {
        HttpRequest r = request();
        r.headers().add(ReplayAuthority.TOKEN_HEADER, "guess").add(ReplayAuthority.TOKEN_HEADER, authority.token())
                .add(ReplayAuthority.RECORD_HEADER, record.id()).add(ReplayAuthority.RECORD_HEADER, "other")
                .set(CallIdentity.X_CALL_ID, callId);
        assertThat(authority.take(r)).isNull();
        assertThat(r.headers().contains(ReplayAuthority.TOKEN_HEADER)).isFalse();
        assertThat(r.headers().contains(ReplayAuthority.RECORD_HEADER)).isFalse();
    }

    @Test
    void aRecordHeaderWithoutATokenIsStrippedToo() {
        HttpRequest r = request();
        r.headers().set(ReplayAuthority.RECORD_HEADER, record.id());
        assertThat(authority.take(r)).isNull();
        assertThat(r.headers().contains(ReplayAuthority.RECORD_HEADER)).isFalse();
    }

    @Test
    void theTokenWithAMalformedCallIdOrRecordProvesNothing() {
        HttpRequest badId = request();
        badId.headers().set(ReplayAuthority.TOKEN_HEADER, authority.token()).set(CallIdentity.X_CALL_ID, "not-hex");
        assertThat(authority.take(badId)).isNull();
        HttpRequest badRecord = request();
        badRecord.headers().set(ReplayAuthority.TOKEN_HEADER, authority.token()).set(ReplayAuthority.RECORD_HEADER, "?")
                .set(CallIdentity.X_CALL_ID, callId);
        assertThat(authority.take(badRecord)).isNull();
        assertThat(badRecord.headers().contains(ReplayAuthority.RECORD_HEADER)).isFalse();
    }

    @Test
    void aPlainRequestIsLeftAsItIs() {
        HttpRequest r = request();
        r.headers().set("Idempotency-Key", "k-1").set(CallIdentity.X_CALL_ID, callId);
        assertThat(authority.take(r)).isNull();
        assertThat(r.headers().names()).containsExactlyInAnyOrder("Idempotency-Key", CallIdentity.X_CALL_ID.toString());
    }
}
