package dev.idemproxy.core.mcp;

import dev.idemproxy.core.route.McpPolicy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.idempotency.KeyResolution;
import dev.idemproxy.core.idempotency.TestRequest;
import dev.idemproxy.core.route.McpPolicy.Protect;
import dev.idemproxy.core.route.McpPolicy.ToolRule;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class McpPlannerTest {
    private static final McpPolicy DEFAULT = new McpPolicy(true, Protect.UNLESS_READ_ONLY, Map.of(), Duration.ofMinutes(10));
    private static final String KEY = "Idempotency-Key";

    private static TestRequest post(String json) {
        return TestRequest.post("/mcp").withJson(json);
    }

    private static String call(int id, String tool) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":{\"a\":1}}}";
    }

    private static ToolCatalogue listed() {
        ToolCatalogue c = new ToolCatalogue();
        c.apply(null, new ToolsListPage(List.of(new ToolInfo("search_docs", true, false), new ToolInfo("set_flag", false, true),
                new ToolInfo("create_ticket", false, false)), null));
        return c;
    }

    @Test
    void aToolCallOfAProtectedToolIsProtectedWithItsKeyFingerprintAndLabel() {
        McpPlan plan = McpPlanner.plan(post(call(1, "create_ticket")), DEFAULT, listed(), KEY, false);

        assertThat(plan).isInstanceOfSatisfying(McpPlan.Protect.class, p -> {
            assertThat(p.call().tool()).isEqualTo("create_ticket");
            assertThat(p.key().kind()).isEqualTo(KeyResolution.Kind.DERIVED);
            assertThat(p.toolLabel()).isEqualTo("create_ticket");
            assertThat(p.repeatHarmless()).isFalse();
        });
        McpPlan idempotent = McpPlanner.plan(post(call(2, "set_flag")), DEFAULT, listed(), KEY, false);
        assertThat(((McpPlan.Protect) idempotent).repeatHarmless()).isTrue();
        McpPlan tagged = McpPlanner.plan(post(call(2, "create_ticket")), DEFAULT, listed(), KEY, true);
        assertThat(((McpPlan.Protect) tagged).repeatHarmless()).isTrue();
    }

    @Test
    void readOnlyAndPassedToolsPassThroughWithTheirLabel() {
        McpPlan readOnly = McpPlanner.plan(post(call(1, "search_docs")), DEFAULT, listed(), KEY, false);
        McpPlan passed = McpPlanner.plan(post(call(1, "create_ticket")),
                new McpPolicy(true, Protect.ALL, Map.of("create_ticket", ToolRule.PASS), Duration.ofMinutes(1)), listed(), KEY, false);

        assertThat(readOnly).isEqualTo(new McpPlan.PassThrough(McpMessageReader.read(post(call(1, "search_docs")).body()), "search_docs"));
        assertThat(passed).isInstanceOf(McpPlan.PassThrough.class);
        assertThat(McpPlanner.plan(post(call(1, "search_docs")), DEFAULT, new ToolCatalogue(), KEY, false))
                .as("before any list every tool is protected").isInstanceOf(McpPlan.Protect.class);
    }

    @Test
    void everythingButToolCallsPassesThroughAndToolsListIsObserved() {
        McpPlan list = McpPlanner.plan(post("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{\"cursor\":\"c2\"}}"),
                DEFAULT, listed(), KEY, false);
        McpPlan batch = McpPlanner.plan(post("[" + call(1, "create_ticket") + "]"), DEFAULT, listed(), KEY, false);
        McpPlan cancel = McpPlanner.plan(post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7}}"),
                DEFAULT, listed(), KEY, false);
        McpPlan stream = McpPlanner.plan(TestRequest.post("/mcp").withMethod("GET"), DEFAULT, listed(), KEY, false);

        assertThat(list).isInstanceOfSatisfying(McpPlan.PassThrough.class, p -> {
            assertThat(p.observesToolsList()).isTrue();
            assertThat(p.toolsListCursor()).isEqualTo("c2");
        });
        assertThat(((McpPlan.PassThrough) batch).isBatch()).isTrue();
        assertThat(((McpPlan.PassThrough) cancel).cancelledRequest()).isEqualTo("7");
        assertThat(stream).isEqualTo(new McpPlan.PassThrough(null, null));
        assertThat(((McpPlan.PassThrough) stream).observesToolsList()).isFalse();
    }

    @Test
    void unreadableBodiesMismatchedHeadersAndBadKeysAreRejected() {
        McpPlan broken = McpPlanner.plan(post("{\"id\":1,"), DEFAULT, listed(), KEY, false);
        McpPlan mismatch = McpPlanner.plan(post(call(5, "create_ticket")).withHeader("Mcp-Name", "search_docs"), DEFAULT, listed(), KEY, false);
        McpPlan badKey = McpPlanner.plan(post(call(6, "create_ticket")).withHeader("Idempotency-Key", "has space"), DEFAULT, listed(), KEY, false);

        assertThat(((McpPlan.Reject) broken).answer().status()).isEqualTo(400);
        assertThat(((McpPlan.Reject) mismatch).answer().bodyText()).contains("\"id\":5", "-32020");
        assertThat(((McpPlan.Reject) badKey).answer().status()).isEqualTo(200);
        assertThat(((McpPlan.Reject) badKey).answer().bodyText()).contains("\"id\":6", "-32014", "urn:idemproxy:problem:bad-request");
        assertThat(((McpPlan.Reject) broken).reason()).isEqualTo(McpPlan.Reject.INVALID_MESSAGE);
        assertThat(((McpPlan.Reject) broken).toolLabel()).as("not known to be a tools/call: not counted").isNull();
        assertThat(((McpPlan.Reject) mismatch).reason()).isEqualTo(McpPlan.Reject.HEADER_MISMATCH);
        assertThat(((McpPlan.Reject) mismatch).toolLabel()).isEqualTo("create_ticket");
        assertThat(((McpPlan.Reject) badKey).reason()).isEqualTo(McpPlan.Reject.BAD_KEY);
    }

    @Test
    void aToolsCallTheProxyCannotActOnIsRejectedAndCountedAsAnOtherTool() {
        McpPlan noId = McpPlanner.plan(post("{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"create_ticket\"}}"),
                DEFAULT, listed(), KEY, false);

        assertThat(((McpPlan.Reject) noId).answer().status()).isEqualTo(400);
        assertThat(((McpPlan.Reject) noId).toolLabel()).isEqualTo(ToolCatalogue.OTHER);
    }

    @Test
    void aDisabledPolicyProtectsNothing() {
        assertThat(McpPlanner.plan(post(call(1, "create_ticket")), McpPolicy.DISABLED, listed(), KEY, false))
                .isInstanceOf(McpPlan.PassThrough.class);
    }
}
