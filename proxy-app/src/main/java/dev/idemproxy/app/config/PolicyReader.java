package dev.idemproxy.app.config;

import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.idempotency.IdempotencyPolicy.OnConcurrent;
import dev.idemproxy.core.idempotency.KeyPolicy;
import dev.idemproxy.core.idempotency.RequestPart;
import dev.idemproxy.core.idempotency.ScopePolicy;
import dev.idemproxy.core.retry.BackoffPolicy;
import dev.idemproxy.core.retry.Jitter;
import dev.idemproxy.core.retry.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/** Maps a route's {@code idempotency} and {@code retry} sections onto their core policies. */
final class PolicyReader {
    static final List<String> FAILURE_CLASSES = List.of("connect-failure", "read-timeout", "idle-timeout", "reset");

    private static final long MAX_BODY = 1024L * 1024 * 1024;
    private static final String JITTER_EXPECTED = "(expected: full, equal, none or a fraction 0.0..1.0)";

    private PolicyReader() {}

    /**
     * A route's {@code idempotency} section.
     *
     * @param secretHeaders the top-level {@code secretHeaders}: without {@code scope}, keys are scoped
     *                      by these and the built-in credential headers
     */
    static IdempotencyPolicy idempotency(MapReader m, List<String> secretHeaders) {
        IdempotencyPolicy d = IdempotencyPolicy.DISABLED;
        boolean enabled = m.bool("enabled", d.enabled());
        List<String> methods = m.list("methods", List.copyOf(d.methods()), RouteReader::method);
        KeyPolicy key = key(m.map("key"));
        List<RequestPart> named = m.list("scope", null, RequestPart::parse);
        ScopePolicy scope = named == null ? ScopePolicy.credentials(secretHeaders) : ScopePolicy.of(named);
        List<RequestPart> fingerprint = m.list("fingerprint", d.fingerprint(), RequestPart::parse);
        Duration ttl = m.duration("ttl", d.ttl(), false);
        Duration lease = m.duration("lease", d.lease(), false);
        OnConcurrent onConcurrent = m.parsed("onConcurrent", d.onConcurrent(), "wait or reject",
                t -> Choices.of(OnConcurrent.values(), OnConcurrent::spelling, t));
        Duration waitTimeout = m.duration("waitTimeout", d.waitTimeout(), false);
        long maxRequestBody = m.size("maxRequestBody", d.maxRequestBody(), 1, MAX_BODY);
        long maxResponseBody = m.size("maxResponseBody", d.maxResponseBody(), 1, MAX_BODY);
        IdempotencyPolicy p = m.reading().problems().build(m.at("enabled"), m.path(), () -> new IdempotencyPolicy(
                enabled, Set.copyOf(methods), key, scope, fingerprint, ttl, lease, onConcurrent, waitTimeout,
                maxRequestBody, maxResponseBody));
        return p == null ? d : p;
    }

    private static KeyPolicy key(MapReader m) {
        KeyPolicy d = KeyPolicy.DEFAULT;
        String header = m.parsed("header", d.header(), "a header name", Reading::headerName);
        List<RequestPart> derive = m.list("derive", d.derive(), RequestPart::parse);
        Duration window = m.duration("window", d.window(), false);
        boolean required = m.bool("required", d.required());
        return new KeyPolicy(header, derive, window, required);
    }

    static RetryPolicy retry(MapReader m) {
        RetryPolicy d = RetryPolicy.DEFAULT;
        int maxAttempts = (int) m.integer("maxAttempts", d.maxAttempts(), 1, 100);
        List<String> retryOn = m.list("retryOn", List.copyOf(d.retryOn()), PolicyReader::retryOn);
        BackoffPolicy backoff = backoff(m.map("backoff"));
        Duration maxRetryAfter = m.duration("maxRetryAfter", d.maxRetryAfter(), false);
        return new RetryPolicy(maxAttempts, Set.copyOf(retryOn), backoff, maxRetryAfter);
    }

    private static BackoffPolicy backoff(MapReader m) {
        BackoffPolicy d = BackoffPolicy.DEFAULT;
        Duration initial = m.duration("initial", d.initial(), false);
        Duration max = m.duration("max", d.max(), false);
        double multiplier = m.number("multiplier", d.multiplier(), 1.0, 100.0);
        Jitter jitter = m.parsed("jitter", d.jitter(), "a jitter", PolicyReader::jitter);
        if (max.compareTo(initial) < 0) {
            m.problem("max", DurationParser.format(max) + " is below backoff.initial " + DurationParser.format(initial)
                    + " (expected: >= initial)");
            return d;
        }
        return new BackoffPolicy(initial, max, multiplier, jitter);
    }

    private static String retryOn(String text) {
        if (FAILURE_CLASSES.contains(text)) {
            return text;
        }
        if (text.matches("[0-9]{3}")) {
            int status = Integer.parseInt(text);
            if (status >= 400 && status <= 599) {
                return text;
            }
        }
        throw new IllegalArgumentException("'" + text + "' (expected: " + String.join(", ", FAILURE_CLASSES)
                + " or a status 400..599)");
    }

    private static Jitter jitter(String text) {
        try {
            return Jitter.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + text + "' " + JITTER_EXPECTED);
        }
    }
}
