package dev.idemproxy.core.tries;

/** What the proxy decided after a try, with its contract spelling. */
public enum TryNext {
    /** Another try after a wait ({@code why}: {@code backoff} or {@code retry-after}). */
    RETRY("retry"),
    /** The upstream's receipt endpoint was asked first ({@code why}: its answer, e.g. {@code NOT_FOUND}). */
    CHECK_RECEIPT("check-receipt"),
    /** The call ended with an answer from the upstream (this try's, or a receipt's result). */
    ANSWER("answer"),
    /** The call ended with the proxy's own answer (a problem). */
    STOP("stop");

    private final String spelling;

    TryNext(String spelling) {
        this.spelling = spelling;
    }

    public String spelling() {
        return spelling;
    }

    /** The constant with this spelling. */
    public static TryNext of(String spelling) {
        for (TryNext n : values()) {
            if (n.spelling.equals(spelling)) {
                return n;
            }
        }
        throw new IllegalArgumentException("try next '" + spelling + "' (expected: retry, check-receipt, answer or stop)");
    }
}
