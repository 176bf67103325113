package dev.idemproxy.core.call;

import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.problem.ProblemResponses;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The forms a dialect's answers take ({@link CallDialect}): what of an answer is stored, a
 * duplicate's answer, and the proxy's own errors. The defaults are plain HTTP's: the answer is
 * stored as it came, replayed byte for byte ({@link Replays}), and errors are
 * {@code application/problem+json}.
 */
public interface AnswerForms {

    /**
     * What of an upstream answer captured for the call's record is stored and replayed.
     *
     * @param captured the answer as captured, or null when it was not retained (too large)
     */
    default StoredResponse stored(ProxyCall call, StoredResponse captured) {
        return captured;
    }

    /** A duplicate's answer: the stored response, marked replayed, with the original call's id and attempts. */
    default FullHttpResponse replay(ByteBufAllocator alloc, ProxyCall duplicate, StoredResponse stored, String callId,
            int attempts) {
        return Replays.response(alloc, stored, callId, attempts, HttpMethod.HEAD.equals(duplicate.request().method()));
    }

    /**
     * A proxy-made answer as this call's client reads errors. The caller owns the response.
     *
     * @param callId the call's id, or null when it has none yet
     */
    default FullHttpResponse problem(ByteBufAllocator alloc, ProxyCall call, Problem problem, String detail, String callId) {
        return ProblemResponses.build(alloc, problem, detail, callId);
    }

    /** The same answer as kept in the call's record, replayed to its duplicates. */
    default StoredResponse storedProblem(ProxyCall call, Problem problem, String detail, String callId) {
        byte[] json = ProblemResponses.json(problem, detail, callId).getBytes(StandardCharsets.UTF_8);
        return new StoredResponse(problem.status(), List.of(new StoredHeader("content-type", ProblemResponses.CONTENT_TYPE),
                new StoredHeader(CallIdentity.X_CALL_ID.toString(), callId)), json);
    }

    /**
     * The answer to a buffered call whose body is larger than {@code maxRequestBody}.
     *
     * @param prefix the body's first bytes as far as they were read (maybe none); not to be modified
     */
    default FullHttpResponse tooLarge(ByteBufAllocator alloc, ProxyCall call, byte[] prefix, String detail) {
        return ProblemResponses.build(alloc, Problem.REQUEST_TOO_LARGE, detail, null);
    }
}
