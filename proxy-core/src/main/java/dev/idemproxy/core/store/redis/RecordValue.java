package dev.idemproxy.core.store.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.IdempotencyRecord.State;
import dev.idemproxy.core.store.Priors;
import dev.idemproxy.core.store.StoreCodec;
import java.time.Instant;
import java.util.List;

/**
 * The Redis record layout: one string per record, header lines then (completed only) the encoded
 * response.
 * <pre>
 *   in flight:     F \n owner \n callId \n fingerprint \n createdMs \n retentionMs \n [priors \n]
 *   completed:     C \n owner \n callId \n fingerprint \n createdMs \n completedMs \n attempts \n status \n response
 *   not retained:  N \n owner \n callId \n fingerprint \n createdMs \n completedMs \n attempts \n status \n
 * </pre>
 * A record in flight that was taken over carries its priors ({@link IdempotencyRecord#priors()}) in a
 * seventh line, call ids separated by spaces ({@link Priors}); one claimed afresh has six lines,
 * as before priors existed. An in-flight record's key expires one retention after its lease ends, so the lease end is the
 * key's expiry minus the retention: Redis's clock alone decides when a lease has lapsed. A fresh
 * claim is one native {@code SET key value NX PX ms GET} (its createdMs is the proxy's clock,
 * which only ever informs); it answers with the value already there, if any, so a duplicate of a
 * completed call is answered by that one command too. Owner, call id and fingerprint never contain
 * a line feed ({@link #line}). Stateless.
 */
final class RecordValue {
    private RecordValue() {
    }

    /** The fields of a value's header, as read by {@link #parse}. */
    record Header(char state, String owner, String callId, String fingerprint, long createdMs, long sixth, int attempts,
            int status, int bodyOffset, List<String> priors) {
    }

    /** The value a claim writes: in flight under {@code owner}, kept {@code retentionMs} after its lease. */
    static byte[] inFlight(String owner, String callId, String fingerprint, long createdMs, long retentionMs) {
        return inFlight(owner, callId, fingerprint, createdMs, retentionMs, List.of());
    }

    /** As {@link #inFlight(String, String, String, long, long)}, for a claim that took the record over from {@code priors}. */
    static byte[] inFlight(String owner, String callId, String fingerprint, long createdMs, long retentionMs, List<String> priors) {
        String head = "F\n" + line(owner) + '\n' + line(callId) + '\n' + line(fingerprint) + '\n' + createdMs + '\n' + retentionMs + '\n';
        return (priors.isEmpty() ? head : head + line(Priors.line(priors)) + '\n').getBytes(UTF_8);
    }

    /** The start of every value in flight under {@code owner}: what the owner-checked scripts compare. */
    static byte[] ownedPrefix(String owner) {
        return ("F\n" + line(owner) + '\n').getBytes(UTF_8);
    }

    /**
     * The owner's own {@code callId \n fingerprint \n createdMs \n}, which {@link RecordScripts#END}
     * writes in place of the in-flight value's when the record is gone.
     */
    static byte[] identity(String callId, String fingerprint, long createdMs) {
        return (line(callId) + '\n' + line(fingerprint) + '\n' + createdMs + '\n').getBytes(UTF_8);
    }

    /** The tail of an ended value after its completion time: attempts, status, then the body (C only). */
    static byte[] endTail(int attempts, int status, byte[] response) {
        byte[] head = (Integer.toString(attempts) + '\n' + status + '\n').getBytes(UTF_8);
        if (response == null) {
            return head;
        }
        byte[] all = new byte[head.length + response.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(response, 0, all, head.length, response.length);
        return all;
    }

    static String line(String s) {
        if (s.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("a line feed in a record field: " + s.replace("\n", "\\n"));
        }
        return s;
    }

    static Header parse(byte[] v) {
        String[] f = new String[8];
        int i = 0;
        int n = 0;
        while (n < 8) {
            int j = indexOf(v, i);
            if (j < 0) {
                break;
            }
            f[n++] = new String(v, i, j - i, UTF_8);
            i = j + 1;
        }
        char state = n > 0 && f[0].length() == 1 ? f[0].charAt(0) : '?';
        boolean ended = state == 'C' || state == 'N';
        if (!(state == 'F' && (n == 6 || n == 7) || ended && n == 8)) {
            throw new IllegalStateException("not an idempotency record value (state '" + (n > 0 ? f[0] : "") + "', "
                    + n + " header lines)");
        }
        return new Header(state, f[1], f[2], f[3], Long.parseLong(f[4]), Long.parseLong(f[5]),
                ended ? Integer.parseInt(f[6]) : 0, ended ? Integer.parseInt(f[7]) : 0, i,
                ended ? List.of() : Priors.parse(f[6]));
    }

    private static int indexOf(byte[] v, int from) {
        for (int i = from; i < v.length; i++) {
            if (v[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /**
     * What a claim that met {@code v} answers, when that can be told without the server's clock:
     * a mismatch, a completed or a not-retained record; null for a record in flight with the same
     * fingerprint (whether its lease has lapsed is for {@link RecordScripts#CLAIM} to say).
     */
    static ClaimResult existing(byte[] v, String fingerprint) {
        Header h = parse(v);
        if (!h.fingerprint().equals(fingerprint)) {
            return new ClaimResult.FingerprintMismatch(h.callId());
        }
        switch (h.state()) {
            case 'C':
                return new ClaimResult.Completed(StoreCodec.decodeResponse(v, h.bodyOffset()), h.callId(), h.attempts());
            case 'N':
                return new ClaimResult.NotRetained(h.callId(), h.status(), h.attempts());
            default:
                return null;
        }
    }

    /** The reply of {@link RecordScripts#CLAIM}: a list of bulk strings, the first naming the case. */
    static ClaimResult claimResult(List<Object> reply) {
        String kind = text(reply, 0);
        switch (kind) {
            case "claimed":
                return ClaimResult.Claimed.FRESH;
            case "takeover":
                // {takeover, the lapsed owner, every call to check}: the last from scripts before priors existed
                return reply.size() > 2 ? new ClaimResult.Claimed(true, Priors.parse(text(reply, 2)))
                        : ClaimResult.Claimed.takeover(text(reply, 1));
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

    /** The reply of {@link RecordScripts#READ} as a record, or null when there is none. */
    static IdempotencyRecord record(List<Object> reply) {
        byte[] v = (byte[]) reply.get(0);
        if (v == null || v.length == 0) {
            return null;
        }
        long pttl = ((Number) reply.get(1)).longValue();
        long now = Long.parseLong(text(reply, 2));
        Header h = parse(v);
        Instant created = Instant.ofEpochMilli(h.createdMs());
        Instant expires = Instant.ofEpochMilli(now + Math.max(0, pttl));
        if (h.state() == 'F') {
            Instant leaseEnd = Instant.ofEpochMilli(now + pttl - h.sixth());
            return new IdempotencyRecord(State.IN_FLIGHT, h.owner(), h.callId(), h.fingerprint(), leaseEnd, created, null,
                    expires, 0, 0, null, h.priors());
        }
        Instant completed = Instant.ofEpochMilli(h.sixth());  // its lease ended with the call
        boolean kept = h.state() == 'C';
        return new IdempotencyRecord(kept ? State.COMPLETED : State.NOT_RETAINED, h.owner(), h.callId(), h.fingerprint(),
                completed, created, completed, expires, h.attempts(), h.status(),
                kept ? StoreCodec.decodeResponse(v, h.bodyOffset()) : null);
    }

    private static String text(List<Object> reply, int i) {
        Object v = reply.get(i);
        return v instanceof byte[] b ? new String(b, UTF_8) : String.valueOf(v);
    }
}
