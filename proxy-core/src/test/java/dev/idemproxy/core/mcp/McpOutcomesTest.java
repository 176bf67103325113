package dev.idemproxy.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.retry.FailureClass;
import dev.idemproxy.core.retry.OutcomeClass;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class McpOutcomesTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aResultIsExecutedWhateverItsIsError() {
        McpOutcome ok = McpOutcomes.ofAnswer(200, b("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[],\"isError\":false}}"));
        McpOutcome toolError = McpOutcomes.ofAnswer(200, b("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"isError\":true,\"content\":[{\"type\":\"text\",\"text\":\"no\"}]}}"));

        assertThat(ok.outcomeClass()).isEqualTo(OutcomeClass.EXECUTED);
        assertThat(ok.toolError()).isFalse();
        assertThat(toolError.outcomeClass()).isEqualTo(OutcomeClass.EXECUTED);
        assertThat(toolError.toolError()).isTrue();
        assertThat(ok.listedIn(Set.of("500", "reset", "read-timeout"))).isFalse();
    }

    @Test
    void errorsOtherThanInternalErrorAreExecuted() {
        for (int code : new int[] {-32602, -32601, -32000, -32042, 1}) {
            McpOutcome o = McpOutcomes.ofAnswer(200, b("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":" + code + ",\"message\":\"x\"}}"));
            assertThat(o.outcomeClass()).as("code %d", code).isEqualTo(OutcomeClass.EXECUTED);
            assertThat(o.reason()).isEqualTo("jsonrpc_error");
        }
    }

    @Test
    void internalErrorIsUnknownAndListedAs500() {
        McpOutcome o = McpOutcomes.ofAnswer(200, b("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32603,\"message\":\"boom\"}}"));

        assertThat(o.outcomeClass()).isEqualTo(OutcomeClass.UNKNOWN);
        assertThat(o.reason()).isEqualTo("jsonrpc_internal_error");
        assertThat(o.listedIn(Set.of("500"))).isTrue();
        assertThat(o.listedIn(Set.of("502", "503"))).isFalse();
    }

    @Test
    void serverErrorsAndTimeoutsAreUnknown() {
        assertThat(McpOutcomes.ofAnswer(503, null).outcomeClass()).isEqualTo(OutcomeClass.UNKNOWN);
        assertThat(McpOutcomes.ofAnswer(500, b("{}")).listedIn(Set.of("500"))).isTrue();
        assertThat(McpOutcomes.ofFailure(FailureClass.READ_TIMEOUT).outcomeClass()).isEqualTo(OutcomeClass.UNKNOWN);
        assertThat(McpOutcomes.ofFailure(FailureClass.RESET).listedIn(Set.of("reset"))).isTrue();
        assertThat(McpOutcomes.ofFailure(FailureClass.IDLE_TIMEOUT).reason()).isEqualTo("idle_timeout");
    }

    @Test
    void anAnswerWithoutAFinalResponseIsUnknown() {
        McpOutcome none = McpOutcomes.ofAnswer(200, null);
        McpOutcome notJson = McpOutcomes.ofAnswer(200, b("<html>"));
        McpOutcome notification = McpOutcomes.ofAnswer(200, b("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}"));

        assertThat(List.of(none, notJson, notification)).extracting(McpOutcome::outcomeClass).containsOnly(OutcomeClass.UNKNOWN);
        assertThat(none.reason()).isEqualTo("no_final_response");
        assertThat(none.listedIn(Set.of("reset"))).isTrue();
    }

    @Test
    void connectFailuresAndTransportRefusalsAreNotExecuted() {
        assertThat(McpOutcomes.ofFailure(FailureClass.CONNECT_FAILURE).outcomeClass()).isEqualTo(OutcomeClass.NOT_EXECUTED);
        assertThat(McpOutcomes.ofFailure(FailureClass.RESET_BEFORE_REQUEST).listedIn(Set.of("connect-failure"))).isTrue();
        for (int status : new int[] {400, 401, 404, 405, 406, 415, 429, 307}) {
            assertThat(McpOutcomes.ofAnswer(status, b("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32000,\"message\":\"Session not found\"}}"))
                    .outcomeClass()).as("status %d", status).isEqualTo(OutcomeClass.NOT_EXECUTED);
        }
    }

    @Test
    void repeatingIsHarmlessForIdempotentToolsOrRoutesTaggedIdempotent() {
        ToolCatalogue c = new ToolCatalogue();
        c.apply(null, new ToolsListPage(List.of(new ToolInfo("set_flag", false, true), new ToolInfo("send", false, false)), null));

        assertThat(McpOutcomes.repeatHarmless(false, c, "set_flag")).isTrue();
        assertThat(McpOutcomes.repeatHarmless(false, c, "send")).isFalse();
        assertThat(McpOutcomes.repeatHarmless(false, c, "unknown")).isFalse();
        assertThat(McpOutcomes.repeatHarmless(true, c, "send")).isTrue();
    }

    @Test
    void aResponseIsReadOnlyWhenItIsOne() {
        assertThat(JsonRpcResponse.read(b("{\"id\":1,\"result\":{},\"error\":{}}"))).as("both").isEmpty();
        assertThat(JsonRpcResponse.read(b("{\"id\":1}"))).as("neither").isEmpty();
        assertThat(JsonRpcResponse.read(b("{\"id\":1,\"result\":{}} x"))).as("trailing").isEmpty();
        assertThat(JsonRpcResponse.read(b("{\"id\":1,\"error\":{\"code\":-32603.5}}")).orElseThrow().errorCode()).isZero();
        JsonRpcResponse r = JsonRpcResponse.read(b("{\"result\":{\"isError\":true},\"id\":\"a\"}")).orElseThrow();
        assertThat(r.rawId()).isEqualTo("\"a\"");
        assertThat(r.isError()).isTrue();
    }
}
