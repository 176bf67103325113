package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.idempotency.CanonicalJson;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * Finds, in a {@code text/event-stream} answer to one JSON-RPC request, the final response for
 * that request: the first event whose data is a JSON-RPC response (a {@code result} or an
 * {@code error}) with the request's id. Progress notifications, log messages, and (2025-era)
 * server requests on the stream are not kept: only the final response is stored and replayed.
 * Ids are compared by value ({@code "a"} and {@code "\u0061"} are the same id). Fed chunk by
 * chunk as the answer passes; memory is bounded by {@code maxEventBytes} (the route's
 * {@code maxResponseBody}). Not thread-safe: one instance per answer.
 */
public final class SseResponseCapture {
    private final SseParser parser;
    private final byte[] requestId;
    private byte[] finalResponse;

    /**
     * @param rawRequestId  the request's id as sent (raw JSON)
     * @param maxEventBytes the largest event kept
     */
    public SseResponseCapture(String rawRequestId, int maxEventBytes) {
        this.requestId = canonicalId(requireNonNull(rawRequestId, "rawRequestId").getBytes(StandardCharsets.UTF_8));
        this.parser = new SseParser(maxEventBytes);
    }

    /** Reads the next chunk of the stream; nothing after the final response is looked at. */
    public void feed(byte[] chunk, int offset, int length) {
        if (finalResponse == null) {
            parser.feed(chunk, offset, length, this::onEvent);
        }
    }

    public void feed(byte[] chunk) {
        feed(chunk, 0, chunk.length);
    }

    /** The final response's bytes (the event's data) once seen. */
    public Optional<byte[]> finalResponse() {
        return Optional.ofNullable(finalResponse);
    }

    public boolean done() {
        return finalResponse != null;
    }

    /** The stream's last event id: where a 2025-11-25 client would resume it ("" when none). */
    public String lastEventId() {
        return parser.lastEventId();
    }

    /** True when an event was too large to keep (so the final response may have been lost). */
    public boolean overflowed() {
        return parser.overflowed();
    }

    private void onEvent(SseEvent e) {
        if (finalResponse != null || !e.type().equals("message")) {
            return;
        }
        Optional<JsonRpcResponse> r = JsonRpcResponse.read(e.data());
        if (r.isPresent() && r.get().rawId() != null
                && Arrays.equals(canonicalId(r.get().rawId().getBytes(StandardCharsets.UTF_8)), requestId)) {
            finalResponse = e.data();
        }
    }

    private static byte[] canonicalId(byte[] raw) {
        return CanonicalJson.canonicalize(raw).orElse(raw);
    }
}
