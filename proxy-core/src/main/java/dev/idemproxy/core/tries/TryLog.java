package dev.idemproxy.core.tries;

import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.retry.RetryReason;
import dev.idemproxy.core.util.Ticker;
import java.util.ArrayList;
import java.util.List;

/**
 * The accumulator one protected call feeds as its tries start ({@link #started}), end and are
 * decided on ({@link #deciding}), go to a receipt check ({@link #checking}, {@link #receiptAnswered}),
 * and as the call ends ({@link #finish}), which hands back the immutable {@link CallTries} its
 * receipt keeps. Every hook is one call from the attempt loop; all the logic of what a try
 * records is here. Keeps the first {@code MAX_KEPT - 1} tries and the latest, counting those
 * left out between them. Not thread-safe: used on the call's event loop.
 */
public final class TryLog {
    private final Ticker ticker;
    private final long callStartNanos;
    private final List<Try> kept = new ArrayList<>(4);
    private int omitted;

    /** The try under way or last ended (not yet in {@link #kept}); null before the first. */
    private Open open;

    /** A try being recorded: mutable until it goes to {@link #kept}. */
    private static final class Open {
        final int number;
        final long startNanos;
        long endNanos = -1;
        AttemptOutcome outcome;
        TryNext next;
        long waitMs = -1;
        String why;
        long checkStartNanos = -1;
        long checkEndNanos = -1;
        TryNext afterCheck;
        String afterCheckWhy;

        Open(int number, long startNanos) {
            this.number = number;
            this.startNanos = startNanos;
        }
    }

    /**
     * @param ticker         the call's time source
     * @param callStartNanos when the call started, on {@code ticker}: tries' {@code startMs} count from it
     */
    public TryLog(Ticker ticker, long callStartNanos) {
        this.ticker = ticker;
        this.callStartNanos = callStartNanos;
    }

    /** Try {@code number} starts now. */
    public void started(int number) {
        keepOpen();
        open = new Open(number, ticker.nanos());
    }

    /** Try {@code number} ended with {@code outcome} (unless it had already). */
    public void ended(int number, AttemptOutcome outcome) {
        Open t = current(number);
        if (t != null) {
            end(t, outcome);
        }
    }

    /** What was decided after try {@code number}: a retry (its wait and why), or a stop. */
    public void decided(int number, RetryDecision d) {
        Open t = current(number);
        if (t != null) {
            decided(t, d, t.outcome);
        }
    }

    /** The try that ended last goes to a receipt check: the upstream's receipt endpoint is asked about it. */
    public void checking() {
        Open t = open;
        if (t == null || t.endNanos < 0) {
            return;  // a check about an earlier call's claim, before any try
        }
        t.next = TryNext.CHECK_RECEIPT;
        if (t.checkStartNanos < 0) {
            t.checkStartNanos = ticker.nanos();
        }
    }

    /** The receipt endpoint answered ({@code NOT_FOUND}, {@code PROCESSING}, …); the last answer is kept. */
    public void receiptAnswered(String answer) {
        Open t = open;
        if (t == null || t.next != TryNext.CHECK_RECEIPT) {
            return;  // a check about an earlier call's claim, before any try: not a try's
        }
        t.why = answer;
        t.checkEndNanos = ticker.nanos();
    }

    /**
     * The call ended with {@code finalDecision} (null when none was taken): a try still undecided
     * takes it; returns the tries to keep with the receipt.
     */
    public CallTries finish(RetryDecision finalDecision) {
        Open t = open;
        if (t != null) {
            if (t.endNanos < 0) {
                t.endNanos = ticker.nanos();
            }
            if (t.next == TryNext.CHECK_RECEIPT && t.afterCheck == null && finalDecision != null) {
                // the check settled the call: from the receipt's result, or the answer held for it
                // (no problem); else with the proxy's own answer
                t.afterCheck = finalDecision.problem() != null ? TryNext.STOP : TryNext.ANSWER;
                t.afterCheckWhy = finalDecision.spelling();
            } else if (t.next == null && finalDecision != null) {
                t.next = ending(finalDecision, t.outcome);
                t.why = finalDecision.spelling();
            }
        }
        keepOpen();
        return kept.isEmpty() ? CallTries.NONE : new CallTries(kept, omitted);
    }

    private Open current(int number) {
        Open t = open;
        return t != null && t.number == number ? t : null;
    }

    private void end(Open t, AttemptOutcome outcome) {
        if (t.endNanos < 0) {
            t.endNanos = ticker.nanos();
            t.outcome = outcome;
        }
    }

    private static void decided(Open t, RetryDecision d, AttemptOutcome outcome) {
        TryNext next = d.isRetry() ? TryNext.RETRY : ending(d, outcome);
        String why = d.isRetry() ? (d.reason() == RetryReason.RETRY_AFTER ? Try.RETRY_AFTER : Try.BACKOFF) : d.spelling();
        if (d.isRetry()) {
            t.waitMs = d.delay().toMillis();
        }
        if (t.next == TryNext.CHECK_RECEIPT) {
            t.afterCheck = next;
            t.afterCheckWhy = why;
            return;
        }
        t.next = next;
        t.why = why;
    }

    /** How a stop ends the call: with the upstream's answer, or (a failure, or a problem) the proxy's own. */
    private static TryNext ending(RetryDecision d, AttemptOutcome outcome) {
        return d.problem() != null || (outcome != null && outcome.isFailure()) ? TryNext.STOP : TryNext.ANSWER;
    }

    /** Moves the open try to the kept ones: the first MAX_KEPT - 1, then always the latest. */
    private void keepOpen() {
        Open t = open;
        open = null;
        if (t == null) {
            return;
        }
        if (kept.size() == CallTries.MAX_KEPT) {
            kept.remove(CallTries.MAX_KEPT - 1);
            omitted++;
        }
        kept.add(freeze(t));
    }

    private Try freeze(Open t) {
        long end = t.endNanos < 0 ? ticker.nanos() : t.endNanos;
        AttemptOutcome o = t.outcome;
        long checkMs = t.checkStartNanos < 0 ? -1
                : millis((t.checkEndNanos < 0 ? ticker.nanos() : t.checkEndNanos) - t.checkStartNanos);
        return new Try(t.number, millis(t.startNanos - callStartNanos), millis(end - t.startNanos),
                o == null || o.isFailure() ? 0 : o.status(), o == null || !o.isFailure() ? null : o.failure().spelling(),
                o == null ? TryClass.UNKNOWN : TryClass.of(o.outcomeClass()), t.next, t.waitMs, t.why, checkMs,
                t.afterCheck, t.afterCheckWhy);
    }

    private static long millis(long nanos) {
        return Math.max(0, nanos / 1_000_000);
    }
}
