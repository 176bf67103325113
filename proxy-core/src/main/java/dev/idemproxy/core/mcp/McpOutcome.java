package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.retry.FailureClass;
import dev.idemproxy.core.retry.OutcomeClass;
import java.util.Set;

/**
 * How one upstream attempt of a {@code tools/call} ended, in the terms the retry rules decide on
 * (docs/idempotency.md, docs/mcp.md): its {@link OutcomeClass}, the {@code retry.retryOn} word that lists it, and
 * the reason a retry of it is counted under. This class is immutable.
 *
 * @param outcomeClass executed, not executed or unknown
 * @param retryOnWord  the {@code retryOn} entry that lists this outcome: a failure's spelling
 *                     ({@code read-timeout}), or a status ({@code 503}; {@code 500} for a JSON-RPC
 *                     {@code -32603}); null for an executed outcome, never retried
 * @param reason       the metrics/log reason: {@code read_timeout}, {@code status_503},
 *                     {@code jsonrpc_internal_error}, {@code no_final_response}, {@code result}, …
 * @param failure      the transport failure, or null when a response came
 * @param toolError    a {@code result} with {@code isError: true} (executed: the tool said it failed)
 */
public record McpOutcome(OutcomeClass outcomeClass, String retryOnWord, String reason, FailureClass failure, boolean toolError) {
    public McpOutcome {
        requireNonNull(outcomeClass, "outcomeClass");
        requireNonNull(reason, "reason");
    }

    /** Whether {@code retryOn} lists this outcome; an executed outcome never is. */
    public boolean listedIn(Set<String> retryOn) {
        if (retryOnWord == null) {
            return false;
        }
        if (failure == FailureClass.RESET_BEFORE_REQUEST) {
            return retryOn.contains(FailureClass.CONNECT_FAILURE.spelling()) || retryOn.contains(FailureClass.RESET.spelling());
        }
        return retryOn.contains(retryOnWord);
    }

    public boolean isFailure() {
        return failure != null;
    }
}
