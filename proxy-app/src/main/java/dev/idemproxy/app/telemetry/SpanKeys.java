package dev.idemproxy.app.telemetry;

import io.opentelemetry.api.common.AttributeKey;

/**
 * The attributes idemproxy's spans carry (docs/traces.md): the OpenTelemetry HTTP and
 * MCP semantic conventions' names, and idemproxy's own under {@code idemproxy.}. Stateless.
 */
final class SpanKeys {
    // HTTP semantic conventions (stable)
    static final AttributeKey<String> HTTP_REQUEST_METHOD = AttributeKey.stringKey("http.request.method");
    static final AttributeKey<Long> HTTP_RESPONSE_STATUS_CODE = AttributeKey.longKey("http.response.status_code");
    static final AttributeKey<Long> HTTP_REQUEST_RESEND_COUNT = AttributeKey.longKey("http.request.resend_count");
    static final AttributeKey<String> URL_FULL = AttributeKey.stringKey("url.full");
    static final AttributeKey<String> URL_SCHEME = AttributeKey.stringKey("url.scheme");
    static final AttributeKey<String> URL_PATH = AttributeKey.stringKey("url.path");
    static final AttributeKey<String> URL_QUERY = AttributeKey.stringKey("url.query");
    static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
    static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    // MCP and GenAI semantic conventions (development)
    static final AttributeKey<String> MCP_METHOD_NAME = AttributeKey.stringKey("mcp.method.name");
    static final AttributeKey<String> MCP_SESSION_ID = AttributeKey.stringKey("mcp.session.id");
    static final AttributeKey<String> JSONRPC_REQUEST_ID = AttributeKey.stringKey("jsonrpc.request.id");
    static final AttributeKey<String> GEN_AI_TOOL_NAME = AttributeKey.stringKey("gen_ai.tool.name");
    static final AttributeKey<String> GEN_AI_OPERATION_NAME = AttributeKey.stringKey("gen_ai.operation.name");
    // idemproxy's own
    static final AttributeKey<String> ROUTE = AttributeKey.stringKey("idemproxy.route");
    static final AttributeKey<String> CALL_ID = AttributeKey.stringKey("idemproxy.call_id");
    static final AttributeKey<String> KEY_SOURCE = AttributeKey.stringKey("idemproxy.key_source");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("idemproxy.outcome");
    static final AttributeKey<Long> ATTEMPTS = AttributeKey.longKey("idemproxy.attempts");
    static final AttributeKey<Long> TRY = AttributeKey.longKey("idemproxy.try");
    static final AttributeKey<String> TRY_CLASS = AttributeKey.stringKey("idemproxy.try.class");
    static final AttributeKey<String> NEXT = AttributeKey.stringKey("idemproxy.next");
    static final AttributeKey<String> WHY = AttributeKey.stringKey("idemproxy.why");
    static final AttributeKey<Long> WAIT_MS = AttributeKey.longKey("idemproxy.wait_ms");
    static final AttributeKey<String> LINK = AttributeKey.stringKey("idemproxy.link");

    static final String TOOLS_CALL = "tools/call";
    static final String EXECUTE_TOOL = "execute_tool";

    private SpanKeys() {}
}
