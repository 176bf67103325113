package dev.idemproxy.core.call;

import dev.idemproxy.core.store.RecordKey;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A claim whose client left while it was on the way: nothing was forwarded, so the key is released
 * at once rather than held until its lease lapses, which would keep every retry of the call
 * waiting and then failing with 409; its receipt, which the claim wrote PROCESSING, ends FAILED
 * ({@code client_gone}). Stateless: the release's answer comes back through the call's door
 * ({@link CallEvent.Released}).
 */
final class OrphanedClaim {
    private static final Logger LOG = LoggerFactory.getLogger(Claiming.class);

    private OrphanedClaim() {
    }

    /** Releases {@code key}, claimed under {@code owner} by the call {@code identity}. */
    static void release(CallServices services, Door door, ProxyCall call, CallIdentity identity, Instant createdAt, RecordKey key,
            String owner) {
        services.recorder().abandoned(door.loop(), call, identity, createdAt);
        door.when(services.records().release(key, owner), (ok, err) -> new CallEvent.Released(err));
    }

    /**
     * The release answered: local waiters claim again. A release the store did not take is tried
     * again ({@link StoreWrites}): else the key would stay claimed by a call that never ran until its
     * lease lapsed, and the next duplicate would take it over as an unknown outcome.
     */
    static void released(CallServices services, Door door, RecordKey key, String owner, String fingerprint, CallIdentity identity,
            Throwable failure) {
        if (failure != null) {
            LOG.warn("[call={}] could not release the key of a call whose client left before it was claimed: {}; trying again",
                    identity.callId(), failure.toString());
            services.recorder().writes().write(door.loop(), () -> services.records().release(key, owner), identity.callId(),
                    "release of its key");
        }
        services.waiters().wake(key, fingerprint, null, door.loop());
    }
}
