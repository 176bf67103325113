package dev.idemproxy.core.call;

import dev.idemproxy.core.store.RecordKey;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Lets the admin API's DLQ replay re-run a call as itself: same call id and the very record it
 * had ({@code (route, scope hash, key)}), even though the stored request lost its secrets (and
 * so could not recompute its scope). The replay proves itself with this process's random token;
 * the headers are stripped from every request, so no client can claim another call's identity
 * and nothing of it reaches an upstream. This class is thread-safe.
 */
public final class ReplayAuthority {
    public static final String TOKEN_HEADER = "X-Idemproxy-Replay";
    public static final String RECORD_HEADER = "X-Idemproxy-Replay-Record";

    private final String token = CallId.next() + CallId.next();

    public String token() {
        return token;
    }

    /** What a proven replay asks for: its original call id and record. */
    public record Replay(String callId, RecordKey record) {
    }

    /** Strips the replay headers; returns the replay they prove, or null. */
    public Replay take(HttpRequest request) {
        HttpHeaders h = request.headers();
        String presented = h.get(TOKEN_HEADER);
        String record = h.get(RECORD_HEADER);
        if (presented != null) {  // a header's every value goes, but one that is absent costs no removal
            h.remove(TOKEN_HEADER);
        }
        if (record != null) {
            h.remove(RECORD_HEADER);
        }
        if (presented == null || !MessageDigest.isEqual(presented.getBytes(StandardCharsets.US_ASCII),
                token.getBytes(StandardCharsets.US_ASCII))) {
            return null;
        }
        String callId = h.get(CallIdentity.X_CALL_ID);
        if (callId == null || !dev.idemproxy.core.Checks.isLowerHex(callId, 32)) {
            return null;
        }
        RecordKey rk = null;
        if (record != null) {
            try {
                rk = RecordKey.parse(record);
            } catch (RuntimeException e) {
                return null;
            }
        }
        return new Replay(callId, rk);
    }
}
