package dev.idemproxy.core.call;

import dev.idemproxy.core.metrics.CallOutcome;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.util.Mistakes;
import io.netty.handler.codec.http.FullHttpResponse;

/**
 * The answers of a protected call that its claim ended, before anything was forwarded: a
 * duplicate's replay of the stored response, or a refusal (409, 422, 503), each after the call's
 * line. Stateless.
 */
final class GateAnswers {
    private GateAnswers() {
    }

    /** Answers the duplicate with the stored response of the call it repeats. */
    static void replay(ProxyCall call, CallIdentity identity, CallServices services, ClaimResult.Completed done, ClientSide client,
            CallWatch watch) {
        watch.replayed(done);
        call.releaseBody();
        FullHttpResponse replayed = call.dialect().replay(client.alloc(), call, done.response(), done.callId(), done.attempts());
        call.addBytesOut(replayed.content().readableBytes());
        services.log().finished(call, CallOutcome.REPLAYED, done.response().status(), done.callId(), identity.bizId(),
                identity.key(), done.attempts(), null);
        client.answer(replayed);
    }

    /** Answers the call with its refusal, after its line (rejected, with the problem's name as reason). */
    static void refuse(ProxyCall call, CallIdentity identity, CallServices services, ClaimSteps.Refuse refusal, ClientSide client,
            CallWatch watch) {
        watch.refused(refusal.problem(), refusal.callId());
        call.releaseBody();
        FullHttpResponse resp = call.dialect().problem(client.alloc(), call, refusal.problem(), refusal.detail(), refusal.callId());
        call.addBytesOut(resp.content().readableBytes());
        services.log().finished(call, CallOutcome.REJECTED, refusal.problem().status(), refusal.callId(), identity.bizId(),
                identity.key(), 0, refusal.problem().spelling());
        if (services.mistakes().has(Mistakes.Mistake.ANSWER_TWICE)) {  // planted only: the refusal written twice
            client.answer(resp.retainedDuplicate());
        }
        client.answer(resp);
    }
}
