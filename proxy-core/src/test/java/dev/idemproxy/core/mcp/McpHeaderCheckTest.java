package dev.idemproxy.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.idempotency.TestRequest;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class McpHeaderCheckTest {
    private static final McpMessage CALL = McpMessageReader.read(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"get_weather\",\"arguments\":{}}}"
                    .getBytes(StandardCharsets.UTF_8));
    private static final TestRequest MODERN = TestRequest.post("/mcp").withHeader("MCP-Protocol-Version", "2026-07-28");

    @Test
    void matchingHeadersPass() {
        assertThat(McpHeaderCheck.mismatch(MODERN.withHeader("Mcp-Method", "tools/call").withHeader("Mcp-Name", "get_weather"), CALL)).isEmpty();
    }

    @Test
    void aNameThatDisagreesWithTheBodyIsRejectedWhateverTheVersion() {
        TestRequest legacy = TestRequest.post("/mcp").withHeader("MCP-Protocol-Version", "2025-11-25");

        assertThat(McpHeaderCheck.mismatch(MODERN.withHeader("Mcp-Method", "tools/call").withHeader("Mcp-Name", "search_docs"), CALL))
                .hasValue("Mcp-Name header value 'search_docs' does not match body value 'get_weather'");
        assertThat(McpHeaderCheck.mismatch(legacy.withHeader("Mcp-Name", "search_docs"), CALL)).isPresent();
        assertThat(McpHeaderCheck.mismatch(MODERN.withHeader("Mcp-Method", "tools/list").withHeader("Mcp-Name", "get_weather"), CALL))
                .hasValue("Mcp-Method header value 'tools/list' does not match body value 'tools/call'");
    }

    @Test
    void valuesAreCaseSensitive() {
        assertThat(McpHeaderCheck.mismatch(MODERN.withHeader("Mcp-Method", "Tools/Call").withHeader("Mcp-Name", "get_weather"), CALL)).isPresent();
        assertThat(McpHeaderCheck.mismatch(MODERN.withHeader("Mcp-Method", "tools/call").withHeader("Mcp-Name", "Get_Weather"), CALL)).isPresent();
    }

    @Test
    void headersAreRequiredFromTheSessionlessGenerationOnly() {
        assertThat(McpHeaderCheck.mismatch(MODERN, CALL)).hasValue("Mcp-Method header is missing (required from 2026-07-28)");
        assertThat(McpHeaderCheck.mismatch(MODERN.withHeader("Mcp-Method", "tools/call"), CALL))
                .hasValue("Mcp-Name header is missing (required for tools/call from 2026-07-28)");
        assertThat(McpHeaderCheck.mismatch(TestRequest.post("/mcp"), CALL)).isEmpty();
        assertThat(McpHeaderCheck.mismatch(TestRequest.post("/mcp").withHeader("MCP-Protocol-Version", "2025-06-18"), CALL)).isEmpty();
        assertThat(McpHeaderCheck.isSessionless(TestRequest.post("/mcp").withHeader("MCP-Protocol-Version", "2027-01-01"))).isTrue();
    }

    @Test
    void aBase64EncodedNameIsDecodedBeforeItIsCompared() {
        McpMessage unicode = McpMessageReader.read("{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"wetter_für\"}}"
                .getBytes(StandardCharsets.UTF_8));
        String encoded = "=?base64?" + Base64.getEncoder().encodeToString("wetter_für".getBytes(StandardCharsets.UTF_8)) + "?=";

        assertThat(McpHeaderCheck.mismatch(MODERN.withHeader("Mcp-Method", "tools/call").withHeader("Mcp-Name", encoded), unicode)).isEmpty();
        assertThat(McpHeaderCheck.mismatch(MODERN.withHeader("Mcp-Method", "tools/call").withHeader("Mcp-Name", "=?base64?!!?="), unicode))
                .hasValue("Mcp-Name header is not valid =?base64?…?= UTF-8");
        assertThat(McpHeaderCheck.mismatch(MODERN.withHeader("Mcp-Method", "tools/call").withHeader("Mcp-Name", "=?base64?/w==?="), unicode))
                .as("0xFF is not UTF-8").isPresent();
    }

    @Test
    void repeatedHeadersAreRejected() {
        assertThat(McpHeaderCheck.mismatch(MODERN.withHeader("Mcp-Method", "tools/call").withHeaderLines("Mcp-Name", "get_weather", "x"), CALL))
                .isPresent();
    }

    @Test
    void onlyToolCallsAreChecked() {
        McpMessage list = McpMessageReader.read("{\"id\":1,\"method\":\"tools/list\"}".getBytes(StandardCharsets.UTF_8));

        assertThat(McpHeaderCheck.mismatch(MODERN.withHeader("Mcp-Method", "tools/call"), list)).isEmpty();
    }

    @Test
    void errorTextIsBoundedAndEscaped() {
        assertThat(McpHeaderCheck.printable("a\u0007b\u2028")).isEqualTo("a\\u0007b\\u2028");
        assertThat(McpHeaderCheck.printable("x".repeat(100))).hasSize(65).endsWith("…");
    }
}
