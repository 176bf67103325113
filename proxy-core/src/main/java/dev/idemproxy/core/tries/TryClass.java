package dev.idemproxy.core.tries;

import dev.idemproxy.core.retry.OutcomeClass;

/** A try's outcome class (docs/idempotency.md), with its contract spelling. */
public enum TryClass {
    EXECUTED("executed"),
    NOT_EXECUTED("not-executed"),
    UNKNOWN("unknown");

    private final String spelling;

    TryClass(String spelling) {
        this.spelling = spelling;
    }

    public String spelling() {
        return spelling;
    }

    public static TryClass of(OutcomeClass c) {
        return switch (c) {
            case EXECUTED -> EXECUTED;
            case NOT_EXECUTED -> NOT_EXECUTED;
            case UNKNOWN -> UNKNOWN;
        };
    }
}
