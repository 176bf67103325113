package dev.idemproxy.core.call;

import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.store.StoredResponse;

/**
 * How a protected call ended, handed to whoever owns its idempotency record, receipt and
 * dead letter. This class is immutable.
 *
 * @param decision   the final retry decision (store? release the key? dead-letter?)
 * @param attempts   upstream attempts made
 * @param finalStatus the status the client got (upstream's, or the proxy's problem status)
 * @param response   the captured final response, or null when it was too large to retain
 * @param truncated  true when the response was cut mid-body (then {@code response} is the 504 stored instead)
 */
public record CallSettlement(RetryDecision decision, int attempts, int finalStatus, StoredResponse response, boolean truncated) {
}
