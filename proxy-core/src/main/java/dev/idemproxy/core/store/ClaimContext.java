package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

/**
 * What a claim records about the call making it, besides the owner token. This class is immutable.
 *
 * @param callId the claiming call's id ({@code X-Call-Id}); duplicates see it in
 *               {@link ClaimResult.InFlight#ownerCallId()} and in replays
 */
public record ClaimContext(String callId) {

    public ClaimContext {
        requireNonNull(callId, "callId");
    }
}
