package dev.idemproxy.core.call;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where a forwarded call's attempts stand ({@link Forwarding}), within the call's
 * {@link CallPhase#FORWARDING}. Each phase names the phases it may move to; the forwarding checks
 * every move against them (docs/architecture.md draws them).
 */
public enum ForwardingPhase {
    /** The call's end is decided: nothing more happens here. Final. */
    SETTLED,
    /** The final answer streams to the client. */
    STREAMING(SETTLED),
    /** Waiting the backoff before the next attempt. */
    BACKING_OFF(SETTLED),
    /** A retry was decided; the task's token is being taken in the store. */
    TAKING_TOKEN(BACKING_OFF, STREAMING, SETTLED),
    /** The receipt endpoint is asked what became of the call (again, after a PROCESSING). */
    CHECKING_RECEIPT(TAKING_TOKEN, BACKING_OFF, SETTLED),
    /** An answer is kept whole: judged once all in, or its receipt checked. */
    HOLDING(CHECKING_RECEIPT, TAKING_TOKEN, BACKING_OFF, STREAMING, SETTLED),
    /** The attempt's request is on its way; its answer's head is awaited. */
    AWAITING_HEAD(HOLDING, CHECKING_RECEIPT, TAKING_TOKEN, BACKING_OFF, STREAMING, SETTLED),
    /** The attempt waits for its upstream connection. */
    CONNECTING(AWAITING_HEAD, TAKING_TOKEN, BACKING_OFF, SETTLED),
    /** Reading the task's budget before the first attempt. */
    READING_BUDGET(CONNECTING, SETTLED),
    /** Not started. */
    STARTING(READING_BUDGET, CONNECTING, CHECKING_RECEIPT, SETTLED);

    static {
        for (ForwardingPhase p : values()) {
            p.next = p.targets.length == 0 ? EnumSet.noneOf(ForwardingPhase.class) : EnumSet.copyOf(java.util.Arrays.asList(p.targets));
        }
        BACKING_OFF.next.add(CONNECTING);  // the next attempt
        CHECKING_RECEIPT.next.addAll(EnumSet.of(READING_BUDGET, CONNECTING));  // a taken-over call's predecessor was not found
    }

    private final ForwardingPhase[] targets;
    private Set<ForwardingPhase> next;

    ForwardingPhase(ForwardingPhase... targets) {
        this.targets = targets;
    }

    /** The phases this one may move to. */
    public Set<ForwardingPhase> next() {
        return java.util.Collections.unmodifiableSet(next);
    }

    public boolean canMoveTo(ForwardingPhase p) {
        return next.contains(p);
    }
}
