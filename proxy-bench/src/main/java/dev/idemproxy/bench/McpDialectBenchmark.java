package dev.idemproxy.bench;

import dev.idemproxy.core.idempotency.Fingerprint;
import dev.idemproxy.core.idempotency.KeyPolicy;
import dev.idemproxy.core.idempotency.KeyResolution;
import dev.idemproxy.core.idempotency.KeyResolver;
import dev.idemproxy.core.idempotency.RequestPart;
import dev.idemproxy.core.idempotency.RequestView;
import dev.idemproxy.core.mcp.McpHeaderCheck;
import dev.idemproxy.core.mcp.McpKeys;
import dev.idemproxy.core.mcp.McpMessage;
import dev.idemproxy.core.mcp.McpMessageReader;
import dev.idemproxy.core.mcp.McpReplay;
import dev.idemproxy.core.mcp.SseResponseCapture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The per-call work the MCP dialect's pure parts add (issue #37), beside what a plain protected
 * POST of the same body does for its derived key and fingerprint: reading a {@code tools/call},
 * its key and fingerprint, a replay's id swap, and finding the final response in an SSE answer.
 */
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class McpDialectBenchmark {
    static final byte[] CALL = ("{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"tools/call\",\"params\":{\"name\":\"create_ticket\","
            + "\"arguments\":{\"userId\":42,\"title\":\"printer on floor 3 is jammed again\",\"tags\":[\"hw\",\"urgent\"],"
            + "\"meta\":{\"source\":\"agent\",\"attempt\":1}},\"_meta\":{\"progressToken\":\"p-17\"}}}").getBytes(StandardCharsets.UTF_8);
    static final byte[] STORED = ("{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Ticket T-1 created: printer on floor 3 is jammed again\"}],"
            + "\"isError\":false},\"jsonrpc\":\"2.0\",\"id\":17}").getBytes(StandardCharsets.UTF_8);
    static final byte[] SSE = ("event: message\r\nid: 1\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
            + "\"params\":{\"progressToken\":\"p-17\",\"progress\":1,\"total\":2}}\r\n\r\n"
            + "event: message\r\nid: 2\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
            + "\"params\":{\"progressToken\":\"p-17\",\"progress\":2,\"total\":2}}\r\n\r\n"
            + "event: message\r\nid: 3\r\ndata: " + new String(STORED, StandardCharsets.UTF_8) + "\r\n\r\n").getBytes(StandardCharsets.UTF_8);

    RequestView request;
    KeyResolver plainDeriving;
    List<RequestPart> plainParts;

    @Setup
    public void setup() {
        request = new BenchRequest("/mcp", Map.of("content-type", "application/json",
                "mcp-protocol-version", "2025-11-25", "mcp-session-id", "3f0c7a52-6d1e-4d3b-9a57-5d4c2b1e8f90"), CALL);
        plainParts = List.of(RequestPart.parse("method"), RequestPart.parse("path"), RequestPart.parse("body"));
        plainDeriving = new KeyResolver(new KeyPolicy("Idempotency-Key", plainParts, Duration.ofMinutes(10), false), new SplittableRandom(1));
    }

    /** A plain protected POST of the same body: key derived from [method, path, body], fingerprint over the same. */
    @Benchmark
    public void plainPostKeyAndFingerprint(Blackhole bh) {
        KeyResolution key = plainDeriving.resolve(request);
        bh.consume(key);
        bh.consume(Fingerprint.of(plainParts, request));
    }

    /** An MCP tools/call: read the message, check the mirrored headers, derive the key and the fingerprint. */
    @Benchmark
    public void mcpReadKeyAndFingerprint(Blackhole bh) {
        McpMessage m = McpMessageReader.read(request.body());
        bh.consume(McpHeaderCheck.mismatch(request, m));
        bh.consume(McpKeys.resolve("Idempotency-Key", request, m.toolCall()));
        bh.consume(McpKeys.fingerprint(request, m.toolCall()));
    }

    /** What a replay adds over a plain one: the stored response with the duplicate's id. */
    @Benchmark
    public Object mcpReplayIdSwap() {
        return McpReplay.withId(STORED, "\"retry-18\"");
    }

    /** The final response found in a three-event SSE answer, fed in 64-byte chunks. */
    @Benchmark
    public Object sseFinalResponse() {
        SseResponseCapture c = new SseResponseCapture("17", 1 << 20);
        for (int i = 0; i < SSE.length; i += 64) {
            c.feed(SSE, i, Math.min(64, SSE.length - i));
        }
        return c.finalResponse();
    }
}
