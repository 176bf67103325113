package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.retry.FailureClass;
import dev.idemproxy.core.retry.OutcomeClass;
import java.util.Optional;

/**
 * The outcome class of an upstream answer to a {@code tools/call} (docs/mcp.md):
 * <ul>
 *   <li>a JSON-RPC {@code result}, with {@code isError} true or false: <b>executed</b>;</li>
 *   <li>a JSON-RPC {@code error} other than {@code -32603}: <b>executed</b> (the server answered
 *       the call: unknown tool, invalid arguments, …; the same call gets the same answer);</li>
 *   <li>{@code -32603} (internal error): <b>unknown</b>, the tool may have run part-way;</li>
 *   <li>HTTP 5xx, a read or idle timeout, a reset after the request was sent, or a 2xx answer
 *       that ends without a final response for the call (a stream cut short, a body that is no
 *       JSON-RPC response): <b>unknown</b>;</li>
 *   <li>a connect failure (nothing was sent): <b>not executed</b>;</li>
 *   <li>HTTP 1xx/3xx/4xx: <b>not executed</b>. Streamable HTTP answers every call the server
 *       handles with 200 (tool errors included) and uses 4xx for messages its transport refused
 *       before any handler ran: 400 (header mismatch, bad version), 401/403, 404 (unknown or
 *       expired session), 405, 406, 415. Stored, a 404 for an expired session would be replayed
 *       to the client's retry in its new session, so these release the key instead.</li>
 * </ul>
 * An unknown outcome is retried only where a duplicate execution is harmless: the tool's latest
 * {@code tools/list} annotation says {@code idempotentHint: true}, or the route is tagged
 * {@code idempotent} ({@link #repeatHarmless}). This class is stateless and thread-safe.
 */
public final class McpOutcomes {
    private McpOutcomes() {}

    /** A transport failure of the attempt. */
    public static McpOutcome ofFailure(FailureClass failure) {
        requireNonNull(failure, "failure");
        return new McpOutcome(failure.outcome(), failure.spelling(), failure.spelling().replace('-', '_'), failure, false);
    }

    /**
     * An HTTP answer.
     *
     * @param status        its status
     * @param finalResponse the final JSON-RPC response for the call (the JSON body, or the response
     *                      an SSE stream carried), or null when none came
     */
    public static McpOutcome ofAnswer(int status, byte[] finalResponse) {
        String statusWord = Integer.toString(status);
        if (status >= 500) {
            return new McpOutcome(OutcomeClass.UNKNOWN, statusWord, "status_" + status, null, false);
        }
        if (status < 200 || status >= 300) {
            return new McpOutcome(OutcomeClass.NOT_EXECUTED, statusWord, "status_" + status, null, false);
        }
        Optional<JsonRpcResponse> r = finalResponse == null ? Optional.empty() : JsonRpcResponse.read(finalResponse);
        if (r.isEmpty()) {
            return new McpOutcome(OutcomeClass.UNKNOWN, FailureClass.RESET.spelling(), "no_final_response", null, false);
        }
        JsonRpcResponse response = r.get();
        if (response.hasResult()) {
            return new McpOutcome(OutcomeClass.EXECUTED, null, "result", null, response.isError());
        }
        if (response.errorCode() == JsonRpcResponse.INTERNAL_ERROR) {
            return new McpOutcome(OutcomeClass.UNKNOWN, "500", "jsonrpc_internal_error", null, false);
        }
        return new McpOutcome(OutcomeClass.EXECUTED, null, "jsonrpc_error", null, false);
    }

    /**
     * True when running {@code tool} twice does no harm: annotated {@code idempotentHint: true},
     * or the route is tagged {@code idempotent} ({@code Route.isTaggedIdempotent()}; a boolean
     * here, so this package does not depend on the route package, which depends on it).
     */
    public static boolean repeatHarmless(boolean routeTaggedIdempotent, ToolCatalogue catalogue, String tool) {
        return routeTaggedIdempotent || catalogue.isIdempotent(tool);
    }
}
