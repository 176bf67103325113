package dev.idemproxy.core;

import java.util.concurrent.CompletionException;

/** Failures of futures and their one-line descriptions. Stateless. */
public final class Failures {
    private Failures() {}

    /**
     * What went wrong, for a failure that came through a {@code CompletableFuture}: the cause a
     * {@link CompletionException} wraps (a stage after the one that failed sees it wrapped), else
     * the failure itself.
     */
    public static Throwable cause(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    /** A one-line description of a failure for problem details and logs. */
    public static String describe(Throwable t) {
        if (t instanceof dev.idemproxy.core.upstream.MalformedResponseException) {
            return t.getMessage();
        }
        Throwable c = t;
        while (c.getCause() != null && c.getMessage() == null) {
            c = c.getCause();
        }
        return c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage());
    }
}
