/**
 * The Model Context Protocol dialect of a protected call (docs/mcp.md), as pure parts the
 * engine asks. {@link dev.idemproxy.core.mcp.McpPlanner} decides per request: pass through,
 * reject, or protect with a key and fingerprint. Under it: reading one POSTed JSON-RPC message ({@link dev.idemproxy.core.mcp.McpMessageReader}),
 * checking the sessionless generation's mirrored headers ({@link dev.idemproxy.core.mcp.McpHeaderCheck}),
 * the route's tool catalogue fed by passing {@code tools/list} answers
 * ({@link dev.idemproxy.core.mcp.ToolCatalogue}), which tools are protected
 * ({@link dev.idemproxy.core.route.McpPolicy}), key and fingerprint ({@link dev.idemproxy.core.mcp.McpKeys}),
 * the outcome class of an upstream answer ({@link dev.idemproxy.core.mcp.McpOutcomes}), the final
 * response of an SSE answer ({@link dev.idemproxy.core.mcp.SseResponseCapture}), replay
 * ({@link dev.idemproxy.core.mcp.McpReplay}) and the proxy's own errors as JSON-RPC errors
 * ({@link dev.idemproxy.core.mcp.McpErrors}). JSON is read with Jackson's streaming parser.
 * No Netty type appears here. Values are non-null unless a parameter's Javadoc says otherwise.
 */
package dev.idemproxy.core.mcp;
