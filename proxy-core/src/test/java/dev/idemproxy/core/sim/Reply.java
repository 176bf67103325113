package dev.idemproxy.core.sim;

import java.util.SplittableRandom;

/**
 * What the simulated upstream does with one business request, and whether it performs the side
 * effect: the closed set of behaviours a run draws from. The upstream is honest: a status of the
 * not-executed class is never answered after executing, and an MCP result is never sent for a
 * call not executed.
 */
enum Reply {
    /** Executes, answers 200 or 201 with a body. */
    OK(true),
    /** Executes, answers 200 chunked, its pieces spread in time. */
    STREAMED(true),
    /** Executes, answers a 4xx of the executed class (400, 404, 422). */
    CLIENT_ERROR(true),
    /** Does not execute, answers 409 (not executed). */
    CONFLICT(false),
    /** Does not execute, answers 429 with a Retry-After of 0 to 2 s. */
    THROTTLE(false),
    /** Executes, answers a 5xx. */
    ERROR_EXECUTED(true),
    /** Does not execute, answers 503 (for a route with notExecutedOn [503], a promise kept). */
    ERROR_NOT_EXECUTED(false),
    /** Closes the connection without executing. */
    RESET_BEFORE(false),
    /** Executes, then closes before a byte of the answer. */
    DROP_AFTER(true),
    /** Executes, sends the head and part of the body, then closes. */
    DROP_MID(true),
    /** Executes (or not), never answers. */
    HANG(true),
    /** Executes, answers Server-Sent Events. */
    SSE(true);

    final boolean executes;

    Reply(boolean executes) {
        this.executes = executes;
    }

    private static final Reply[] ALL = values();

    /** A run's weights: most answers plain, faults at rates drawn per run. */
    static int[] drawWeights(SplittableRandom r) {
        int[] w = new int[ALL.length];
        w[OK.ordinal()] = 20 + r.nextInt(40);
        w[STREAMED.ordinal()] = r.nextInt(6);
        w[CLIENT_ERROR.ordinal()] = r.nextInt(4);
        w[SSE.ordinal()] = r.nextInt(4);
        boolean faulty = r.nextInt(5) != 0;
        for (Reply f : new Reply[] {CONFLICT, THROTTLE, ERROR_EXECUTED, ERROR_NOT_EXECUTED, RESET_BEFORE, DROP_AFTER, DROP_MID, HANG}) {
            w[f.ordinal()] = faulty ? r.nextInt(8) : 0;
        }
        return w;
    }

    static Reply pick(int[] weights, SplittableRandom r) {
        int total = 0;
        for (int x : weights) {
            total += x;
        }
        int x = r.nextInt(total);
        for (Reply reply : ALL) {
            x -= weights[reply.ordinal()];
            if (x < 0) {
                return reply;
            }
        }
        return OK;
    }
}
