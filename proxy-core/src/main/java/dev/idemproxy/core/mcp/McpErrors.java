package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.idemproxy.core.problem.Problem;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The proxy's own errors for a {@code tools/call} as JSON-RPC error responses (docs/mcp.md),
 * so the agent's model reads them as tool errors: HTTP 200, the request's {@code id} as it sent
 * it, {@code error.code} fixed per problem type (the table below), {@code error.message} the
 * problem's title (and detail), {@code error.data} {@code {type, status, callId}} with
 * {@code type} the {@code urn:idemproxy:problem:<name>} of docs/http-reference.md.
 *
 * <p><b>Codes.</b> The contract puts them in JSON-RPC's implementation-defined range
 * -32000…-32099. MCP (2026-07-28, "Error Codes") reserves -32020…-32099 for codes its
 * specification defines, and -32002 had a meaning up to 2025-11-25; -32000 and -32001 are what
 * the official SDKs raise locally (connection closed, request timeout). So every code here lies
 * in -32003…-32019:
 * <pre>
 * -32003 key-in-flight                      -32011 result-not-retained
 * -32004 key-reused-with-different-payload  -32012 request-too-large
 * -32005 store-unavailable                  -32013 missing-idempotency-key
 * -32006 ambiguous-outcome                  -32014 bad-request
 * -32007 deadline-exceeded                  -32015 header-too-large
 * -32008 upstream-unreachable               -32016 no-route
 * -32009 upstream-reset                     -32017 method-not-supported
 * -32010 upstream-failed                    -32018 connect-refused
 * </pre>
 * A message the proxy cannot read is answered 400 with JSON-RPC's own {@code -32700},
 * {@code -32600} or {@code -32602} ({@link #invalid}), and mirrored headers that disagree with
 * the body 400 with MCP's {@code -32020} HeaderMismatch ({@link #headerMismatch}), both typed
 * {@code bad-request}. This class is stateless and thread-safe.
 */
public final class McpErrors {
    private McpErrors() {}

    /** The JSON-RPC error code of a problem type. */
    public static int code(Problem problem) {
        switch (requireNonNull(problem, "problem").spelling()) {
            case "key-in-flight": return -32003;
            case "key-reused-with-different-payload": return -32004;
            case "store-unavailable": return -32005;
            case "ambiguous-outcome": return -32006;
            case "deadline-exceeded": return -32007;
            case "upstream-unreachable": return -32008;
            case "upstream-reset": return -32009;
            case "upstream-failed": return -32010;
            case "result-not-retained": return -32011;
            case "request-too-large": return -32012;
            case "missing-idempotency-key": return -32013;
            case "bad-request": return -32014;
            case "header-too-large": return -32015;
            case "no-route": return -32016;
            case "method-not-supported": return -32017;
            case "connect-refused": return -32018;
            default: throw new IllegalArgumentException("no JSON-RPC code for problem '" + problem.spelling() + "'");
        }
    }

    /**
     * The problem as a JSON-RPC error answer to a tools/call: HTTP 200.
     *
     * @param rawId  the request's id exactly as sent (raw JSON)
     * @param detail a sentence appended to the title, or null
     * @param callId the call's id, or null when there is none
     */
    public static JsonRpcAnswer error(Problem problem, String rawId, String detail, String callId) {
        requireNonNull(rawId, "rawId");
        String message = detail == null || detail.isEmpty() ? problem.title() : problem.title() + ": " + detail;
        return new JsonRpcAnswer(200, render(rawId, code(problem), message, problem, callId));
    }

    /** A message the proxy could not read ({@link McpMessage.Kind#INVALID}): HTTP 400, its JSON-RPC code, id null when unread. */
    public static JsonRpcAnswer invalid(McpMessage message) {
        requireNonNull(message, "message");
        if (message.kind() != McpMessage.Kind.INVALID) {
            throw new IllegalArgumentException("message is " + message.kind() + " (expected: INVALID)");
        }
        return new JsonRpcAnswer(400, render(message.rawId(), message.errorCode(), message.detail(), Problem.BAD_REQUEST, null));
    }

    /** Mirrored headers that disagree with the body (MCP 2026-07-28): HTTP 400, {@code -32020}. */
    public static JsonRpcAnswer headerMismatch(String rawId, String detail) {
        return new JsonRpcAnswer(400, render(rawId, McpHeaderCheck.HEADER_MISMATCH, "Header mismatch: " + detail,
                Problem.BAD_REQUEST, null));
    }

    private static byte[] render(String rawId, int code, String message, Problem type, String callId) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator g = JsonSpans.FACTORY.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("jsonrpc", "2.0");
            g.writeFieldName("id");
            if (rawId == null) {
                g.writeNull();
            } else {
                g.writeRawValue(rawId);
            }
            g.writeObjectFieldStart("error");
            g.writeNumberField("code", code);
            g.writeStringField("message", message);
            g.writeObjectFieldStart("data");
            g.writeStringField("type", type.type());
            g.writeNumberField("status", type.status());
            if (callId != null) {
                g.writeStringField("callId", callId);
            }
            g.writeEndObject();
            g.writeEndObject();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
