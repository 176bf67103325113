package dev.idemproxy.core.call;

import dev.idemproxy.core.retry.AttemptOutcome;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;

/**
 * How a dialect classes an attempt's answer ({@link CallDialect}). The defaults are plain
 * HTTP's: an answer is classed by its status at its head ({@link AttemptOutcome}), the route's
 * {@code notExecutedOn} statuses not executed, and nothing is held whole.
 */
public interface AnswerJudgement {

    /**
     * Whether an attempt's answer is held whole (its body read to the end, up to
     * {@code maxResponseBody}) and classed by {@link #classifyHeld}, instead of classed from its
     * head by {@link #classify}.
     */
    default boolean holdsAnswer(ProxyCall call, HttpResponse head) {
        return false;
    }

    /** The class of an attempt's answer, from its head. */
    default AttemptOutcome classify(ProxyCall call, HttpResponse head) {
        return AttemptOutcome.answered(head.status().code(), head.headers().get(HttpHeaderNames.RETRY_AFTER),
                call.route().notExecutedOn());
    }

    /** The class of an attempt's answer held whole ({@link #holdsAnswer}): its head and its whole body. */
    default AttemptOutcome classifyHeld(ProxyCall call, HttpResponse head, byte[] body) {
        return classify(call, head);
    }
}
