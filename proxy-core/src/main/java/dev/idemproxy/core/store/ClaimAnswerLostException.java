package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * A claim that was sent to the store and whose answer never came back (a timeout, a connection
 * lost while the command was in flight): the store may or may not have written it. A store
 * throws it only where a claim written that way can only be a <em>fresh</em> record under the
 * caller's owner token, never a takeover of someone else's, so that
 * {@link RecordStore#releaseLostClaim} can undo it exactly: nothing else ever holds that
 * token. To everyone else it is the {@link StoreUnavailableException} it extends.
 */
public final class ClaimAnswerLostException extends StoreUnavailableException {
    private static final long serialVersionUID = 1L;

    private final transient Duration recordLifetime;

    /**
     * @param recordLifetime how long the store keeps such a record at most (its lease and the
     *                       retention after it): no release is needed after that
     */
    public ClaimAnswerLostException(String message, Throwable cause, Duration recordLifetime) {
        super(message, cause);
        this.recordLifetime = requireNonNull(recordLifetime, "recordLifetime");
    }

    public Duration recordLifetime() {
        return recordLifetime;
    }
}
