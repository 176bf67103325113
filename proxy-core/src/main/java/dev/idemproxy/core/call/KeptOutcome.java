package dev.idemproxy.core.call;

import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.RecordStore;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The outcome a waiter keeps: its poll's claim took the record from under the owner here (the
 * record vanished, or the owner's lease lapsed while the store held its renewals up), and that
 * owner settled as {@code known}, whose own write the store will refuse. The waiter writes that
 * outcome into the record under its claim and answers its client with it only once the store took
 * it: should a further call have taken this claim over meanwhile, that answer would be one no
 * record holds and no later duplicate gets (seeds 214625, 227385, 234716 and 240458 of the
 * simulation), so the waiter waits for that call instead. A write the store fails is tried again
 * ({@link StoreWrites}) while the waiter answers 503 {@code store-unavailable}: not an outcome, so
 * whatever the record ends with, no answer contradicts it. Each try's answer comes back through
 * the call's door ({@link CallEvent.Kept}). Stateless.
 */
final class KeptOutcome {
    private KeptOutcome() {
    }

    /**
     * Writes {@code known} into {@code key} under the waiter's token {@code owner}, kept {@code ttl},
     * as the claim made with {@code fingerprint} by the call {@code callId} that started at {@code createdAt}.
     */
    static void write(CallServices services, Door door, RecordKey key, String owner, String fingerprint, String callId,
            Instant createdAt, ClaimResult known, Duration ttl) {
        String ran = known instanceof ClaimResult.Completed c ? c.callId() : ((ClaimResult.NotRetained) known).callId();
        OwnedClaim claim = new OwnedClaim(owner, ran, fingerprint, createdAt, ttl);  // replays name the call that ran
        RecordStore records = services.records();
        Supplier<CompletionStage<Boolean>> w;
        if (known instanceof ClaimResult.Completed c) {
            w = () -> records.complete(key, claim, c.response(), c.attempts(), ttl, null);
        } else {
            ClaimResult.NotRetained n = (ClaimResult.NotRetained) known;
            w = () -> records.markNotRetained(key, claim, n.status(), n.attempts(), ttl);
        }
        services.recorder().writes().tracked(door, w, callId, "outcome it was answered with", CallEvent.Kept::new);
    }
}
