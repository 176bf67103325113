package dev.idemproxy.core.idempotency;

import static dev.idemproxy.core.util.Checks.positive;
import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * A route's idempotency settings (docs/configuration.md {@code routes[].idempotency}). This class is immutable.
 *
 * @param scope       what keys are scoped by: the named parts, or by default the credential headers
 * @param fingerprint what must match when a key is reused; empty = the default (body for client
 *                    keys, the derive parts for derived keys)
 */
public record IdempotencyPolicy(
        boolean enabled,
        Set<String> methods,
        KeyPolicy key,
        ScopePolicy scope,
        List<RequestPart> fingerprint,
        Duration ttl,
        Duration lease,
        OnConcurrent onConcurrent,
        Duration waitTimeout,
        long maxRequestBody,
        long maxResponseBody) {

    /** What a duplicate of an in-flight call gets. */
    public enum OnConcurrent {
        WAIT("wait"), REJECT("reject");

        private final String spelling;

        OnConcurrent(String spelling) {
            this.spelling = spelling;
        }

        public String spelling() {
            return spelling;
        }
    }

    public static final IdempotencyPolicy DISABLED = new IdempotencyPolicy(false,
            Set.of("POST", "PATCH", "PUT", "DELETE"), KeyPolicy.DEFAULT, ScopePolicy.CREDENTIALS, List.of(),
            Duration.ofHours(24), Duration.ofSeconds(30), OnConcurrent.WAIT, Duration.ofSeconds(30),
            1024 * 1024, 4 * 1024 * 1024);

    public IdempotencyPolicy {
        methods = Set.copyOf(requireNonNull(methods, "methods"));
        requireNonNull(key, "key");
        requireNonNull(scope, "scope");
        fingerprint = List.copyOf(requireNonNull(fingerprint, "fingerprint"));
        positive(ttl, "ttl");
        positive(lease, "lease");
        requireNonNull(onConcurrent, "onConcurrent");
        positive(waitTimeout, "waitTimeout");
        requireArgument(maxRequestBody > 0, "maxRequestBody " + maxRequestBody + " (expected: > 0)");
        requireArgument(maxResponseBody > 0, "maxResponseBody " + maxResponseBody + " (expected: > 0)");
    }

    /** A policy whose keys are scoped by the named {@code scope} parts ({@link ScopePolicy#of}). */
    public IdempotencyPolicy(boolean enabled, Set<String> methods, KeyPolicy key, List<RequestPart> scope,
            List<RequestPart> fingerprint, Duration ttl, Duration lease, OnConcurrent onConcurrent, Duration waitTimeout,
            long maxRequestBody, long maxResponseBody) {
        this(enabled, methods, key, ScopePolicy.of(scope), fingerprint, ttl, lease, onConcurrent, waitTimeout,
                maxRequestBody, maxResponseBody);
    }

    /** True when calls with this method are protected by this policy. */
    public boolean protects(String method) {
        return enabled && methods.contains(method);
    }
}
