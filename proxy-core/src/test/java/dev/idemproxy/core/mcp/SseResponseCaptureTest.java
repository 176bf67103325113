package dev.idemproxy.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SseResponseCaptureTest {
    private static final String PROGRESS = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}";
    private static final String FINAL = "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]},\"jsonrpc\":\"2.0\",\"id\":7}";

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theFinalResponseForTheRequestIdIsKeptAndNothingElse() {
        byte[] stream = b("id: 1\ndata: " + PROGRESS + "\n\n"
                + "id: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"sampling/createMessage\",\"params\":{}}\n\n"
                + "id: 3\ndata: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\n\n"
                + "id: 4\ndata: " + FINAL + "\n\n"
                + "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"late\":true}}\n\n");
        for (int cut = 0; cut <= stream.length; cut += 5) {
            SseResponseCapture c = new SseResponseCapture("7", 4096);
            c.feed(stream, 0, cut);
            c.feed(stream, cut, stream.length - cut);

            assertThat(c.finalResponse()).as("cut at %d", cut).hasValueSatisfying(r -> assertThat(new String(r, StandardCharsets.UTF_8)).isEqualTo(FINAL));
            assertThat(c.lastEventId()).isEqualTo("4");
        }
    }

    @Test
    void idsAreComparedByValue() {
        SseResponseCapture c = new SseResponseCapture("\"a\\u0062\"", 4096);

        c.feed(b("data: {\"jsonrpc\":\"2.0\",\"id\":\"ab\",\"error\":{\"code\":-32603,\"message\":\"x\"}}\n\n"));

        assertThat(c.done()).isTrue();
    }

    @Test
    void aMultiLineDataFieldIsOneResponse() {
        SseResponseCapture c = new SseResponseCapture("1", 4096);

        c.feed(b("data: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":1,\r\ndata: \"result\":{}}\r\n\r\n"));

        assertThat(c.finalResponse()).hasValueSatisfying(r -> assertThat(new String(r, StandardCharsets.UTF_8))
                .isEqualTo("{\"jsonrpc\":\"2.0\",\n\"id\":1,\n\"result\":{}}"));
    }

    @Test
    void aStreamCutShortHasNoFinalResponse() {
        SseResponseCapture c = new SseResponseCapture("7", 4096);

        c.feed(b("id: 1\ndata: " + PROGRESS + "\n\ndata: " + FINAL));

        assertThat(c.finalResponse()).isEmpty();
        assertThat(McpOutcomes.ofAnswer(200, c.finalResponse().orElse(null)).outcomeClass())
                .isEqualTo(dev.idemproxy.core.retry.OutcomeClass.UNKNOWN);
    }

    @Test
    void eventsOfAnotherTypeAreNotResponses() {
        SseResponseCapture c = new SseResponseCapture("7", 4096);

        c.feed(b("event: endpoint\ndata: " + FINAL + "\n\n"));

        assertThat(c.done()).isFalse();
    }

    @Test
    void aFinalResponseOverTheBoundIsLostAndFlagged() {
        SseResponseCapture c = new SseResponseCapture("7", 32);

        c.feed(b("data: " + FINAL + "\n\n"));

        assertThat(c.done()).isFalse();
        assertThat(c.overflowed()).isTrue();
    }
}
