package dev.idemproxy.core.util;

import java.util.concurrent.CompletionException;

/** Failures of futures. Stateless. */
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
}
