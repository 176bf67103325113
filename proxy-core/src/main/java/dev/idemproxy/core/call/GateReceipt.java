package dev.idemproxy.core.call;

import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.store.ClaimResult;
import java.time.Instant;

/**
 * The receipt of a waiting call that one of its claims took the record for a while (the claim
 * wrote it PROCESSING) and that is then answered at its gate, not forwarded: a waiter whose kept
 * outcome the store refused ({@link KeptOutcome}) and that replays, is refused, or loses its client
 * later. That answer ends the receipt, else it would read PROCESSING for good. A call that forwards
 * leaves it to its record's end. Not thread-safe: used on the call's event loop.
 */
final class GateReceipt {
    private final CallServices services;
    private final Door door;
    private final ProxyCall call;
    private final CallIdentity identity;
    private final Instant createdAt;
    private boolean open;

    GateReceipt(CallServices services, Door door, ProxyCall call, CallIdentity identity, Instant createdAt) {
        this.services = services;
        this.door = door;
        this.call = call;
        this.identity = identity;
        this.createdAt = createdAt;
    }

    /** A claim of the call wrote the receipt PROCESSING, and the call will be answered at its gate. */
    void opened() {
        open = true;
    }

    /** The client left before an answer. */
    void abandoned() {
        if (open) {
            open = false;
            services.recorder().abandoned(door.loop(), call, identity, createdAt);
        }
    }

    /** The call replays {@code done}. */
    void replayed(ClaimResult.Completed done) {
        if (open) {
            open = false;
            services.recorder().replayedAtGate(door.loop(), call, identity, createdAt, done);
        }
    }

    /** The call is refused with {@code problem}. */
    void refused(Problem problem) {
        if (open) {
            open = false;
            services.recorder().refusedAtGate(door.loop(), call, identity, createdAt, problem);
        }
    }
}
