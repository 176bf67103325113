package dev.idemproxy.core.call;

/**
 * What the idempotency layer attaches to a protected call: who the call is, and what to do
 * with its outcome (complete or release the record, write the receipt and any dead letter).
 * Implementations are used on the call's event loop.
 */
public interface CallProtection {
    CallIdentity identity();

    /** Called once, when the call has ended (the client may be gone by then). */
    void settle(CallSettlement settlement);

    /** Protection for a call with no idempotency record: a fresh call id and generated key. */
    static CallProtection unrecorded(CallIdentity identity) {
        return new CallProtection() {
            @Override
            public CallIdentity identity() {
                return identity;
            }

            @Override
            public void settle(CallSettlement settlement) {
                // nothing is recorded for this call
            }
        };
    }
}
