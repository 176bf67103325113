package dev.idemproxy.core.store.redis;

import io.lettuce.core.ScriptOutputType;

/**
 * The Lua scripts behind the claims that find a record in flight and behind every owner-checked
 * write. The record layout they share is {@link RecordValue}'s: one string per record, whose
 * {@code PTTL} also carries the lease (lease end = expiry − retention). Times are epoch ms of the
 * server's {@code TIME}. Immutable; thread-safe.
 */
final class RecordScripts {
    private static final String NOW = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            local function n(v) return string.format('%.0f', v) end
            """;

    /** {@code fields(v)}: the value's header lines (at most 8) and, as {@code .body}, where the body starts. */
    private static final String FIELDS = """
            local function fields(v)
              local f, i = {}, 1
              for k = 1, 8 do
                local j = string.find(v, '\\n', i, true)
                if not j then break end
                f[k] = string.sub(v, i, j - 1)
                i = j + 1
              end
              f.body = i
              return f
            end
            """;

    /**
     * {@code v}, the record's value, or 0 returned when it is not in flight under ARGV[1] (the
     * value's own start, {@code "F\n<owner>\n"}).
     */
    private static final String OWNED = """
            local v = redis.call('GET', KEYS[1])
            local p = ARGV[1]
            if not v or string.sub(v, 1, #p) ~= p then return 0 end
            """;

    /**
     * Lua that writes a claim's receipt with the record when the script was given one: KEYS[2]
     * the receipt's key, KEYS[3] the index of recent calls (the call id: the sort key from its
     * 18th character), KEYS[4] (optional) its business-id index; ARGV[at] the encoded receipt,
     * ARGV[at + 1] its ttl in ms, ARGV[at + 2] its index member (its sort key). As
     * {@code RedisReceipts.put}, in the same script as the record (standalone and Sentinel only: in
     * a cluster the keys live in other slots); the index of recent calls is trimmed by
     * {@code RedisReceipts.indexed}, not here. Straight-line code with the indices written in, no
     * function call in Lua.
     */
    private static String writeReceipt(int at) {
        return """
                if KEYS[2] then
                  redis.call('SET', KEYS[2], ARGV[%1$d], 'PX', ARGV[%2$d])
                  redis.call('ZADD', KEYS[3], 0, string.sub(ARGV[%3$d], 18))
                """.formatted(at, at + 1, at + 2) + bizIndex(at, 4) + """
                end
                """;
    }

    /**
     * As {@link #writeReceipt(int)} for a completion's receipt, with the receipt's keys at
     * KEYS[key], KEYS[key + 1] and KEYS[key + 2]: the receipt replaces the claim's
     * ({@code SET ... XX}), whose index members are already there, so only a receipt that was not
     * there (the claim's was lost, or the claim wrote none) is added to the index of recent calls.
     * The business-id index's expiry still moves to the new receipt's.
     */
    private static String replaceReceipt(int at, int key) {
        return """
                if KEYS[%4$d] then
                  if not redis.call('SET', KEYS[%4$d], ARGV[%1$d], 'PX', ARGV[%2$d], 'XX') then
                    redis.call('SET', KEYS[%4$d], ARGV[%1$d], 'PX', ARGV[%2$d])
                    redis.call('ZADD', KEYS[%5$d], 0, string.sub(ARGV[%3$d], 18))
                  end
                """.formatted(at, at + 1, at + 2, key, key + 1) + bizIndex(at, key + 2) + """
                end
                """;
    }

    /** Lua that adds the receipt's sort key (ARGV[at + 2]) to KEYS[key], its business-id index, when given, and keeps it as long as the receipt. */
    private static String bizIndex(int at, int key) {
        return """
                  if KEYS[%3$d] then
                    redis.call('ZADD', KEYS[%3$d], 0, ARGV[%2$d])
                    if redis.call('PTTL', KEYS[%3$d]) < tonumber(ARGV[%1$d]) then redis.call('PEXPIRE', KEYS[%3$d], ARGV[%1$d]) end
                  end
                """.formatted(at + 1, at + 2, key);
    }

    /**
     * Lua that returns 0 when the owner whose value start ({@code "F\n<owner>\n"}) is in
     * {@code p} may not write its record back: an operator released the record of that settled
     * call ({@link #EVICT_SETTLED}: KEYS[2], the record's fence, holds the owner). Run only when
     * the record is absent.
     */
    private static final String FENCED = """
            if redis.call('SISMEMBER', KEYS[2], string.sub(p, 3, #p - 1)) == 1 then return 0 end
            """;

    /**
     * The whole claim, atomically. ARGV: fingerprint, owner, callId, leaseMs, retentionMs (how long
     * a lapsed claim is kept; at least one lease), then optionally the receipt to write when it
     * claims (see {@link #writeReceipt}, from ARGV[6]). Returns {kind, ...} as bulk strings, read by
     * {@link RecordValue#claimResult}. A takeover keeps the record's creation time, and writes as its
     * priors the lapsed record's own followed by the lapsed owner's call id ({@code {'takeover',
     * lapsed call id, priors}}).
     */
    static final RedisScript CLAIM = new RedisScript(NOW + FIELDS + """
            local lease = tonumber(ARGV[4])
            local kept = math.max(lease, tonumber(ARGV[5]))
            local function claim(created, priors)
              redis.call('SET', KEYS[1], 'F\\n' .. ARGV[2] .. '\\n' .. ARGV[3] .. '\\n' .. ARGV[1] .. '\\n' .. created .. '\\n'
                .. n(kept) .. '\\n' .. priors, 'PX', n(lease + kept))
            """ + writeReceipt(6) + """
            end
            local v = redis.call('GET', KEYS[1])
            if not v then
              claim(n(now), '')
              return {'claimed'}
            end
            local f = fields(v)
            if f[4] ~= ARGV[1] then return {'mismatch', f[3]} end
            if f[1] == 'C' then return {'completed', f[3], f[7], string.sub(v, f.body)} end
            if f[1] == 'N' then return {'not-retained', f[3], f[7], f[8]} end
            local leaseEnd = now + redis.call('PTTL', KEYS[1]) - tonumber(f[6])
            if leaseEnd > now then return {'in-flight', f[3], f[4], n(leaseEnd)} end
            local priors = f[3]
            if f[7] and f[7] ~= '' then priors = f[7] .. ' ' .. f[3] end
            claim(f[5], priors .. '\\n')
            return {'takeover', f[3], priors}
            """, ScriptOutputType.MULTI);

    /**
     * KEYS: the record, its fence ({@link #EVICT_SETTLED}). ARGV: the owner's value start
     * ({@code "F\n<owner>\n"}), leaseMs, then the owner's whole in-flight value and its expiry in
     * ms (lease plus retention), written when the key is absent and the owner not fenced.
     * Moves the lease end to now + lease, and the expiry with it (the record's retention after it
     * stays). Returns 1 when renewed, 2 when the record was absent and written again, 0 when
     * another owner holds it, it has ended, or an operator released it (the owner is fenced).
     */
    static final RedisScript RENEW = new RedisScript(FIELDS + """
            local v = redis.call('GET', KEYS[1])
            local p = ARGV[1]
            if not v then
            """ + FENCED + """
              redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
              return 2
            end
            if string.sub(v, 1, #p) ~= p then return 0 end
            redis.call('PEXPIRE', KEYS[1], string.format('%.0f', tonumber(ARGV[2]) + tonumber(fields(v)[6])))
            return 1
            """, ScriptOutputType.INTEGER);

    /**
     * Ends the record. ARGV: the owner's value start ({@code "F\n<owner>\n"}), the new state (C or
     * N), ttlMs, the value's tail ({@code "<attempts>\n<status>\n"} then, for C, the encoded
     * response), the completion time (epoch ms of the proxy's clock: it only informs, like a
     * native claim's creation time), the owner's {@code "<callId>\n<fingerprint>\n<createdMs>\n"}
     * (used only when the key is absent), then optionally the receipt to write when it ends the
     * record (ARGV[7] the encoded receipt, ARGV[8] its ttl in ms, ARGV[9] its business-id index
     * member; KEYS[3] to KEYS[5] as in {@link #replaceReceipt}; KEYS[2] is the record's fence). The
     * call id, fingerprint and creation time are the in-flight value's, or the owner's own when the
     * record is gone (Redis restarted empty, flushed it, or evicted it under memory pressure: the
     * owner's outcome is written back), unless an operator released it ({@link #EVICT_SETTLED} fenced the
     * owner). Returns 1 when ended, 2 when ended into an absent key, 0 when another owner holds it,
     * it has ended, or the owner is fenced.
     *
     * <p>Straight-line code, no {@code TIME} and no local functions: every protected call runs it
     * once, and in {@code redis-benchmark} (300,000 calls, 16 pipelined) that cut the server's time
     * per call from 15.3–17.9 µs (with the shared {@code NOW} prelude and a Lua function for the receipt) to 10.6–10.7.
     */
    static final RedisScript END = new RedisScript("""
            local v = redis.call('GET', KEYS[1])
            local p = ARGV[1]
            local head = ARGV[6]
            if v then
              if string.sub(v, 1, #p) ~= p then return 0 end
              local e = #p
              for k = 1, 3 do e = string.find(v, '\\n', e + 1, true) end
              head = string.sub(v, #p + 1, e)
            else
            """ + FENCED + """
            end
            redis.call('SET', KEYS[1], ARGV[2] .. string.sub(p, 2) .. head .. ARGV[5] .. '\\n' .. ARGV[4], 'PX', ARGV[3])
            """ + replaceReceipt(7, 3) + """
            if v then return 1 end
            return 2
            """, ScriptOutputType.INTEGER);

    /**
     * An operator's release of a settled call's record ({@code DELETE /dlq/{id}?release=true}, and
     * a DLQ replay): deletes the record whatever its state or owner, and fences ARGV[2], the owner
     * token of the call's execution that settled (each execution has its own), from writing it back for ARGV[1] ms (KEYS[2], the record's fence, is a set of
     * owner tokens). Else that owner's end (or renewal), still on its way or still being retried
     * while the store failed, would find the key absent, write the record back and undo the
     * release: the next duplicate would replay the very outcome the operator released. The fence
     * stops only writes into an absent key, and only that owner's: the next owner's claim, and
     * every write while a record is there, pass. Returns 1 when a record was deleted.
     */
    static final RedisScript EVICT_SETTLED = new RedisScript("""
            local n = redis.call('DEL', KEYS[1])
            redis.call('SADD', KEYS[2], ARGV[2])
            if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[2], ARGV[1]) end
            return n
            """, ScriptOutputType.INTEGER);

    /** ARGV: the owner's value start ({@code "F\n<owner>\n"}). Returns 1 when deleted. */
    static final RedisScript RELEASE = new RedisScript(OWNED + """
            redis.call('DEL', KEYS[1])
            return 1
            """, ScriptOutputType.INTEGER);

    /** Returns {value or '', PTTL, now}: a record read with the server's clock beside it. */
    static final RedisScript READ = new RedisScript(NOW + """
            return {redis.call('GET', KEYS[1]) or '', redis.call('PTTL', KEYS[1]), n(now)}
            """, ScriptOutputType.MULTI);

    private RecordScripts() {
    }
}
