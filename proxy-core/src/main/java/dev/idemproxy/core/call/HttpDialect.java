package dev.idemproxy.core.call;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.idempotency.Fingerprint;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.idempotency.KeyResolution;
import dev.idemproxy.core.idempotency.KeyResolver;
import dev.idemproxy.core.idempotency.RequestView;
import dev.idemproxy.core.idempotency.Scope;
import dev.idemproxy.core.idempotency.StoredKey;
import dev.idemproxy.core.retry.RetryRules;
import dev.idemproxy.core.store.RecordKey;
import java.util.random.RandomGenerator;

/**
 * Plain HTTP calls, the first dialect: the body of a call the route protects (idempotency or
 * retries) is buffered, and the gate plans it when there is a store; the key is the client's
 * {@code key.header}, or derived, or generated ({@link KeyResolver}); the scope and fingerprint
 * hash the route's parts ({@link Scope}, {@link Fingerprint}); a repeat is harmless on a route
 * tagged {@code idempotent} or for an idempotent method. Its answers are the defaults of
 * {@link AnswerJudgement} and {@link AnswerForms}. This class is stateless.
 */
public final class HttpDialect implements CallDialect {
    public static final HttpDialect INSTANCE = new HttpDialect();

    private HttpDialect() {}

    @Override
    public Planner planner(RandomGenerator random) {
        return new HttpPlanner(requireNonNull(random, "random"));
    }

    @Override
    public boolean buffers(ProxyCall call) {
        return call.route().idempotency().protects(call.request().method().name()) || call.route().retry().retries();
    }

    @Override
    public boolean gated(ProxyCall call, boolean hasStore) {
        return hasStore && call.route().idempotency().protects(call.request().method().name());
    }

    @Override
    public boolean repeatHarmless(ProxyCall call) {
        return call.route().isTaggedIdempotent() || RetryRules.idempotentMethod(call.request().method().name());
    }

    /**
     * A connection's planner. It remembers the connection's last scope and fingerprint: a client on
     * a keep-alive connection sends the same credentials each time, and a retry the same body.
     */
    private static final class HttpPlanner implements Planner {
        private final RandomGenerator random;
        private final Scope.Memo scopes = new Scope.Memo();
        private final Fingerprint.Memo fingerprints = new Fingerprint.Memo();

        HttpPlanner(RandomGenerator random) {
            this.random = random;
        }

        @Override
        public CallPlan plan(ProxyCall call, RequestView request) {
            IdempotencyPolicy policy = call.route().idempotency();
            KeyResolution key = new KeyResolver(policy.key(), random).resolve(request);
            if (key.problem().isPresent()) {
                return new CallPlan.Reject(key.problem().get(), key.detail());
            }
            RecordKey record = new RecordKey(call.route().name(), scopes.of(policy.scope(), request).hash(), key.storeKey());
            return new CallPlan.Protect(record, fingerprints.of(policy, key, request).value(), key.headerValue(),
                    policy.key().window(), null, null, () -> Fingerprint.legacy(policy, key.derived(), request).value());
        }

        @Override
        public CallPlan planReplay(ProxyCall call, RequestView request, RecordKey record) {
            IdempotencyPolicy policy = call.route().idempotency();
            boolean derivedParts = StoredKey.origin(record.key()) != StoredKey.Origin.CLIENT;
            String fingerprint = Fingerprint.of(policy, derivedParts, request).value();
            return new CallPlan.Protect(record, fingerprint, StoredKey.shown(record.key()), policy.key().window(), null, null,
                    () -> Fingerprint.legacy(policy, derivedParts, request).value());
        }
    }
}
