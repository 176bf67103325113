package dev.idemproxy.core.call;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.store.RecordKey;
import java.util.function.Supplier;

/**
 * What a {@link CallDialect.Planner} made of a protected call: either the problem that answers it
 * at once (a malformed or missing key), or how it is recorded: the record it claims, the value
 * that must match on reuse, and the key as it travels upstream. This class is immutable.
 *
 * @param problem       the answer when the call cannot be protected; null otherwise
 * @param detail        the problem's detail; null without a problem
 * @param record        the record the call claims (route, scope hash, stored key); null with a problem
 * @param fingerprint   64 hex digits that must match when the key is reused; null with a problem
 * @param headerValue   what goes upstream in the key header (the client's value unchanged, or the key)
 * @param derivedKey    true for a key derived from the request: its record counts only within its window
 * @param label         what the call is within its route, for logs and metrics (an MCP tool's name); may be null
 * @param legacyFingerprint the fingerprint earlier builds gave the same call, asked once when
 *                      {@code fingerprint} does not match a record, so a record written before an
 *                      upgrade is still found; null when there is none
 */
public record CallPlan(Problem problem, String detail, RecordKey record, String fingerprint, String headerValue,
        boolean derivedKey, String label, Supplier<String> legacyFingerprint) {

    public static CallPlan reject(Problem problem, String detail) {
        return new CallPlan(requireNonNull(problem, "problem"), requireNonNull(detail, "detail"), null, null, null, false, null,
                null);
    }

    public static CallPlan protect(RecordKey record, String fingerprint, String headerValue, boolean derivedKey, String label) {
        return protect(record, fingerprint, headerValue, derivedKey, label, null);
    }

    public static CallPlan protect(RecordKey record, String fingerprint, String headerValue, boolean derivedKey, String label,
            Supplier<String> legacyFingerprint) {
        return new CallPlan(null, null, requireNonNull(record, "record"), requireNonNull(fingerprint, "fingerprint"),
                requireNonNull(headerValue, "headerValue"), derivedKey, label, legacyFingerprint);
    }

    public boolean rejected() {
        return problem != null;
    }
}
