package dev.idemproxy.core.call;

import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.retry.RetryReason;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.tries.CallTries;

/**
 * How a protected call ended, handed to whoever owns its idempotency record, receipt and
 * dead letter. This class is immutable.
 *
 * @param decision   the final retry decision (store? release the key? dead-letter?); null for a
 *                   deadline that expired before any attempt
 * @param attempts   upstream attempts made
 * @param finalStatus the status the client got (upstream's, or the proxy's problem status); for a
 *                   truncated response the 504 stored for its duplicates (the client had a broken
 *                   head of the upstream's status)
 * @param response   the captured final response, or null when it was too large to retain
 * @param truncated  true when the response was cut mid-body (then {@code response} is the 504 stored instead)
 * @param tries      the call's tries, as its receipt keeps them
 */
public record CallSettlement(RetryDecision decision, int attempts, int finalStatus, StoredResponse response, boolean truncated,
        CallTries tries) {

    /** The same settlement with the call's tries, as its receipt keeps them. */
    public CallSettlement withTries(CallTries t) {
        return new CallSettlement(decision, attempts, finalStatus, response, truncated, t);
    }

    /** Why the call ended. */
    public RetryReason why() {
        return truncated ? RetryReason.TRUNCATED_RESPONSE : decision == null ? RetryReason.DEADLINE : decision.reason();
    }

    /** The call's reason, as its log line, receipt and dead letter spell it. */
    public String reason() {
        return truncated || decision == null ? why().spelling() : decision.spelling();
    }
}
