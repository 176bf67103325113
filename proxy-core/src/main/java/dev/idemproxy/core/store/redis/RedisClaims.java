package dev.idemproxy.core.store.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.idemproxy.core.util.Failures;
import dev.idemproxy.core.store.ClaimAnswerLostException;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.ReceiptPut;
import dev.idemproxy.core.store.RecordKey;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.SetArgs;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims in Redis ({@link RedisRecords#claim}). A claim is one native {@code SET ... NX PX ... GET}:
 * it claims a free key, or answers with the record there, which settles a duplicate of a
 * completed call (or a mismatch) at once. Only a record found in flight goes on to a Lua script
 * ({@link RecordScripts#CLAIM}), because whether its lease has lapsed is read from the key's
 * {@code PTTL} and the server's {@code TIME}; before Redis 7.0 (no {@code NX} with {@code GET})
 * every claim is that script. A scripted claim writes its receipt in the same script in
 * standalone and Sentinel mode (atomic with the record); a native claim's is a second command
 * sent right behind it on the same connection; in a cluster the receipt's keys live in other
 * slots, so it is a second command right after, awaited. Thread-safe.
 */
final class RedisClaims {
    private static final Logger log = LoggerFactory.getLogger(RedisStore.class);

    private final RedisStore backend;
    private final RedisRecords records;
    private final RedisReceipts receipts;
    private final boolean cluster;
    /** Stamps a native claim's informative creation time (lease and expiry are the server's). */
    private final Clock clock;
    /** Whether a claim starts with the native {@code SET ... NX GET} (Redis 7.0 on) rather than the script. */
    private volatile boolean nativeClaims = true;

    RedisClaims(RedisStore backend, RedisRecords records, RedisReceipts receipts, boolean cluster, Clock clock) {
        this.backend = backend;
        this.records = records;
        this.receipts = receipts;
        this.cluster = cluster;
        this.clock = clock;
    }

    CompletionStage<ClaimResult> claim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        if (!nativeClaims) {
            return backend.call(() -> scriptClaim(key, fingerprint, owner, lease, ctx));
        }
        long leaseMs = Math.max(1, lease.toMillis());
        long kept = Math.max(leaseMs, ctx.retention().toMillis());
        return backend.call(() -> {
            RedisFuture<byte[]> sent = backend.commands().setGet(records.recordKey(key), RecordValue.inFlight(owner, ctx.callId(),
                    fingerprint, clock.millis(), kept), SetArgs.Builder.nx().px(leaseMs + kept));
            // While disconnected, a command is refused before it is written, and its future has failed by now.
            boolean refusedUnsent = sent.isDone();
            return sent.handle((found, error) -> {
                if (error != null) {
                    if (!isSyntaxError(error)) {
                        return CompletableFuture.<ClaimResult>failedFuture(lostOrRefused(error, refusedUnsent, leaseMs + kept));
                    }
                    // SET ... NX GET needs Redis 7.0; before that, every claim is the script
                    nativeClaims = false;
                    log.info("Redis does not take SET ... NX GET (before 7.0): every claim runs a script");
                    return scriptClaim(key, fingerprint, owner, lease, ctx);
                }
                if (found == null) {
                    return withReceipt(ClaimResult.Claimed.FRESH, ctx, cluster);
                }
                ClaimResult known = RecordValue.existing(found, fingerprint);
                // in flight: whether its lease has lapsed is the server clock's to say, in the script
                return known != null ? CompletableFuture.completedFuture(known) : scriptClaim(key, fingerprint, owner, lease, ctx);
            }).thenCompose(stage -> stage);
        });
    }

    /** For tests: every claim runs the script, as against a Redis before 7.0. */
    void scriptClaimsOnly() {
        nativeClaims = false;
    }

    /**
     * The failure of a native claim: a command refused before it was sent, or an error reply
     * (Redis refused it whole), wrote nothing; anything else (a timeout, the connection lost in
     * flight) may have come after Redis wrote it, and what {@code SET ... NX} writes is always a
     * fresh record under the caller's owner token, so the caller may undo it
     * ({@link RedisRecords#releaseLostClaim}). A claim run as the script is never reported so: it
     * may have been a takeover, which must stay.
     */
    private static Throwable lostOrRefused(Throwable error, boolean refusedUnsent, long recordLifetimeMillis) {
        Throwable cause = Failures.cause(error);
        if (refusedUnsent || cause instanceof RedisCommandExecutionException || isRefusedWhileDisconnected(cause)) {
            return error;
        }
        return new ClaimAnswerLostException("Redis: the claim's answer was lost: " + cause.getMessage(), cause,
                Duration.ofMillis(recordLifetimeMillis));
    }

    /**
     * Lettuce's refusal of a command while disconnected ({@code REJECT_COMMANDS}), which reaches a
     * caller on another thread only after the call returned: the command was never written. (Were
     * the wording to change, such a claim would only be released for nothing: the release is fenced.)
     */
    private static boolean isRefusedWhileDisconnected(Throwable cause) {
        return cause instanceof RedisException && String.valueOf(cause.getMessage()).startsWith("Currently not connected");
    }

    private static boolean isSyntaxError(Throwable error) {
        Throwable cause = Failures.cause(error);
        return cause instanceof RedisCommandExecutionException && String.valueOf(cause.getMessage()).contains("syntax error");
    }

    /**
     * A claim whose receipt was not written with it (a native claim; any claim in a cluster, where
     * the receipt's keys live in other slots): when it claimed, the receipt is a second command. It
     * is awaited when {@code await}; otherwise it is only sent (outside a cluster one connection
     * keeps the order, so every later read or write of it comes after). A failure there is logged,
     * not the claim's (it only loses the PROCESSING state).
     */
    private CompletionStage<ClaimResult> withReceipt(ClaimResult result, ClaimContext ctx, boolean await) {
        ReceiptPut receipt = ctx.receipt();
        if (receipt == null || !(result instanceof ClaimResult.Claimed)) {
            return CompletableFuture.completedFuture(result);
        }
        CompletionStage<ClaimResult> written = receipts.put(receipt.receipt(), receipt.ttl()).handle((x, err) -> {
            if (err != null) {
                log.warn("[call={}] could not write the receipt: {}", ctx.callId(), err.toString());
            }
            return result;
        });
        return await ? written : CompletableFuture.completedFuture(result);
    }

    /** The whole claim as one script ({@link RecordScripts#CLAIM}), with its receipt in it outside a cluster. */
    private CompletionStage<ClaimResult> scriptClaim(RecordKey key, String fingerprint, String owner, Duration lease, ClaimContext ctx) {
        ReceiptPut receipt = ctx.receipt();
        byte[][] args = {bytes(RecordValue.line(fingerprint)), bytes(RecordValue.line(owner)), bytes(RecordValue.line(ctx.callId())),
            RedisRecords.millis(lease), bytes(Long.toString(ctx.retention().toMillis()))};
        if (receipt != null && !cluster) {  // one script writes the claim and its receipt
            String[] keys = receipts.scriptKeys(records.recordKey(key), receipt.receipt());
            byte[][] all = RedisRecords.concat(args, receipts.scriptArgs(receipt.receipt(), receipt.ttl()));
            return RecordScripts.CLAIM.<List<Object>>run(backend.commands(), keys, all).thenApply(reply -> {
                ClaimResult result = RecordValue.claimResult(reply);
                if (result instanceof ClaimResult.Claimed) {
                    receipts.indexed();  // the script added the receipt to the index of recent calls
                }
                return result;
            });
        }
        return RecordScripts.CLAIM.<List<Object>>run(backend.commands(), records.recordKey(key), args)
                .thenApply(RecordValue::claimResult)
                .thenCompose(result -> withReceipt(result, ctx, true));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }
}
