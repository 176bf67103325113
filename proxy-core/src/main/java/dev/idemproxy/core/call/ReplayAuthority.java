package dev.idemproxy.core.call;

import dev.idemproxy.core.store.RecordKey;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Lets the admin API's DLQ replay re-run a call as itself: same call id, the very record it
 * had ({@code (route, scope hash, key)}), even though the stored request lost its secrets (and
 * so could not recompute its scope), and the time the call was first made, which its receipt
 * keeps as {@code createdAt} across the replay. The replay proves itself with this process's
 * random token; the headers are stripped from every request, so no client can claim another
 * call's identity (or start) and nothing of it reaches an upstream. This class is thread-safe.
 */
public final class ReplayAuthority {
    public static final String TOKEN_HEADER = "X-Idemproxy-Replay";
    public static final String RECORD_HEADER = "X-Idemproxy-Replay-Record";
    /** When the replayed call was first made (an ISO-8601 instant, as its receipt's createdAt). */
    public static final String CREATED_HEADER = "X-Idemproxy-Replay-Created";

    private final String token;

    /** @param random where the token's 256 bits come from: a {@link java.security.SecureRandom}, as it is a secret */
    public ReplayAuthority(java.security.SecureRandom random) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        this.token = java.util.HexFormat.of().formatHex(bytes);
    }

    public String token() {
        return token;
    }

    /**
     * What a proven replay asks for: its original call id and record, and when the call was first
     * made.
     *
     * @param record    the record, or null: the replay claims by its request, as any call
     * @param createdAt when the original call started, or null (its receipt was gone): the replay's own start
     */
    public record Replay(String callId, RecordKey record, Instant createdAt) {
    }

    /** When {@code replay} (null: no replay) started as a call: the original call's start when known, else {@code now}. */
    public static Instant createdAt(Replay replay, Instant now) {
        return replay != null && replay.createdAt() != null ? replay.createdAt() : now;
    }

    /**
     * Strips the replay headers from a request that is not protected (streamed through), so that
     * a replay that lands on such a route, or a client posing as one, never shows this process's
     * token or its headers to an upstream. A header that is absent costs no removal.
     */
    public static void strip(HttpHeaders h) {
        if (h.contains(TOKEN_HEADER)) {
            h.remove(TOKEN_HEADER);
        }
        if (h.contains(RECORD_HEADER)) {
            h.remove(RECORD_HEADER);
        }
        if (h.contains(CREATED_HEADER)) {
            h.remove(CREATED_HEADER);
        }
    }

    /** Strips the replay headers; returns the replay they prove, or null. */
    public Replay take(HttpRequest request) {
        HttpHeaders h = request.headers();
        String presented = h.get(TOKEN_HEADER);
        String record = h.get(RECORD_HEADER);
        String created = h.get(CREATED_HEADER);
        if (presented != null) {  // a header's every value goes, but one that is absent costs no removal
            h.remove(TOKEN_HEADER);
        }
        if (record != null) {
            h.remove(RECORD_HEADER);
        }
        if (created != null) {
            h.remove(CREATED_HEADER);
        }
        if (presented == null || !MessageDigest.isEqual(presented.getBytes(StandardCharsets.US_ASCII),
                token.getBytes(StandardCharsets.US_ASCII))) {
            return null;
        }
        String callId = h.get(CallIdentity.X_CALL_ID);
        if (callId == null || !dev.idemproxy.core.util.Checks.isLowerHex(callId, 32)) {
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
        Instant createdAt = null;
        if (created != null) {
            try {
                createdAt = Instant.parse(created);
            } catch (DateTimeParseException e) {
                return null;
            }
        }
        return new Replay(callId, rk, createdAt);
    }
}
