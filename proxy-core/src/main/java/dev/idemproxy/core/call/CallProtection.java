package dev.idemproxy.core.call;

/**
 * What the idempotency layer attaches to a protected call: who the call is, and what to do
 * with its outcome (complete or release the record, write the receipt and any dead letter).
 * Implementations are used on the call's event loop.
 */
public interface CallProtection {
    CallIdentity identity();

    /**
     * The call id of an earlier owner whose lapsed claim this call took over (that call may have
     * executed), or null for a fresh claim.
     */
    default String takenOverFrom() {
        return null;
    }

    /**
     * Called once, when the call has ended (the client may be gone by then). The stage completes
     * when the outcome is recorded (or recording gave up for now); the response's last bytes wait
     * for it.
     *
     * @param receipt the call's final receipt, to be written by this protection (with the record
     *                where it can); null: none
     */
    java.util.concurrent.CompletionStage<Void> settle(CallSettlement settlement, dev.idemproxy.core.store.ReceiptPut receipt);

    /**
     * Whether the call's receipt is written when it ends (by this protection, or by the recorder
     * for a call without a record). False for a call forwarded unprotected because the store did
     * not answer: writing its receipt would only fail again, for every call of the outage.
     */
    default boolean writesReceipt() {
        return true;
    }

    /**
     * Protection for a call forwarded unprotected because the store did not answer
     * ({@code onUnavailable: passthrough}): like {@link #unrecorded}, and no receipt is written
     * (its dead letter, if it ends unsuccessfully, still is).
     */
    static CallProtection passthrough(CallIdentity identity) {
        return new Unrecorded(identity, false);
    }

    /** Protection for a call with no idempotency record: a fresh call id and generated key. */
    static CallProtection unrecorded(CallIdentity identity) {
        return new Unrecorded(identity, true);
    }

    /** A call with no record: nothing to settle; its receipt written or not. */
    record Unrecorded(CallIdentity identity, boolean writesReceipt) implements CallProtection {
        @Override
        public java.util.concurrent.CompletionStage<Void> settle(CallSettlement settlement,
                dev.idemproxy.core.store.ReceiptPut receipt) {
            return java.util.concurrent.CompletableFuture.completedFuture(null);  // nothing is recorded
        }
    }
}
