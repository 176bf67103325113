package dev.idemproxy.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.idempotency.Fingerprint;
import dev.idemproxy.core.idempotency.KeyResolution;
import dev.idemproxy.core.idempotency.TestRequest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class McpKeysTest {
    private static final String HEADER = "Idempotency-Key";

    private static McpToolCall call(String json) {
        return McpMessageReader.read(json.getBytes(StandardCharsets.UTF_8)).toolCall();
    }

    private static final McpToolCall FIRST = call("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"create_ticket\","
            + "\"arguments\":{\"title\":\"disk full\",\"prio\":2},\"_meta\":{\"progressToken\":\"p1\"}}}");
    private static final McpToolCall RETRY = call("{\"method\":\"tools/call\",\"jsonrpc\":\"2.0\",\"id\":\"retry-7\",\"params\":{"
            + "\"_meta\":{\"progressToken\":99,\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"},"
            + "\"arguments\":{\"prio\":2.0,\"title\":\"disk full\"},\"name\":\"create_ticket\"}}");
    private static final TestRequest SESSION_1 = TestRequest.post("/mcp").withHeader("Mcp-Session-Id", "s1").withHeader("MCP-Protocol-Version", "2025-06-18");
    private static final TestRequest SESSION_2 = TestRequest.post("/mcp").withHeader("Mcp-Session-Id", "s2").withHeader("MCP-Protocol-Version", "2025-11-25");

    @Test
    void aRetryFromANewSessionWithANewIdAndMetaHasTheSameKeyAndFingerprint() {
        KeyResolution first = McpKeys.resolve(HEADER, SESSION_1, FIRST);
        KeyResolution retry = McpKeys.resolve(HEADER, SESSION_2, RETRY);

        assertThat(first.kind()).isEqualTo(KeyResolution.Kind.DERIVED);
        assertThat(first.derived()).isTrue();
        assertThat(first.key()).matches("d:[0-9a-f]{32}").isEqualTo(retry.key());
        assertThat(McpKeys.fingerprint(SESSION_1, FIRST)).isEqualTo(McpKeys.fingerprint(SESSION_2, RETRY));
    }

    @Test
    void anotherToolArgumentsOrEndpointIsAnotherCall() {
        McpToolCall other = call("{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"close_ticket\",\"arguments\":{\"title\":\"disk full\",\"prio\":2}}}");
        McpToolCall otherArgs = call("{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"create_ticket\",\"arguments\":{\"title\":\"disk full\",\"prio\":3}}}");
        TestRequest otherPath = TestRequest.post("/mcp/other");

        String key = McpKeys.resolve(HEADER, SESSION_1, FIRST).key();
        assertThat(McpKeys.resolve(HEADER, SESSION_1, other).key()).isNotEqualTo(key);
        assertThat(McpKeys.resolve(HEADER, SESSION_1, otherArgs).key()).isNotEqualTo(key);
        assertThat(McpKeys.resolve(HEADER, otherPath, FIRST).key()).isNotEqualTo(key);
        Fingerprint fp = McpKeys.fingerprint(SESSION_1, FIRST);
        assertThat(McpKeys.fingerprint(SESSION_1, otherArgs)).isNotEqualTo(fp);
        assertThat(McpKeys.fingerprint(otherPath, FIRST)).isNotEqualTo(fp);
    }

    @Test
    void partsCannotBeShiftedFromOneToAnother() {
        McpToolCall ab = new McpToolCall("1", "ab", "{}".getBytes(StandardCharsets.UTF_8));
        McpToolCall a = new McpToolCall("1", "a", "b{}".getBytes(StandardCharsets.UTF_8));

        assertThat(McpKeys.resolve(HEADER, SESSION_1, ab).key()).isNotEqualTo(McpKeys.resolve(HEADER, SESSION_1, a).key());
    }

    @Test
    void theClientsKeyWinsAndIsValidatedAsOnAnyRoute() {
        KeyResolution client = McpKeys.resolve(HEADER, SESSION_1.withHeader("Idempotency-Key", "\"order-42\""), FIRST);
        KeyResolution bad = McpKeys.resolve(HEADER, SESSION_1.withHeader("Idempotency-Key", "a b"), FIRST);
        KeyResolution twoLines = McpKeys.resolve(HEADER, SESSION_1.withHeaderLines("Idempotency-Key", "a", "b"), FIRST);
        KeyResolution otherHeader = McpKeys.resolve("X-Request-Key", SESSION_1.withHeader("X-Request-Key", "k1"), FIRST);

        assertThat(client.kind()).isEqualTo(KeyResolution.Kind.CLIENT);
        assertThat(client.key()).isEqualTo("order-42");
        assertThat(client.headerValue()).isEqualTo("\"order-42\"");
        assertThat(client.storeKey()).isEqualTo("c:order-42");
        assertThat(bad.kind()).isEqualTo(KeyResolution.Kind.BAD);
        assertThat(twoLines.kind()).isEqualTo(KeyResolution.Kind.BAD);
        assertThat(otherHeader.key()).isEqualTo("k1");
    }

    @Test
    void mcpKeysAndFingerprintsAreHashedUnderTheirOwnPurpose() {
        assertThat(McpKeys.KEY_PURPOSE).isNotEqualTo(McpKeys.FINGERPRINT_PURPOSE);
        assertThat(McpKeys.fingerprint(SESSION_1, FIRST).value()).hasSize(64);
    }

    @Test
    void aConnectionsMemoGivesTheSameKeysAndFingerprintsAndForgetsThemForAnotherCall() {
        McpKeys.Memo memo = new McpKeys.Memo();
        TestRequest a = TestRequest.post("/mcp");
        McpToolCall first = new McpToolCall("1", "create_ticket", "{\"a\":1}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        McpToolCall retry = new McpToolCall("\"r\"", "create_ticket", "{\"a\":1}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        McpToolCall other = new McpToolCall("2", "create_ticket", "{\"a\":2}".getBytes(java.nio.charset.StandardCharsets.UTF_8));

        for (McpToolCall c : java.util.List.of(first, retry, other, first)) {
            assertThat(memo.resolve("Idempotency-Key", a, c)).isEqualTo(McpKeys.resolve("Idempotency-Key", a, c));
            assertThat(memo.fingerprint(a, c)).isEqualTo(McpKeys.fingerprint(a, c));
            assertThat(memo.fingerprint(TestRequest.post("/other"), c)).isEqualTo(McpKeys.fingerprint(TestRequest.post("/other"), c));
        }
        assertThat(memo.resolve("Idempotency-Key", a.withHeader("Idempotency-Key", "k"), first).key()).isEqualTo("k");
    }
}
