package dev.idemproxy.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class McpReplayTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String replay(String stored, String rawId) {
        return new String(McpReplay.withId(b(stored), rawId).orElseThrow(), StandardCharsets.UTF_8);
    }

    @Test
    void onlyTheIdChangesByteForByte() {
        String stored = "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Ticket T-1 \\u00e9 created\"}],\"z\":1.50,\"a\":2},"
                + "\"jsonrpc\":\"2.0\",  \"id\" : 1 }";

        assertThat(replay(stored, "\"retry-7\"")).isEqualTo(stored.replace("\"id\" : 1 ", "\"id\" : \"retry-7\" "));
        assertThat(replay(stored, "42")).isEqualTo(stored.replace("\"id\" : 1 ", "\"id\" : 42 "));
    }

    @Test
    void stringAndNumberIdsOfAnyLengthAreReplaced() {
        assertThat(replay("{\"jsonrpc\":\"2.0\",\"id\":\"a-very-long-first-id\",\"result\":{}}", "2"))
                .isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}");
        assertThat(replay("{\"jsonrpc\":\"2.0\",\"id\":\"esc\\\"aped\",\"result\":{}}", "\"x\\u0041\""))
                .isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":\"x\\u0041\",\"result\":{}}");
        assertThat(replay("{\"id\":12345678901234567890,\"error\":{\"code\":-32602,\"message\":\"bad\"},\"jsonrpc\":\"2.0\"}", "-1"))
                .isEqualTo("{\"id\":-1,\"error\":{\"code\":-32602,\"message\":\"bad\"},\"jsonrpc\":\"2.0\"}");
    }

    @Test
    void aNestedIdIsLeftAlone() {
        assertThat(replay("{\"result\":{\"id\":1,\"content\":[]},\"id\":1,\"jsonrpc\":\"2.0\"}", "9"))
                .isEqualTo("{\"result\":{\"id\":1,\"content\":[]},\"id\":9,\"jsonrpc\":\"2.0\"}");
    }

    @Test
    void aResponseWithoutIdGetsOne() {
        assertThat(replay("{\"jsonrpc\":\"2.0\",\"result\":{}}", "3")).isEqualTo("{\"id\":3,\"jsonrpc\":\"2.0\",\"result\":{}}");
        assertThat(replay("{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}", "3")).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}");
    }

    @Test
    void whatIsNotAJsonRpcResponseIsNotReplayedAsOne() {
        assertThat(McpReplay.withId(b("<html>"), "1")).isEmpty();
        assertThat(McpReplay.withId(b("{\"method\":\"x\",\"id\":1}"), "1")).isEmpty();
    }

    @Test
    void theSessionHeaderIsNeverReplayed() {
        assertThat(McpReplay.NOT_REPLAYED).contains("Mcp-Session-Id");
        assertThat(McpReplay.CONTENT_TYPE).isEqualTo("application/json");
    }
}
