package dev.idemproxy.app.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@link McpRequest}: the JSON-RPC id as text and {@code params._meta}'s trace context, from any buffer, nothing else read. */
class McpRequestTest {
    static McpRequest read(String json, boolean direct) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        ByteBuf body = direct ? Unpooled.directBuffer(bytes.length).writeBytes(bytes) : Unpooled.wrappedBuffer(bytes);
        try {
            int before = body.readerIndex();
            McpRequest r = McpRequest.read(body);
            assertThat(body.readerIndex()).as("the body is left as it was").isEqualTo(before);
            return r;
        } finally {
            body.release();
        }
    }

    @Test
    void aStringIdIsItsTextAndANumberIdAsWritten() {
        assertThat(read("{\"jsonrpc\":\"2.0\",\"id\":\"a-7\",\"method\":\"tools/call\"}", false).requestId()).isEqualTo("a-7");
        assertThat(read("{\"id\":42,\"method\":\"tools/call\"}", true).requestId()).isEqualTo("42");
        assertThat(read("{\"id\":null}", false).requestId()).isNull();
    }

    @Test
    void theTraceContextComesFromParamsMetaWhereverItIsAmongTheMembers() {
        McpRequest r = read("{\"params\":{\"arguments\":{\"_meta\":{\"traceparent\":\"not-this\"}},\"name\":\"t\","
                + "\"_meta\":{\"progressToken\":1,\"traceparent\":\"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\","
                + "\"tracestate\":\"k=v\"}},\"id\":1,\"method\":\"tools/call\"}", true);

        assertThat(r).isEqualTo(new McpRequest("1", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "k=v"));
    }

    @Test
    void anUnreadableBodyGivesNothing() {
        assertThat(read("not json", false)).isEqualTo(McpRequest.NONE);
        assertThat(read("[{\"id\":1}]", false)).isEqualTo(McpRequest.NONE);
        assertThat(read("{\"id\":\"x\",\"params\":{\"_meta\":", false)).isEqualTo(McpRequest.NONE);
    }
}
