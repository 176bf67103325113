package dev.idemproxy.core.call;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.idempotency.Fingerprint;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.idempotency.KeyResolution;
import dev.idemproxy.core.idempotency.KeyResolver;
import dev.idemproxy.core.idempotency.RequestView;
import dev.idemproxy.core.idempotency.Scope;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.problem.ProblemResponses;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.RetryRules;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Plain HTTP calls, the first dialect: the body of a call the route protects (idempotency or
 * retries) is buffered, and the gate plans it when there is a store; the key is the client's {@code key.header}, or derived,
 * or generated ({@link KeyResolver}); the scope and fingerprint hash the route's parts
 * ({@link Scope}, {@link Fingerprint}); an answer is classed by its status at its head
 * ({@link AttemptOutcome}) and stored as it came; a route's {@code notExecutedOn} statuses are not
 * executed; a repeat is harmless on a route tagged {@code idempotent} or for an idempotent method; a
 * duplicate gets the stored response byte for byte ({@link Replays}); errors are
 * {@code application/problem+json}. This class is stateless.
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
    public FullHttpResponse tooLarge(ByteBufAllocator alloc, ProxyCall call, byte[] prefix, String detail) {
        return ProblemResponses.build(alloc, Problem.REQUEST_TOO_LARGE, detail, null);
    }

    @Override
    public boolean repeatHarmless(ProxyCall call) {
        return call.route().isTaggedIdempotent() || RetryRules.idempotentMethod(call.request().method().name());
    }

    @Override
    public AttemptOutcome classify(ProxyCall call, HttpResponse head) {
        return AttemptOutcome.answered(head.status().code(), head.headers().get(HttpHeaderNames.RETRY_AFTER),
                call.route().notExecutedOn());
    }

    @Override
    public boolean holdsAnswer(ProxyCall call, HttpResponse head) {
        return false;
    }

    @Override
    public AttemptOutcome classifyHeld(ProxyCall call, HttpResponse head, byte[] body) {
        return classify(call, head);
    }

    @Override
    public StoredResponse stored(ProxyCall call, StoredResponse captured) {
        return captured;
    }

    @Override
    public FullHttpResponse replay(ByteBufAllocator alloc, ProxyCall duplicate, StoredResponse stored, String callId, int attempts) {
        return Replays.response(alloc, stored, callId, attempts, HttpMethod.HEAD.equals(duplicate.request().method()));
    }

    @Override
    public FullHttpResponse problem(ByteBufAllocator alloc, ProxyCall call, Problem problem, String detail, String callId) {
        return ProblemResponses.build(alloc, problem, detail, callId);
    }

    @Override
    public StoredResponse storedProblem(ProxyCall call, Problem problem, String detail, String callId) {
        byte[] json = ProblemResponses.json(problem, detail, callId).getBytes(StandardCharsets.UTF_8);
        return new StoredResponse(problem.status(), List.of(new StoredHeader("content-type", ProblemResponses.CONTENT_TYPE),
                new StoredHeader(CallIdentity.X_CALL_ID.toString(), callId)), json);
    }

    @Override
    public void started(ProxyCall call) {
        // nothing: an HTTP call cannot be cancelled by another message
    }

    @Override
    public void settled(ProxyCall call) {
        // nothing
    }

    @Override
    public void finished(ProxyCall call, CallOutcome outcome) {
        // nothing beyond the request total
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
                return CallPlan.reject(key.problem().get(), key.detail());
            }
            RecordKey record = new RecordKey(call.route().name(), scopes.of(policy.scope(), request).hash(), key.storeKey());
            return CallPlan.protect(record, fingerprints.of(policy, key, request).value(), key.headerValue(), key.derived(),
                    policy.key().window(), null, null, () -> Fingerprint.legacy(policy, key.derived(), request).value());
        }

        @Override
        public CallPlan planReplay(ProxyCall call, RequestView request, RecordKey record) {
            IdempotencyPolicy policy = call.route().idempotency();
            boolean derivedParts = !record.key().startsWith("c:");
            String sent = derivedParts ? record.key() : record.key().substring(2);
            String fingerprint = Fingerprint.of(policy, derivedParts, request).value();
            return CallPlan.protect(record, fingerprint, sent, record.key().startsWith("d:"), policy.key().window(), null, null,
                    () -> Fingerprint.legacy(policy, derivedParts, request).value());
        }
    }
}
