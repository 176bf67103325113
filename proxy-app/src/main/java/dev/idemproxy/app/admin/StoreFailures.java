package dev.idemproxy.app.admin;

import dev.idemproxy.core.store.StoreUnavailableException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/**
 * Turns a failed store stage into an answer: an unreachable store is {@code 503
 * store-unavailable}; anything else stays a failure, which the server turns into a 500. Stateless.
 */
final class StoreFailures {
    private StoreFailures() {
    }

    /** {@code stage}, with a store outage answered as 503 instead of failing. */
    static CompletionStage<AdminResponse> recover(CompletionStage<AdminResponse> stage) {
        return stage.exceptionally(t -> {
            Throwable cause = unwrap(t);
            if (cause instanceof StoreUnavailableException) {
                return AdminResponse.problem(503, "store-unavailable", "Store unavailable", cause.getMessage());
            }
            throw t instanceof CompletionException ce ? ce : new CompletionException(cause);
        });
    }

    static Throwable unwrap(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }
}
