package dev.idemproxy.core;

import java.time.Duration;

/**
 * What a graceful stop did (CONTRACT §2: SIGTERM finishes in-flight calls for up to
 * {@code shutdown.grace}), for its two log lines: {@code drain started: inFlight=N graceMs=20000} and
 * {@code drain ended: finished=N cut=N ms=N}. This class is immutable.
 *
 * @param inFlightAtStart calls in flight when the listener stopped accepting
 * @param startedDuring   calls that started meanwhile (a request already on a kept-alive connection)
 * @param cut             calls still in flight when the grace ran out, cut by the close that follows
 * @param millis          how long the drain took
 */
public record Drain(int inFlightAtStart, long startedDuring, int cut, long millis) {
    /** Calls that ended during the drain. */
    public long finished() {
        return Math.max(0, inFlightAtStart + startedDuring - cut);
    }

    /** Whether every call finished within the grace. */
    public boolean complete() {
        return cut == 0;
    }

    /** The first line's message. */
    public static String startLine(int inFlight, Duration grace) {
        return "drain started: inFlight=" + inFlight + " graceMs=" + grace.toMillis();
    }

    /** The second line's message. */
    public String endLine() {
        return "drain ended: finished=" + finished() + " cut=" + cut + " ms=" + millis;
    }
}
