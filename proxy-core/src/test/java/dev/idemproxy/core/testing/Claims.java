package dev.idemproxy.core.testing;

import dev.idemproxy.core.store.OwnedClaim;
import java.time.Duration;
import java.time.Instant;

/**
 * Owned claims for store tests that name an owner by its token alone: call id {@code "call-" + owner}
 * (as the store contract's claims make them), fingerprint {@code fp} unless given. A write that
 * finds its record gone uses these fields, and the near-cache caches an ended record under them:
 * where a test then claims again, give the fingerprint the claim used. Stateless.
 */
public final class Claims {
    /** The creation time a written-back record gets. */
    public static final Instant CREATED = Instant.parse("2030-01-01T00:00:00Z");

    private Claims() {
    }

    public static OwnedClaim owned(String owner) {
        return owned(owner, "fp");
    }

    public static OwnedClaim owned(String owner, String fingerprint) {
        return owned(owner, fingerprint, "call-" + owner);
    }

    /** A claim of call {@code callId}: a completion keeps the claim's call id in the record. */
    public static OwnedClaim owned(String owner, String fingerprint, String callId) {
        return new OwnedClaim(owner, callId, fingerprint, CREATED, Duration.ZERO);
    }
}
