package dev.idemproxy.app.telemetry;

import static dev.idemproxy.app.telemetry.SpanKeys.*;

import dev.idemproxy.core.call.CallIdentity;
import dev.idemproxy.core.call.CallPhase;
import dev.idemproxy.core.call.CallSettlement;
import dev.idemproxy.core.call.CallWatch;
import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.problem.Problem;
import dev.idemproxy.core.receipt.ReceiptAnswer;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.FailureClass;
import dev.idemproxy.core.retry.OutcomeClass;
import dev.idemproxy.core.retry.RetryDecision;
import dev.idemproxy.core.retry.RetryReason;
import dev.idemproxy.core.store.ClaimResult;
import io.netty.handler.codec.http.HttpHeaders;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.common.Clock;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The trace of one protected call: a SERVER span from the call's first byte to its answer (or its
 * replay, or its refusal), and under it a CLIENT span per try, from the try's start to its outcome,
 * whose context goes upstream as the try's {@code traceparent}. The caller's {@code traceparent}
 * (for an MCP {@code tools/call}, the one in {@code params._meta} first, the header's then linked)
 * is the SERVER span's parent. Times come from the call's ticker, anchored to the wall clock once.
 * Not thread-safe: told everything on the call's event loop.
 */
final class CallTrace implements CallWatch {
    /** The MCP error words a judged answer carries that are an error of the call ({@code error.type}). */
    private static final Set<String> MCP_ERRORS = Set.of("jsonrpc_error", "jsonrpc_internal_error", "no_final_response");
    private static final Attributes REPLAY_OF = Attributes.of(LINK, "replay_of");
    private static final Attributes KEY_HOLDER = Attributes.of(LINK, "key_holder");
    private static final Attributes HTTP_PARENT = Attributes.of(LINK, "http_parent");

    private final CallSpans spans;
    private final ProxyCall call;
    private final McpRequest mcp;
    private final String name;
    private final Span server;
    private final long epochAnchor;
    private final long tickerAnchor;
    private Span attempt;
    /** When the open try's outcome came (ticker nanos); 0 while it has none. */
    private long attemptEnded;
    /** How the last try ended badly: its failure class, or its error (a status >= 400, an MCP error word); null when it did not. */
    private String lastError;
    private String url;
    /** The SERVER span has an {@code error.type}: its status is ERROR. */
    private boolean failed;
    private boolean ended;

    CallTrace(CallSpans spans, Clock clock, ProxyCall call, CallIdentity identity) {
        this.spans = spans;
        this.call = call;
        this.epochAnchor = clock.now();
        this.tickerAnchor = System.nanoTime();
        boolean isMcp = call.route().isMcp() && call.label() != null;
        this.mcp = isMcp ? McpRequest.read(call.body()) : null;
        this.name = CallSpans.name(call, isMcp);
        SpanContext header = TraceContexts.of(call.request().headers());
        SpanContext meta = isMcp ? TraceContexts.of(mcp) : SpanContext.getInvalid();
        this.server = spans.server(call, name, TraceContexts.parent(meta.isValid() ? meta : header), epoch(call.startNanos()));
        spans.recent().started(identity.callId(), server.getSpanContext());
        if (server.isRecording()) {
            server.setAttribute(CALL_ID, identity.callId()).setAttribute(KEY_SOURCE, CallSpans.keySource(call, identity));
            if (isMcp) {
                CallSpans.mcp(server, call, mcp);
                if (meta.isValid() && header.isValid() && !header.getSpanId().equals(meta.getSpanId())) {
                    server.addLink(header, HTTP_PARENT);  // the MCP conventions: the transport's context is linked
                }
            }
        }
    }

    private long epoch(long tickerNanos) {
        return epochAnchor + (tickerNanos - tickerAnchor);
    }

    @Override
    public void phase(CallPhase from, CallPhase to) {
        if (to == CallPhase.ANSWERED) {
            end();
        } else if (to == CallPhase.ABANDONED) {
            server.setAttribute(OUTCOME, TraceOutcome.ABANDONED.spelling);
            end();
        }
    }

    @Override
    public void tryStarted(int n, long nanos) {
        endAttempt();
        if (url == null) {
            url = spans.upstreamUrl(call);
        }
        attempt = spans.client(call, name, server, epoch(nanos), n, url);
        if (mcp != null) {
            CallSpans.mcp(attempt, call, mcp);
        }
    }

    @Override
    public void upstreamRequest(int n, HttpHeaders headers) {
        TraceContexts.inject(attempt != null ? attempt : server, headers);
    }

    @Override
    public void tryEnded(int n, AttemptOutcome outcome, long nanos) {
        attemptEnded = nanos;
        FailureClass failure = outcome.failure();
        lastError = failure != null ? failure.spelling() : outcome.status() >= 400 ? Integer.toString(outcome.status())
                : mcp != null && outcome.note() != null && MCP_ERRORS.contains(outcome.note()) ? outcome.note() : null;
        if (attempt == null || !attempt.isRecording()) {
            return;
        }
        if (failure == null) {
            attempt.setAttribute(HTTP_RESPONSE_STATUS_CODE, outcome.status());
        }
        OutcomeClass c = outcome.outcomeClass();
        if (c != OutcomeClass.EXECUTED || lastError != null) {  // a try that executed and answered well: its status says so
            attempt.setAttribute(TRY_CLASS, switch (c) {
                case EXECUTED -> "executed";
                case NOT_EXECUTED -> "not-executed";
                case UNKNOWN -> "unknown";
            });
        }
        if (lastError != null) {
            attempt.setAttribute(ERROR_TYPE, lastError).setStatus(StatusCode.ERROR);
        }
    }

    /** A retry after its wait, or a stop other than the plain one (the try executed), is written on the try. */
    @Override
    public void decided(int n, RetryDecision decision) {
        if (attempt == null) {
            return;
        }
        if (attempt.isRecording() && (decision.isRetry() || decision.reason() != RetryReason.EXECUTED)) {
            // why as the receipt's tries say it: a retry after the backoff is "backoff" (the try's status or error.type says what it met)
            attempt.setAttribute(NEXT, decision.isRetry() ? "retry" : "stop")
                    .setAttribute(WHY, decision.reason() == RetryReason.BACKOFF ? "backoff" : decision.spelling());
            if (decision.isRetry()) {
                attempt.setAttribute(WAIT_MS, decision.delay().toMillis());
            }
        }
        if (decision.isRetry()) {
            endAttempt();  // a stop's try lasts until its answer is in: the call's settlement ends it
        }
    }

    @Override
    public void receipt(int n, ReceiptAnswer answer) {
        if (server.isRecording()) {
            server.addEvent("idemproxy.receipt", Attributes.of(SpanKeys.WHY, answer.status().name()));
        }
    }

    /**
     * The call's answer: its status as sent (an MCP route's proxy-made errors go as JSON-RPC errors
     * in a 200), its tries and outcome, and when it failed for its caller its {@code error.type}:
     * the last try's failure class or error, else the status; an answer cut off, {@code truncated_response}.
     */
    @Override
    public void settled(CallSettlement s) {
        if (attempt != null) {
            attemptEnded = 0;  // its answer has all come in: now
            endAttempt();
        }
        if (!server.isRecording()) {
            return;
        }
        int sent = s.response() != null && !s.truncated() ? s.response().status() : s.finalStatus();
        server.setAttribute(HTTP_RESPONSE_STATUS_CODE, sent).setAttribute(ATTEMPTS, s.attempts())
                .setAttribute(OUTCOME, TraceOutcome.of(s, call.route().deadLetter().enabled()).spelling);
        String error = s.truncated() ? s.why().spelling()
                : s.finalStatus() >= 500 ? (lastError != null ? lastError : Integer.toString(s.finalStatus()))
                : mcp != null ? lastError : null;  // the HTTP conventions: a server's 4xx is its client's error
        fail(error);
    }

    @Override
    public void replayed(ClaimResult.Completed done) {
        if (server.isRecording()) {
            server.setAttribute(CALL_ID, done.callId()).setAttribute(OUTCOME, TraceOutcome.REPLAYED.spelling)
                    .setAttribute(HTTP_RESPONSE_STATUS_CODE, done.response().status()).setAttribute(ATTEMPTS, done.attempts());
            link(done.callId(), REPLAY_OF);
        }
        end();
    }

    @Override
    public void refused(Problem problem, String holder) {
        if (server.isRecording()) {
            boolean jsonRpc = mcp != null && mcp.requestId() != null;  // answered as a JSON-RPC error, in a 200
            server.setAttribute(OUTCOME, TraceOutcome.refused(problem).spelling)
                    .setAttribute(HTTP_RESPONSE_STATUS_CODE, jsonRpc ? 200 : problem.status()).setAttribute(ATTEMPTS, 0);
            fail(jsonRpc || problem.status() >= 500 ? problem.spelling() : null);
            link(holder, KEY_HOLDER);
        }
        end();
    }

    private void fail(String error) {
        if (error != null) {
            server.setAttribute(ERROR_TYPE, error);
            failed = true;
        }
    }

    private void link(String callId, Attributes why) {
        SpanContext other = spans.recent().span(callId);
        if (other != null) {
            server.addLink(other, why);
        }
    }

    /** Ends the open try at its outcome's time (now when it has none). */
    private void endAttempt() {
        if (attempt != null) {
            attempt.end(epoch(attemptEnded != 0 ? attemptEnded : System.nanoTime()), TimeUnit.NANOSECONDS);
            attempt = null;
            attemptEnded = 0;
        }
    }

    /** Ends the SERVER span (and a try still open) now; once. */
    private void end() {
        if (ended) {
            return;
        }
        ended = true;
        endAttempt();
        if (failed) {
            server.setStatus(StatusCode.ERROR);
        }
        server.end(epoch(System.nanoTime()), TimeUnit.NANOSECONDS);
    }
}
