package dev.idemproxy.core.store.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.IdempotencyRecord.State;
import dev.idemproxy.core.store.StoreCodec;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Turns script replies and record hashes into values. Stateless. */
final class RedisRecords {
    private RedisRecords() {
    }

    /** The reply of {@link RecordScripts#CLAIM}: a list of bulk strings, the first naming the case. */
    static ClaimResult claimResult(List<Object> reply) {
        String kind = text(reply, 0);
        switch (kind) {
            case "claimed":
                return ClaimResult.Claimed.FRESH;
            case "takeover":
                return new ClaimResult.Claimed(true, text(reply, 1));
            case "mismatch":
                return new ClaimResult.FingerprintMismatch(text(reply, 1));
            case "completed":
                return new ClaimResult.Completed(StoreCodec.decodeResponse((byte[]) reply.get(3)), text(reply, 1),
                        Integer.parseInt(text(reply, 2)));
            case "not-retained":
                return new ClaimResult.NotRetained(text(reply, 1), Integer.parseInt(text(reply, 3)),
                        Integer.parseInt(text(reply, 2)));
            case "in-flight":
                return new ClaimResult.InFlight(text(reply, 1), text(reply, 2), Instant.ofEpochMilli(Long.parseLong(text(reply, 3))));
            default:
                throw new IllegalStateException("unexpected claim reply '" + kind + "'");
        }
    }

    /** A record hash (HGETALL), or null when empty. */
    static IdempotencyRecord record(Map<String, byte[]> h) {
        if (h == null || h.isEmpty() || !h.containsKey("s")) {
            return null;
        }
        String s = field(h, "s");
        State state = s.equals("C") ? State.COMPLETED : s.equals("N") ? State.NOT_RETAINED : State.IN_FLIGHT;
        byte[] response = h.get("r");
        return new IdempotencyRecord(state, field(h, "o"), field(h, "c"), field(h, "f"), instant(h, "l"), instant(h, "t"),
                h.containsKey("d") ? instant(h, "d") : null, instant(h, "x"), Integer.parseInt(field(h, "a")),
                Integer.parseInt(field(h, "h")),
                state == State.COMPLETED && response != null ? StoreCodec.decodeResponse(response) : null);
    }

    private static String field(Map<String, byte[]> h, String name) {
        byte[] v = h.get(name);
        if (v == null) {
            throw new IllegalStateException("record without field '" + name + "'");
        }
        return new String(v, UTF_8);
    }

    private static Instant instant(Map<String, byte[]> h, String name) {
        return Instant.ofEpochMilli(Long.parseLong(field(h, name)));
    }

    private static String text(List<Object> reply, int i) {
        Object v = reply.get(i);
        return v instanceof byte[] b ? new String(b, UTF_8) : String.valueOf(v);
    }
}
