package dev.idemproxy.core.pipeline;


/**
 * The front's timing rules for one client connection (docs/security.md, "Limits"), as pure state
 * driven by the connection's events and a clock reading passed in (nanoseconds, any one
 * monotonic scale). A connection is at any time
 * <ul>
 *   <li>reading a request head: {@code headTimeout} from its first byte, or from the accept on a
 *       new connection;</li>
 *   <li>reading a request body: {@code bodyTimeout} from the end of its head, for the whole body;</li>
 *   <li>between requests: with no request unanswered, {@code idleTimeout} from the last exchange's end.</li>
 * </ul>
 * A request is unanswered from its head to the end of its final response, so a connection whose
 * call is in flight (the upstream working, a response streaming) is never idle. Only the request
 * at the front of the line is timed: while an earlier pipelined request is unanswered, the proxy
 * is not reading for the next one (the sequencer holds it), so its clock starts when the last
 * earlier exchange ends.
 * Not thread-safe: one instance per channel, used on its event loop.
 */
final class FrontTimeline {
    /** What {@link #check} found. */
    enum Expiry { NONE, HEAD, BODY, IDLE }

    private enum Reading { BETWEEN, HEAD, BODY }

    private final long headNanos;
    private final long bodyNanos;
    private final long idleNanos;
    /** The longest wait between checks, so that a phase's clock is never looked at late (see {@link #nextCheckIn}). */
    private final long stepNanos;

    private Reading reading = Reading.HEAD;
    /** When the timed phase began: the head's first byte (or the accept), the head's end, the last exchange's end. */
    private long since;
    /** Requests whose head was read and whose final response has not ended. */
    private int unanswered;
    /** A byte of the request being read has arrived (false only on a new connection that sent nothing yet). */
    private boolean anyByte;
    /** A final response to the request whose body is being read has started: no 408 can follow it. */
    private boolean answeredCurrent;

    /** A connection accepted at {@code now}: its first head is timed from here. */
    FrontTimeline(LimitsPolicy limits, long now) {
        this.headNanos = limits.headTimeout().toNanos();
        this.bodyNanos = limits.bodyTimeout().toNanos();
        this.idleNanos = limits.idleTimeout().toNanos();
        this.stepNanos = Math.min(headNanos, Math.min(bodyNanos, idleNanos));
        this.since = now;
    }

    /** Bytes arrived that do not belong to a request already under way: the first byte of a head. */
    void bytesArrived(long now) {
        if (reading == Reading.BETWEEN) {
            reading = Reading.HEAD;
            since = now;
        }
        anyByte = true;
    }

    /** A request head was decoded; {@code whole}: its body (if any) came with it. */
    void headRead(long now, boolean whole) {
        unanswered++;
        answeredCurrent = false;
        if (whole) {
            reading = Reading.BETWEEN;
        } else {
            reading = Reading.BODY;
            since = now;
        }
    }

    /** The last content of the request being read was decoded. */
    void bodyRead(long now) {
        if (reading != Reading.BODY) {
            return;
        }
        reading = Reading.BETWEEN;
        if (unanswered == 0) {
            since = now;  // answered before its body ended: idle from here
        }
    }

    /** A final (non-1xx) response head is being written; it answers the oldest unanswered request. */
    void responseStarted() {
        if (reading == Reading.BODY && unanswered == 1) {
            answeredCurrent = true;
        }
    }

    /** The last part of a final response was written. */
    void responseEnded(long now) {
        if (unanswered == 0) {
            return;
        }
        unanswered--;
        if (unanswered == 0 && reading != Reading.BODY) {
            since = now;  // idle from here, or a head held behind earlier exchanges is timed from here
        } else if (unanswered == 0) {
            answeredCurrent = true;
        } else if (unanswered == 1 && reading == Reading.BODY) {
            since = now;  // the body was held behind earlier exchanges: timed from here
        }
    }

    /** What has run out at {@code now}, if anything. */
    Expiry check(long now) {
        long limit = limit();
        if (limit == Long.MAX_VALUE || now - since < limit) {
            return Expiry.NONE;
        }
        return switch (reading) {
            case HEAD -> Expiry.HEAD;
            case BODY -> Expiry.BODY;
            case BETWEEN -> Expiry.IDLE;
        };
    }

    /**
     * Nanoseconds (at least 1) until the next {@link #check} is due: the time left in the timed
     * phase, but never more than the shortest timeout. Every phase starts at or after the check
     * before it was planned, and lasts at least that shortest timeout, so a check planned this way
     * always comes at or before the deadline of whichever phase begins meanwhile: one scheduled
     * check per connection serves every request on it, and no request schedules or cancels one.
     */
    long nextCheckIn(long now) {
        long limit = limit();
        long left = limit == Long.MAX_VALUE ? stepNanos : limit - (now - since);
        return Math.max(1, Math.min(stepNanos, left));
    }

    /** How long the phase may last, or {@code Long.MAX_VALUE} when nothing is timed now. */
    private long limit() {
        return switch (reading) {
            case HEAD -> unanswered == 0 ? headNanos : Long.MAX_VALUE;
            case BODY -> unanswered <= 1 ? bodyNanos : Long.MAX_VALUE;
            case BETWEEN -> unanswered == 0 ? idleNanos : Long.MAX_VALUE;
        };
    }

    /**
     * Whether a 408 may answer the request that ran out of time: some of it arrived (a new
     * connection that never sent a byte is closed without one) and no response to it has started.
     */
    boolean canAnswer() {
        return reading == Reading.HEAD ? anyByte : !answeredCurrent;
    }

    /** When the timed phase began, on the scale of the readings passed in. */
    long since() {
        return since;
    }

    int unanswered() {
        return unanswered;
    }
}
