package dev.idemproxy.core.call;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.idempotency.StoredKey;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.store.RecordKey;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * What a {@link CallDialect.Planner} made of a buffered call: protect it, reject it with a problem,
 * answer it at once, or pass it through unprotected. All implementations are immutable.
 */
public sealed interface CallPlan {

    /** What the call is within its route, for logs and receipts (an MCP tool's name); null when nothing. */
    default String label() {
        return null;
    }

    /** What the planning dialect keeps for itself about the call (read only by that dialect); null when nothing. */
    default CallDialect.Facts facts() {
        return null;
    }

    /**
     * Claim the record, forward once through the attempts, store the outcome.
     *
     * @param record      the record the call claims (route, scope hash, stored key: {@link StoredKey})
     * @param fingerprint 64 hex digits that must match when the key is reused
     * @param headerValue what goes upstream in the key header (the client's value unchanged, or the key)
     * @param window      how long a derived key's record counts (the route's {@code key.window}, an
     *                    MCP route's {@code mcp.window})
     * @param legacyFingerprint the fingerprint earlier builds gave the same call, asked once when
     *                    {@code fingerprint} does not match a record, so a record written before an
     *                    upgrade is still found; null when there is none
     */
    record Protect(RecordKey record, String fingerprint, String headerValue, Duration window, String label,
            CallDialect.Facts facts, Supplier<String> legacyFingerprint) implements CallPlan {
        public Protect {
            requireNonNull(record, "record");
            requireNonNull(fingerprint, "fingerprint");
            requireNonNull(headerValue, "headerValue");
            requireNonNull(window, "window");
        }

        /** A key derived from the request: its record counts only within {@link #window}. */
        public boolean derivedKey() {
            return StoredKey.origin(record.key()) == StoredKey.Origin.DERIVED;
        }

        /** How long the record is kept: {@code ttl}, or for a derived key its window when shorter. */
        public Duration retention(Duration ttl) {
            return derivedKey() && window.compareTo(ttl) < 0 ? window : ttl;
        }
    }

    /** Answer the problem (a malformed or missing key); forward nothing. */
    record Reject(Problem problem, String detail) implements CallPlan {
        public Reject {
            requireNonNull(problem, "problem");
            requireNonNull(detail, "detail");
        }
    }

    /** Answer the ready-made answer; forward nothing. */
    record Answer(ReadyAnswer answer, String label, CallDialect.Facts facts) implements CallPlan {
        public Answer {
            requireNonNull(answer, "answer");
        }
    }

    /**
     * Forward the buffered request unprotected, its answer streamed back; store nothing.
     *
     * @param observer what reads the answer as it passes (an MCP {@code tools/list}); null: nothing
     * @param after    forwarded only once this completes (an MCP session's DELETE waits for the
     *                 session's protected calls to settle); null: at once
     */
    record Pass(String label, ResponseObserver observer, CompletionStage<?> after, CallDialect.Facts facts) implements CallPlan {}
}
