package dev.idemproxy.core.call;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.store.RecordKey;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * What a {@link CallDialect.Planner} made of a buffered call, one of four {@link Kind kinds}:
 * protect it (the record it claims, the value that must match on reuse, the key as it travels
 * upstream), reject it with a problem (a malformed or missing key), answer it at once with a
 * ready-made answer, or pass it through unprotected. This class is immutable.
 *
 * @param kind        what the gate does with the call
 * @param problem     REJECT: the answer's problem; else null
 * @param detail      REJECT: the problem's detail; else null
 * @param record      PROTECT: the record the call claims (route, scope hash, stored key); else null
 * @param fingerprint PROTECT: 64 hex digits that must match when the key is reused; else null
 * @param headerValue PROTECT: what goes upstream in the key header (the client's value unchanged, or the key)
 * @param derivedKey  PROTECT: a key derived from the request: its record counts only within {@code window}
 * @param window      PROTECT: how long a derived key's record counts (the route's {@code key.window},
 *                    an MCP route's {@code mcp.window}); null otherwise
 * @param label       what the call is within its route, for logs and receipts (an MCP tool's name); may be null
 * @param answer      ANSWER: the answer; else null
 * @param observer    PASS: what reads the upstream's answer as it passes (an MCP {@code tools/list}); may be null
 * @param forwardAfter PASS: forwarded only once this completes (an MCP session's DELETE waits for the
 *                    session's protected calls to settle); null: at once
 * @param facts       what the planning dialect keeps for itself about the call (read only by that dialect); may be null
 * @param legacyFingerprint PROTECT: the fingerprint earlier builds gave the same call, asked once
 *                    when {@code fingerprint} does not match a record, so a record written before
 *                    an upgrade is still found; null when there is none
 */
public record CallPlan(Kind kind, Problem problem, String detail, RecordKey record, String fingerprint, String headerValue,
        boolean derivedKey, Duration window, String label, ReadyAnswer answer, ResponseObserver observer,
        CompletionStage<?> forwardAfter, CallDialect.Facts facts, Supplier<String> legacyFingerprint) {

    /** What the gate does with a planned call. */
    public enum Kind {
        /** Claim the record, forward once through the attempt loop, store the outcome. */
        PROTECT,
        /** Answer the problem; forward nothing. */
        REJECT,
        /** Answer the ready-made answer; forward nothing. */
        ANSWER,
        /** Forward the buffered request unprotected, its answer streamed back; store nothing. */
        PASS
    }

    public CallPlan {
        requireNonNull(kind, "kind");
    }

    public static CallPlan reject(Problem problem, String detail) {
        return new CallPlan(Kind.REJECT, requireNonNull(problem, "problem"), requireNonNull(detail, "detail"), null, null, null,
                false, null, null, null, null, null, null, null);
    }

    /** A plain HTTP call's protection: no label, no facts. */
    public static CallPlan protect(RecordKey record, String fingerprint, String headerValue, boolean derivedKey,
            Duration window) {
        return protect(record, fingerprint, headerValue, derivedKey, window, null, null);
    }

    public static CallPlan protect(RecordKey record, String fingerprint, String headerValue, boolean derivedKey,
            Duration window, String label, CallDialect.Facts facts) {
        return protect(record, fingerprint, headerValue, derivedKey, window, label, facts, null);
    }

    /** @param legacyFingerprint the fingerprint earlier builds gave the call; null when there is none */
    public static CallPlan protect(RecordKey record, String fingerprint, String headerValue, boolean derivedKey,
            Duration window, String label, CallDialect.Facts facts, Supplier<String> legacyFingerprint) {
        return new CallPlan(Kind.PROTECT, null, null, requireNonNull(record, "record"), requireNonNull(fingerprint, "fingerprint"),
                requireNonNull(headerValue, "headerValue"), derivedKey, requireNonNull(window, "window"), label, null, null, null, facts,
                legacyFingerprint);
    }

    public static CallPlan answer(ReadyAnswer answer, String label, CallDialect.Facts facts) {
        return new CallPlan(Kind.ANSWER, null, null, null, null, null, false, null, label, requireNonNull(answer, "answer"), null,
                null, facts, null);
    }

    /** @param observer what reads the answer as it passes; null: nothing does */
    public static CallPlan pass(String label, ResponseObserver observer, CallDialect.Facts facts) {
        return new CallPlan(Kind.PASS, null, null, null, null, null, false, null, label, null, observer, null, facts, null);
    }

    /** A call passed through once {@code after} completes, untouched. */
    public static CallPlan passAfter(CompletionStage<?> after, CallDialect.Facts facts) {
        return new CallPlan(Kind.PASS, null, null, null, null, null, false, null, null, null, null, requireNonNull(after, "after"),
                facts, null);
    }

    public boolean rejected() {
        return kind == Kind.REJECT;
    }

    public boolean protects() {
        return kind == Kind.PROTECT;
    }

    /**
     * How long the record of a protected call is kept: {@code ttl}, or for a derived key its
     * {@link #window} when shorter (the same parts within the window are duplicates).
     */
    public Duration retention(Duration ttl) {
        return derivedKey && window.compareTo(ttl) < 0 ? window : ttl;
    }
}
