package dev.idemproxy.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class McpMessageReaderTest {
    private static McpMessage read(String json) {
        return McpMessageReader.read(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aToolCallYieldsItsIdToolAndCanonicalArgumentsWithoutMeta() {
        McpMessage m = read("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"_meta\":{\"progressToken\":3},"
                + "\"name\":\"create_ticket\",\"arguments\":{ \"title\" : \"x\", \"a\" : 1.0 }}}");

        assertThat(m.kind()).isEqualTo(McpMessage.Kind.REQUEST);
        assertThat(m.method()).isEqualTo("tools/call");
        assertThat(m.toolCall()).isEqualTo(new McpToolCall("7", "create_ticket", "{\"a\":1,\"title\":\"x\"}".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void theIdIsKeptExactlyAsSent() {
        assertThat(read(call("\"a\\u0041-1\"")).rawId()).isEqualTo("\"a\\u0041-1\"");
        assertThat(read(call("-12")).rawId()).isEqualTo("-12");
        assertThat(read(call("1.50")).rawId()).isEqualTo("1.50");
        assertThat(read(call("12345678901234567890")).rawId()).isEqualTo("12345678901234567890");
        assertThat(read("  {\"id\" :  \"x y\" , \"method\":\"ping\"}").rawId()).isEqualTo("\"x y\"");
    }

    @Test
    void membersMayComeInAnyOrderAndArgumentsMayBeAbsent() {
        McpMessage m = read("{\"params\":{\"name\":\"search\"},\"method\":\"tools/call\",\"id\":\"q\",\"jsonrpc\":\"2.0\"}");

        assertThat(m.toolCall()).isEqualTo(new McpToolCall("\"q\"", "search", "{}".getBytes(StandardCharsets.UTF_8)));
        assertThat(read("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"s\",\"arguments\":null}}")
                .toolCall().argumentsText()).isEqualTo("{}");
    }

    @Test
    void argumentsThatDifferOnlyInOrderAndSpacingAreCanonicallyEqual() {
        McpMessage a = read("{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"b\":[1,{\"y\":2,\"x\":1}],\"a\":\"é\"}}}");
        McpMessage b = read("{\"id\":2,\"method\":\"tools/call\",\"params\":{\"arguments\":{\n \"a\":\"\\u00e9\", \"b\":[1.0,{\"x\":1,\"y\":2e0}]},\"name\":\"t\"}}");

        assertThat(a.toolCall().argumentsText()).isEqualTo(b.toolCall().argumentsText());
    }

    @Test
    void otherRequestsNotificationsAndResponsesAreToldApart() {
        assertThat(read("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}").kind()).isEqualTo(McpMessage.Kind.REQUEST);
        assertThat(read("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").kind()).isEqualTo(McpMessage.Kind.NOTIFICATION);
        assertThat(read("{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}").kind()).isEqualTo(McpMessage.Kind.RESPONSE);
        assertThat(read("{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-1,\"message\":\"no\"}}").kind()).isEqualTo(McpMessage.Kind.RESPONSE);
        assertThat(read("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}]").kind()).isEqualTo(McpMessage.Kind.BATCH);
        assertThat(read("{\"jsonrpc\":\"2.0\"}").kind()).isEqualTo(McpMessage.Kind.OTHER);
    }

    @Test
    void toolsListCarriesItsCursorAndCancellationItsRequestId() {
        McpMessage first = read("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
        McpMessage next = read("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{\"cursor\":\"p2\"}}");
        McpMessage cancel = read("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"r-1\",\"reason\":\"timeout\"}}");

        assertThat(first.isToolsList()).isTrue();
        assertThat(first.listCursor()).isNull();
        assertThat(next.listCursor()).isEqualTo("p2");
        assertThat(cancel.isCancellation()).isTrue();
        assertThat(cancel.cancelledRequest()).isEqualTo("\"r-1\"");
        assertThat(read("{\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":17}}").cancelledRequest()).isEqualTo("17");
    }

    @Test
    void nameAndUriAreReadForTheMirroredHeaders() {
        assertThat(read("{\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":\"file:///a\"}}").paramsUri()).isEqualTo("file:///a");
        assertThat(read("{\"id\":1,\"method\":\"prompts/get\",\"params\":{\"name\":\"p\"}}").paramsName()).isEqualTo("p");
    }

    @Test
    void malformedBodiesAreParseErrors() {
        for (String bad : new String[] {"", "   ", "{", "{\"id\":1,}", "not json", "\"text\"", "{} {}", "[1] x"}) {
            McpMessage m = read(bad);
            assertThat(m.kind()).as(bad).isEqualTo(McpMessage.Kind.INVALID);
            assertThat(m.errorCode()).as(bad).isEqualTo(McpMessageReader.PARSE_ERROR);
        }
    }

    @Test
    void aDuplicateMemberNameAnywhereIsRefusedSinceTheUpstreamCouldReadTheOtherOne() {
        McpMessage dupName = read("{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"search\",\"name\":\"delete_all\"}}");
        McpMessage dupArg = read("{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"a\":1,\"a\":2}}}");
        McpMessage dupMethod = read("{\"id\":1,\"method\":\"tools/list\",\"method\":\"tools/call\"}");

        assertThat(dupName.kind()).isEqualTo(McpMessage.Kind.INVALID);
        assertThat(dupArg.kind()).isEqualTo(McpMessage.Kind.INVALID);
        assertThat(dupMethod.kind()).isEqualTo(McpMessage.Kind.INVALID);
    }

    @Test
    void aToolCallWithoutIdNameOrObjectArgumentsIsInvalid() {
        assertThat(read("{\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}").errorCode()).isEqualTo(McpMessageReader.INVALID_REQUEST);
        assertThat(read("{\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}").method()).as("an invalid tools/call says so")
                .isEqualTo(McpMessage.TOOLS_CALL);
        assertThat(read("{\"id\":1,").method()).as("unreadable: no method").isNull();
        assertThat(read("{\"id\":null,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}").errorCode()).isEqualTo(McpMessageReader.INVALID_REQUEST);
        assertThat(read("{\"id\":{},\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}").errorCode()).isEqualTo(McpMessageReader.INVALID_REQUEST);
        McpMessage noName = read("{\"id\":4,\"method\":\"tools/call\",\"params\":{\"arguments\":{}}}");
        assertThat(noName.errorCode()).isEqualTo(McpMessageReader.INVALID_PARAMS);
        assertThat(noName.rawId()).isEqualTo("4");
        assertThat(read("{\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"\"}}").errorCode()).isEqualTo(McpMessageReader.INVALID_PARAMS);
        assertThat(read("{\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":[1]}}").errorCode())
                .isEqualTo(McpMessageReader.INVALID_PARAMS);
        assertThat(read("{\"id\":4,\"method\":\"tools/call\",\"params\":[]}").errorCode()).isEqualTo(McpMessageReader.INVALID_PARAMS);
        assertThat(read("{\"id\":4,\"method\":\"tools/call\"}").errorCode()).isEqualTo(McpMessageReader.INVALID_PARAMS);
        assertThat(read("{\"id\":4,\"method\":5}").errorCode()).isEqualTo(McpMessageReader.INVALID_REQUEST);
    }

    private static String call(String id) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{}}}";
    }

    @Test
    void theIdOfAToolsCallIsReadFromTheFirstBytesOfABodyTooLargeToReadWhole() {
        byte[] idFirst = "{\"jsonrpc\":\"2.0\",\"id\":\"a-7\",\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"blob\":\"xxxx"
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] idLast = "{\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"blob\":\"xxxx"
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] notACall = "{\"id\":3,\"method\":\"tools/list\",\"params\":{\"cursor\":\"x".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] cutInTheId = "{\"method\":\"tools/call\",\"id\":12".getBytes(java.nio.charset.StandardCharsets.UTF_8);

        assertThat(McpMessageReader.toolCallId(idFirst)).hasValue("\"a-7\"");
        assertThat(McpMessageReader.toolCallId(idLast)).isEmpty();
        assertThat(McpMessageReader.toolCallId(notACall)).isEmpty();
        assertThat(McpMessageReader.toolCallId(cutInTheId)).as("a number cut short is not read").isEmpty();
        assertThat(McpMessageReader.toolCallId(new byte[0])).isEmpty();
    }
}
