package dev.idemproxy.core.store.redis;

import io.lettuce.core.ScriptOutputType;

/**
 * The Lua scripts behind claims and owner-checked writes. A record is one hash under one key with
 * fields s (state: F in flight, C completed, N not retained), o (owner), c (call id), f
 * (fingerprint), l (lease end), t (created), d (completed), x (expires), a (attempts), h (status)
 * and r (the encoded response); times are epoch ms of the server's {@code TIME}, and the key's
 * {@code PEXPIRE} matches x. Immutable; thread-safe.
 */
final class RecordScripts {
    private static final String NOW = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            local function n(v) return string.format('%.0f', v) end
            """;

    private static final String OWNED = """
            local cur = redis.call('HMGET', KEYS[1], 's', 'o')
            if cur[1] ~= 'F' or cur[2] ~= ARGV[1] then return 0 end
            """;

    /**
     * Writes a receipt with the record when the script was given one: KEYS[2] the receipt's key,
     * KEYS[3] (optional) its business-id index; ARGV[at] the encoded receipt, ARGV[at + 1] its ttl
     * in ms, ARGV[at + 2] its index member. As {@code RedisReceipts.put}, in the same script as the
     * record (standalone and Sentinel only: in a cluster the keys live in other slots).
     */
    private static final String RECEIPT = """
            local function receipt(at)
              if not KEYS[2] then return end
              redis.call('SET', KEYS[2], ARGV[at], 'PX', ARGV[at + 1])
              if KEYS[3] then
                redis.call('ZADD', KEYS[3], 0, ARGV[at + 2])
                if redis.call('PTTL', KEYS[3]) < tonumber(ARGV[at + 1]) then redis.call('PEXPIRE', KEYS[3], ARGV[at + 1]) end
              end
            end
            """;

    /**
     * ARGV: fingerprint, owner, callId, leaseMs, retentionMs (how long a lapsed claim is kept; at
     * least one lease), then optionally the receipt to write when it claims (see {@link #RECEIPT},
     * from ARGV[6]). Returns {kind, ...} as bulk strings.
     */
    static final RedisScript CLAIM = new RedisScript(NOW + RECEIPT + """
            local lease = tonumber(ARGV[4])
            local kept = math.max(lease, tonumber(ARGV[5]))
            local cur = redis.call('HMGET', KEYS[1], 's', 'o', 'c', 'f', 'l', 't', 'a', 'h')
            local function inflight(created)
              local leaseEnd = now + lease
              redis.call('DEL', KEYS[1])
              redis.call('HSET', KEYS[1], 's', 'F', 'o', ARGV[2], 'c', ARGV[3], 'f', ARGV[1], 'l', n(leaseEnd),
                't', n(created), 'x', n(leaseEnd + kept), 'a', '0', 'h', '0')
              redis.call('PEXPIRE', KEYS[1], n(lease + kept))
            end
            if not cur[1] then
              inflight(now)
              receipt(6)
              return {'claimed'}
            end
            if cur[4] ~= ARGV[1] then return {'mismatch', cur[3]} end
            if cur[1] == 'C' then return {'completed', cur[3], cur[7], redis.call('HGET', KEYS[1], 'r')} end
            if cur[1] == 'N' then return {'not-retained', cur[3], cur[7], cur[8]} end
            if tonumber(cur[5]) > now then return {'in-flight', cur[3], cur[4], cur[5]} end
            inflight(tonumber(cur[6]))
            receipt(6)
            return {'takeover', cur[3]}
            """, ScriptOutputType.MULTI);

    /** ARGV: owner, leaseMs. Returns 1 when renewed. Never shortens the claim's retention. */
    static final RedisScript RENEW = new RedisScript(NOW + OWNED + """
            local lease = tonumber(ARGV[2])
            local x = math.max(tonumber(redis.call('HGET', KEYS[1], 'x')) or 0, now + 2 * lease)
            redis.call('HSET', KEYS[1], 'l', n(now + lease), 'x', n(x))
            redis.call('PEXPIRE', KEYS[1], n(x - now))
            return 1
            """, ScriptOutputType.INTEGER);

    /**
     * ARGV: owner, ttlMs, state (C or N), attempts, status, encoded response (C only), then optionally
     * the receipt to write when it ends the record (see {@link #RECEIPT}, from ARGV[7]). Returns 1
     * when ended.
     */
    static final RedisScript END = new RedisScript(NOW + RECEIPT + OWNED + """
            local ttl = tonumber(ARGV[2])
            redis.call('HSET', KEYS[1], 's', ARGV[3], 'd', n(now), 'x', n(now + ttl), 'a', ARGV[4], 'h', ARGV[5])
            if ARGV[3] == 'C' then redis.call('HSET', KEYS[1], 'r', ARGV[6]) end
            redis.call('PEXPIRE', KEYS[1], n(ttl))
            receipt(7)
            return 1
            """, ScriptOutputType.INTEGER);

    /** ARGV: owner. Returns 1 when deleted. */
    static final RedisScript RELEASE = new RedisScript(OWNED + """
            redis.call('DEL', KEYS[1])
            return 1
            """, ScriptOutputType.INTEGER);

    private RecordScripts() {
    }
}
