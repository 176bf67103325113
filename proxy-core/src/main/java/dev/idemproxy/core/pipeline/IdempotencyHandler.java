package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.Failures;
import dev.idemproxy.core.LogThrottle;
import dev.idemproxy.core.call.CallId;
import dev.idemproxy.core.call.CallIdentity;
import dev.idemproxy.core.call.CallProtection;
import dev.idemproxy.core.call.CallServices;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.call.ReplayAuthority;
import dev.idemproxy.core.call.RecordedProtection;
import dev.idemproxy.core.idempotency.Fingerprint;
import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.idempotency.KeyResolution;
import dev.idemproxy.core.idempotency.KeyResolver;
import dev.idemproxy.core.idempotency.Scope;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.store.ClaimAnswerLostException;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StorePolicy;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The idempotency gate of a protected call: resolves its key, scope and fingerprint, claims
 * the record in the store (asynchronously; the answer hops back to this channel's loop), and
 * then either passes the call on holding the claim, replays the stored response, waits for an
 * in-flight duplicate, or answers 400/409/422/503. Ownership: a call answered here has its
 * body released here; a call passed on keeps it. Not thread-safe: one instance per channel.
 */
final class IdempotencyHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(IdempotencyHandler.class);
    /** A store outage fails every call: one line per 10 s says so (each call's own line says what it got). */
    private static final LogThrottle STORE_DOWN_LOG = LogThrottle.every(java.time.Duration.ofSeconds(10));
    private static final long POLL_MILLIS = 100;

    private final CallServices services;
    /** This connection's last scope: its client sends the same credentials each time. */
    private final Scope.Memo scopes = new Scope.Memo();
    /** This connection's last fingerprint: a retry sends the same body again. */
    private final Fingerprint.Memo fingerprints = new Fingerprint.Memo();
    private ChannelHandlerContext ctx;
    private Pending pending;

    IdempotencyHandler(CallServices services) {
        this.services = services;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ProxyCall) {
            ProxyCall c = (ProxyCall) msg;
            if (c.body() != null && c.route().idempotency().protects(c.request().method().name()) && services.store() != null) {
                gate(c);
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    private void gate(ProxyCall c) {
        IdempotencyPolicy policy = c.route().idempotency();
        NettyRequestView view = new NettyRequestView(c);
        ReplayAuthority.Replay replay = services.replays().take(c.request());
        if (replay != null && replay.record() != null && replay.record().route().equals(c.route().name())) {
            gateReplay(c, view, replay);
            return;
        }
        KeyResolution key = new KeyResolver(policy.key(), services.random()).resolve(view);
        if (key.problem().isPresent()) {
            answer(c, key.problem().get(), key.detail(), null, null, null);
            return;
        }
        String callId = replay != null ? replay.callId() : CallId.next();
        RecordKey rk = new RecordKey(c.route().name(), scopes.of(policy.scope(), view).hash(), key.storeKey());
        String fingerprint = fingerprints.of(policy, key, view).value();
        CallIdentity identity = new CallIdentity(callId, policy.key().header(), key.headerValue(), services.taskId(c.request()),
                services.bizId(c, view));
        pending = new Pending(c, rk, fingerprint, identity, System.nanoTime() + policy.waitTimeout().toNanos(), key.derived(),
                ReplayAuthority.createdAt(replay, services.recorder().now()));
        claim(pending);
    }

    /**
     * A DLQ replay proven by the admin API: it re-runs the call under its original record and
     * call id (its stored request lost its secrets, so its scope could not be recomputed), and
     * its receipts keep the original call's createdAt.
     */
    private void gateReplay(ProxyCall c, NettyRequestView view, ReplayAuthority.Replay replay) {
        IdempotencyPolicy policy = c.route().idempotency();
        RecordKey rk = replay.record();
        String sent = rk.key().startsWith("c:") ? rk.key().substring(2) : rk.key();
        CallIdentity identity = new CallIdentity(replay.callId(), policy.key().header(), sent, services.taskId(c.request()),
                services.bizId(c, view));
        String fingerprint = Fingerprint.of(Fingerprint.parts(policy, !rk.key().startsWith("c:")), view).value();
        pending = new Pending(c, rk, fingerprint, identity, System.nanoTime() + policy.waitTimeout().toNanos(),
                rk.key().startsWith("d:"), ReplayAuthority.createdAt(replay, services.recorder().now()));
        claim(pending);
    }

    /**
     * Claims the record. An answer the store already had when it returned (the memory store, a
     * near-cache hit) is handled at once, in this turn of the loop, so a replay's response leaves
     * with the reads of the same turn; a later answer (it completes on the store's thread, or
     * inside Lettuce's read) comes back to the loop as a task of its own.
     */
    private void claim(Pending p) {
        IdempotencyPolicy policy = p.call.route().idempotency();
        CompletableFuture<ClaimResult> answer = services.store()
                .claim(p.key, p.fingerprint, p.owner, policy.lease(), claimContext(p)).toCompletableFuture();
        if (answer.isDone() && ctx.executor().inEventLoop()) {
            ClaimResult result = null;
            Throwable error = null;
            try {
                result = answer.join();
            } catch (CompletionException | CancellationException e) {
                error = e;
            }
            onClaim(p, result, error);
            return;
        }
        answer.whenComplete((result, error) -> ctx.executor().execute(() -> onClaim(p, result, error)));
    }

    /**
     * The claim keeps its record, should the call's owner die mid-call, as long as the outcome
     * would have been kept: the route's {@code ttl}, or for a derived key its window (capped at
     * the ttl). A duplicate within that time takes the record over as an unknown outcome; with
     * only a lease or two, a later one would find no record and run the call again.
     */
    private ClaimContext claimContext(Pending p) {
        return new ClaimContext(p.identity.callId(), retention(p), services.recorder().startReceipt(p.call, p.identity, p.createdAt));
    }

    private static java.time.Duration retention(Pending p) {
        IdempotencyPolicy policy = p.call.route().idempotency();
        java.time.Duration keep = policy.ttl();
        if (p.derivedKey && policy.key().window().compareTo(keep) < 0) {
            keep = policy.key().window();
        }
        return keep;
    }

    private void onClaim(Pending p, ClaimResult result, Throwable failure) {
        p.claiming = false;
        Throwable error = failure == null ? null : Failures.cause(failure);
        if (p.waited && pending == p && (result instanceof ClaimResult.InFlight || result instanceof ClaimResult.Claimed)) {
            // A waiter's poll: the owner here may have settled meanwhile, and the store dropped its record since.
            ClaimResult known = p.settled != null ? p.settled : services.waiters().settled(p.key);
            if (known != null) {
                if (result instanceof ClaimResult.Claimed && !((ClaimResult.Claimed) result).takeover()) {
                    services.store().release(p.key, p.owner);  // the fresh claim is ours to undo
                }
                result = known;
            }
        }
        if (!(result instanceof ClaimResult.InFlight) || error != null) {
            p.stopWaiting(services);
        }
        if (error instanceof ClaimAnswerLostException lost
                && (pending != p || services.onUnavailable() != StorePolicy.OnUnavailable.PASSTHROUGH)) {
            // Nothing is forwarded for this claim (its client left, or it is answered 503), so a
            // claim the store may have written without answering is undone once the store answers
            // again, instead of holding the key for a lease. Under passthrough the call goes on.
            services.store().releaseLostClaim(p.key, p.owner, lost);
        }
        if (pending != p) {
            // A fresh claim whose client left is released; a takeover is not: the earlier owner
            // may have executed, so its record stays for the next duplicate's takeover rules.
            if (error == null && result instanceof ClaimResult.Claimed && !((ClaimResult.Claimed) result).takeover()) {
                releaseOrphanedClaim(p);
            }
            return;
        }
        if (error != null) {
            storeFailed(p, error);
            return;
        }
        if (result instanceof ClaimResult.Claimed) {
            pending = null;
            OwnedClaim claim = new OwnedClaim(p.owner, p.identity.callId(), p.fingerprint, p.createdAt, retention(p));
            RecordedProtection protection = new RecordedProtection(services.store(), p.key, claim, p.identity,
                    p.call.route().idempotency(), ctx.channel().eventLoop(), services.waiters(), p.derivedKey);
            protection.startRenewing();
            ClaimResult.Claimed claimed = (ClaimResult.Claimed) result;
            if (claimed.takeover()) {
                protection.tookOver(claimed.previousCallId());
            }
            p.call.protection(protection);
            ctx.fireChannelRead(p.call);
        } else if (result instanceof ClaimResult.Completed) {
            ClaimResult.Completed done = (ClaimResult.Completed) result;
            pending = null;
            p.call.releaseBody();
            FullHttpResponse replayed = Replays.response(ctx.alloc(), done.response(), done.callId(), done.attempts(),
                    HttpMethod.HEAD.equals(p.call.request().method()));
            p.call.addBytesOut(replayed.content().readableBytes());
            services.log().finished(p.call, CallOutcome.REPLAYED, done.response().status(), done.callId(), p.identity.bizId(),
                    p.identity.key(), done.attempts(), null);
            ctx.writeAndFlush(replayed);
        } else if (result instanceof ClaimResult.InFlight) {
            inFlight(p, (ClaimResult.InFlight) result);
        } else if (result instanceof ClaimResult.NotRetained) {
            ClaimResult.NotRetained nr = (ClaimResult.NotRetained) result;
            answer(p, Problem.RESULT_NOT_RETAINED, "the call completed with status " + nr.status()
                    + " but its response was larger than maxResponseBody", nr.callId());
        } else if (result instanceof ClaimResult.FingerprintMismatch) {
            services.metrics().keyConflict(p.call.route().name(), ProxyMetrics.KIND_PAYLOAD_MISMATCH);
            answer(p, Problem.KEY_REUSED_WITH_DIFFERENT_PAYLOAD, "this key was used with a different request",
                    ((ClaimResult.FingerprintMismatch) result).callId());
        }
    }

    private void inFlight(Pending p, ClaimResult.InFlight f) {
        IdempotencyPolicy policy = p.call.route().idempotency();
        if (policy.onConcurrent() == IdempotencyPolicy.OnConcurrent.REJECT || System.nanoTime() >= p.waitUntil) {
            services.metrics().keyConflict(p.call.route().name(), ProxyMetrics.KIND_IN_FLIGHT);
            answer(p, Problem.KEY_IN_FLIGHT, policy.onConcurrent() == IdempotencyPolicy.OnConcurrent.REJECT
                    ? "a call with this key is in flight" : "a call with this key is still in flight after waitTimeout",
                    f.ownerCallId());
            return;
        }
        // Wait: woken by the owner when it settles in this process, or poll for one elsewhere.
        if (p.wake == null) {
            Consumer<ClaimResult> wake = settled -> ctx.executor().execute(() -> settledWhileWaiting(p, settled));
            p.waited = true;
            ClaimResult settled = services.waiters().await(p.key, wake);
            if (settled != null) {
                onClaim(p, settled, null);  // the owner here settled between the store's answer and now
                return;
            }
            p.wake = wake;
        }
        long untilDeadline = TimeUnit.NANOSECONDS.toMillis(p.waitUntil - System.nanoTime());
        p.poll = ctx.executor().schedule(() -> retryClaim(p), Math.max(1, Math.min(POLL_MILLIS, untilDeadline)),
                TimeUnit.MILLISECONDS);
    }

    /**
     * The owner in this process settled: answer from its outcome (the store answered InFlight, so
     * the fingerprints matched), or claim again when it released the key. The wake-up was used up.
     */
    private void settledWhileWaiting(Pending p, ClaimResult settled) {
        if (pending != p) {
            return;
        }
        p.wake = null;
        if (settled == null) {
            retryClaim(p);
        } else if (p.claiming) {
            p.settled = settled;  // the poll on its way answers with it
        } else {
            onClaim(p, settled, null);
        }
    }

    /** A poll of the store; the waiter stays registered meanwhile, so the owner's wake-up cannot slip past. */
    private void retryClaim(Pending p) {
        if (pending != p || p.claiming) {
            return;
        }
        if (p.poll != null) {
            p.poll.cancel(false);
            p.poll = null;
        }
        ClaimResult known = services.waiters().settled(p.key);
        if (p.waited && known != null) {
            onClaim(p, known, null);
            return;
        }
        p.claiming = true;
        claim(p);
    }

    /**
     * The client left while its claim was on the way: nothing was forwarded, so the key is
     * released at once rather than held until its lease lapses, which would keep every retry
     * of the call waiting and then failing with 409.
     */
    private void releaseOrphanedClaim(Pending p) {
        services.recorder().abandoned(p.call, p.identity, p.createdAt);  // the claim wrote it as PROCESSING
        services.store().release(p.key, p.owner).whenComplete((ok, err) -> {
            if (err != null) {
                LOG.warn("[call={}] could not release the key of a call whose client left before it was claimed: {}",
                        p.identity.callId(), err.toString());
            }
            services.waiters().wake(p.key, null, ctx.executor());
        });
    }

    private void storeFailed(Pending p, Throwable error) {
        long held = STORE_DOWN_LOG.pass();
        if (held >= 0) {
            LOG.warn("[call={}] idempotency store unavailable: {}{}", p.identity.callId(), error.toString(), LogThrottle.more(held));
        }
        if (services.onUnavailable() == StorePolicy.OnUnavailable.PASSTHROUGH) {
            pending = null;
            services.metrics().storePassthrough(p.call.route().name());
            // Unrecorded, but with the key already resolved: the client's (or derived) key still reaches the upstream.
            p.call.protection(CallProtection.passthrough(p.identity));
            ctx.fireChannelRead(p.call);
            return;
        }
        answer(p, Problem.STORE_UNAVAILABLE, "the idempotency store did not answer; nothing was forwarded", null);
    }

    private void answer(Pending p, Problem problem, String detail, String callId) {
        answer(p.call, problem, detail, callId, p.identity.bizId(), p.identity.key());
    }

    /** Answers the call with a problem, after its line (rejected, with the problem's name as reason). */
    private void answer(ProxyCall c, Problem problem, String detail, String callId, String bizId, String key) {
        if (pending != null && pending.call == c) {
            pending.stopWaiting(services);
            pending = null;
        }
        c.releaseBody();
        FullHttpResponse resp = dev.idemproxy.core.problem.ProblemResponses.build(ctx.alloc(), problem, detail, callId);
        c.addBytesOut(resp.content().readableBytes());
        services.log().finished(c, CallOutcome.REJECTED, problem.status(), callId, bizId, key, 0, problem.spelling());
        ctx.writeAndFlush(resp);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Pending p = pending;
        if (p != null) {
            pending = null;
            p.stopWaiting(services);
            p.call.releaseBody();
        }
        ctx.fireChannelInactive();
    }

    /** A call between its claim attempt and the store's answer (or waiting on a duplicate). */
    private static final class Pending {
        final ProxyCall call;
        final RecordKey key;
        final String fingerprint;
        final CallIdentity identity;
        /**
         * This execution's owner token: its claim, every later write to the record, and a dead
         * letter's release name it. Its own, not the call id: a DLQ replay of the call claims under
         * the same call id while the original's end may still be on its way.
         */
        final String owner;
        final long waitUntil;
        final boolean derivedKey;
        Consumer<ClaimResult> wake;
        ScheduledFuture<?> poll;
        boolean claiming;
        /** It has waited for an owner here: a poll's answer is checked against that owner's outcome. */
        boolean waited;
        /** The owner's outcome, handed over while a poll was on its way. */
        ClaimResult settled;

        /** When the call started: its receipts' createdAt. */
        final java.time.Instant createdAt;

        Pending(ProxyCall call, RecordKey key, String fingerprint, CallIdentity identity, long waitUntil, boolean derivedKey,
                java.time.Instant createdAt) {
            this.createdAt = createdAt;
            this.derivedKey = derivedKey;
            this.call = call;
            this.key = key;
            this.fingerprint = fingerprint;
            this.identity = identity;
            this.owner = CallId.owner(identity.callId());
            this.waitUntil = waitUntil;
        }

        void stopWaiting(CallServices services) {
            if (wake != null) {
                services.waiters().forget(key, wake);
                wake = null;
            }
            if (poll != null) {
                poll.cancel(false);
                poll = null;
            }
        }
    }
}
