package dev.idemproxy.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.problem.Problem;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class McpErrorsTest {
    @Test
    void everyProblemTypeHasOneFixedCodeOutsideTheRangesMcpReserves() {
        Map<Integer, String> byCode = new HashMap<>();
        for (Problem p : Problem.values()) {
            int code = McpErrors.code(p);
            assertThat(code).as(p.spelling()).isBetween(-32019, -32003);
            String previous = byCode.putIfAbsent(code, p.spelling());
            assertThat(previous == null || previous.equals(p.spelling())).as("code %d for %s and %s", code, previous, p.spelling()).isTrue();
        }
        assertThat(McpErrors.code(Problem.KEY_IN_FLIGHT)).isEqualTo(-32003);
        assertThat(McpErrors.code(Problem.AMBIGUOUS_OUTCOME)).isEqualTo(-32006);
        assertThat(McpErrors.code(Problem.HTTP_VERSION_NOT_SUPPORTED)).isEqualTo(McpErrors.code(Problem.BAD_REQUEST));
    }

    @Test
    void aProblemIsAJsonRpcErrorWithTheRequestsIdHttp200AndTheUrn() {
        JsonRpcAnswer a = McpErrors.error(Problem.KEY_IN_FLIGHT, "\"r-1\"", null, "c-123");

        assertThat(a.status()).isEqualTo(200);
        assertThat(a.bodyText()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":\"r-1\",\"error\":{\"code\":-32003,"
                + "\"message\":\"A call with this idempotency key is in flight\",\"data\":{\"type\":\"urn:idemproxy:problem:key-in-flight\","
                + "\"status\":409,\"callId\":\"c-123\"}}}");
    }

    @Test
    void theDetailIsAppendedAndTheCallIdLeftOutWhenThereIsNone() {
        JsonRpcAnswer a = McpErrors.error(Problem.AMBIGUOUS_OUTCOME, "7", "read timeout after \"10s\"", null);

        assertThat(a.bodyText()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32006,"
                + "\"message\":\"The call's outcome is unknown; it may have executed: read timeout after \\\"10s\\\"\","
                + "\"data\":{\"type\":\"urn:idemproxy:problem:ambiguous-outcome\",\"status\":504}}}");
        assertThat(JsonRpcResponse.read(a.body())).hasValueSatisfying(r -> assertThat(r.errorCode()).isEqualTo(-32006));
    }

    @Test
    void unreadableMessagesAndHeaderMismatchesAre400() {
        McpMessage broken = McpMessageReader.read("{".getBytes(StandardCharsets.UTF_8));
        McpMessage noName = McpMessageReader.read("{\"id\":3,\"method\":\"tools/call\",\"params\":{}}".getBytes(StandardCharsets.UTF_8));

        JsonRpcAnswer parse = McpErrors.invalid(broken);
        assertThat(parse.status()).isEqualTo(400);
        assertThat(parse.bodyText()).startsWith("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"the body is not valid JSON")
                .contains("\"type\":\"urn:idemproxy:problem:bad-request\"");
        assertThat(McpErrors.invalid(noName).bodyText()).startsWith("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,");
        JsonRpcAnswer mismatch = McpErrors.headerMismatch("1", "Mcp-Name header value 'a' does not match body value 'b'");
        assertThat(mismatch.status()).isEqualTo(400);
        assertThat(mismatch.bodyText()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32020,"
                + "\"message\":\"Header mismatch: Mcp-Name header value 'a' does not match body value 'b'\","
                + "\"data\":{\"type\":\"urn:idemproxy:problem:bad-request\",\"status\":400}}}");
    }
}
