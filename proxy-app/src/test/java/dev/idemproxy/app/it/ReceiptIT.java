package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.delayHead;
import static dev.idemproxy.core.testing.UpstreamAction.dynamic;
import static dev.idemproxy.core.testing.UpstreamAction.hang;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static dev.idemproxy.core.testing.UpstreamAction.respondChunked;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RecordedRequest;
import dev.idemproxy.core.testing.TestUpstream;
import dev.idemproxy.core.testing.UpstreamAction;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * "Query the receipt before retrying": each receipt answer, on an untagged POST route; a check
 * that does not resolve ends the call as the unknown outcome would have ended without a receipt
 * endpoint (a 5xx as it came, a failure at the deadline as 504 deadline-exceeded).
 */
@ExtendWith(LeakDetection.class)
class ReceiptIT {
    static TestUpstream upstream;
    static RunningProxy proxy;
    static final Deque<UpstreamAction> orders = new ArrayDeque<>();
    static final Deque<UpstreamAction> receipts = new ArrayDeque<>();
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static final Map<String, String> JSON = Map.of("Content-Type", "application/json");
    static final ObjectMapper MAPPER = new ObjectMapper();
    static final UpstreamAction PROCESSING = respond(200, JSON, "{\"status\":\"PROCESSING\"}");
    /** What the receipt endpoint answers once its script has run out; null: a 500 ("unscripted"). */
    static volatile UpstreamAction receiptsAfterScript;

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        upstream.defaultAction(dynamic(r -> {
            synchronized (orders) {
                boolean receipt = r.path().startsWith("/receipts/");
                UpstreamAction a = (receipt ? receipts : orders).poll();
                UpstreamAction after = receipt ? receiptsAfterScript : null;
                return a != null ? a : after != null ? after : respond(500, "unscripted " + r.path());
            }
        }));
        proxy = RunningProxy.start(""
                + "routes:\n"
                + "  - name: orders\n"
                + "    match: { pathPrefix: /orders }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    timeouts: { perTry: 300ms, total: 10s }\n"
                + "    idempotency: { enabled: true }\n"
                + "    retry: { maxAttempts: 3, backoff: { initial: 20ms, max: 50ms, jitter: none } }\n"
                + "    receipt:\n"
                + "      url: \"" + upstream.uri() + "/receipts/{callId}?key={key}\"\n"
                // the same route without a receipt endpoint: what a call answers without one
                + "  - name: plain\n"
                + "    match: { pathPrefix: /plain }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    timeouts: { perTry: 300ms, total: 10s }\n"
                + "    idempotency: { enabled: true }\n"
                + "    retry: { maxAttempts: 3, backoff: { initial: 20ms, max: 50ms, jitter: none } }\n"
                + "  - name: small\n"
                + "    match: { pathPrefix: /small }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    timeouts: { perTry: 300ms, total: 10s }\n"
                + "    idempotency: { enabled: true, maxResponseBody: 1KiB }\n"
                + "    retry: { maxAttempts: 3, backoff: { initial: 20ms, max: 50ms, jitter: none } }\n"
                + "    receipt:\n"
                + "      url: \"" + upstream.uri() + "/receipts/{callId}\"\n");
    }

    @AfterAll
    static void stop() {
        proxy.close();
        upstream.close();
    }

    int before;

    @BeforeEach
    void reset() {
        synchronized (orders) {
            orders.clear();
            receipts.clear();
        }
        receiptsAfterScript = null;
        before = upstream.requestCount();
    }

    static void script(List<UpstreamAction> o, List<UpstreamAction> r) {
        synchronized (orders) {
            orders.addAll(o);
            receipts.addAll(r);
        }
    }

    static HttpResponse<String> post(String key) throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.uri("/orders")).header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":1}")).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A POST to {@code path} with the caller's deadline {@code timeoutMs} from now. */
    static HttpResponse<String> post(String path, String key, long timeoutMs) throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.uri(path)).header("Idempotency-Key", key)
                .header("X-Request-Timeout-Ms", Long.toString(timeoutMs))
                .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":1}")).build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode admin(String path) throws Exception {
        return MAPPER.readTree(client.send(HttpRequest.newBuilder(proxy.admin(path)).build(),
                HttpResponse.BodyHandlers.ofString()).body());
    }

    static JsonNode deadLetterOf(String callId) throws Exception {
        for (JsonNode e : admin("/dlq?limit=500").get("entries")) {
            if (e.get("callId").asText().equals(callId)) {
                return e;
            }
        }
        throw new AssertionError("no DLQ entry for call " + callId);
    }

    /** The response's headers, lower-cased, but for the call's own id. */
    static Map<String, List<String>> headersButCallId(HttpResponse<?> r) {
        Map<String, List<String>> h = new TreeMap<>(r.headers().map());
        h.remove("x-call-id");
        return h;
    }

    /** The requests that reached the upstream's {@code path} (not its receipt endpoint) since the test began. */
    long callsTo(String path) {
        return paths().stream().filter(path::equals).count();
    }

    List<String> paths() {
        return upstream.requests().subList(before, upstream.requestCount()).stream().map(RecordedRequest::path)
                .collect(Collectors.toList());
    }

    static UpstreamAction late() {
        return delayHead(Duration.ofSeconds(2), respond(201, "late"));
    }

    @Test
    void successAnswersFromTheReceiptsResultAndIsReplayed() throws Exception {
        script(List.of(late()), List.of(respond(200, JSON, "{\"status\":\"SUCCESS\",\"result\":{\"id\":\"o-1\"}}")));
        String key = UUID.randomUUID().toString();
        HttpResponse<String> r = post(key);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"id\":\"o-1\"}");
        RecordedRequest q = upstream.request(before + 1);
        assertThat(q.uri()).isEqualTo("/receipts/" + r.headers().firstValue("X-Call-Id").orElseThrow() + "?key=" + key);
        HttpResponse<String> dup = post(key);
        assertThat(dup.body()).isEqualTo("{\"id\":\"o-1\"}");
        assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(paths()).containsExactly("/orders", "/receipts/" + r.headers().firstValue("X-Call-Id").orElseThrow());
    }

    @Test
    void notFoundRetriesWithTheSameKeyAndCallId() throws Exception {
        script(List.of(late(), respond(201, "created on retry")), List.of(respond(404, "nope")));
        HttpResponse<String> r = post(UUID.randomUUID().toString());
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.body()).isEqualTo("created on retry");
        List<RecordedRequest> seen = upstream.requests().subList(before, before + 3);
        assertThat(seen).extracting(RecordedRequest::path).containsExactly("/orders", "/receipts/" + r.headers().firstValue("X-Call-Id").get(), "/orders");
        assertThat(seen.get(0).header("Idempotency-Key")).isEqualTo(seen.get(2).header("Idempotency-Key"));
        assertThat(seen.get(0).header("X-Call-Id")).isEqualTo(seen.get(2).header("X-Call-Id"));
        assertThat(seen.get(2).header("X-Attempt")).isEqualTo("2");

        JsonNode tries = admin("/calls/" + r.headers().firstValue("X-Call-Id").get()).get("tries");
        assertThat(tries).hasSize(2);
        assertThat(tries.get(0).get("failure").asText()).isEqualTo("read-timeout");
        assertThat(tries.get(0).get("class").asText()).isEqualTo("unknown");
        assertThat(tries.get(0).get("next").asText()).isEqualTo("check-receipt");
        assertThat(tries.get(0).get("why").asText()).isEqualTo("NOT_FOUND");
        assertThat(tries.get(0).get("afterCheck").asText()).isEqualTo("retry");
        assertThat(tries.get(0).get("afterCheckWhy").asText()).isEqualTo("backoff");
        assertThat(tries.get(0).get("waitMs").asLong()).isEqualTo(20);
        assertThat(tries.get(0).get("checkMs").asLong()).isGreaterThanOrEqualTo(0);
        assertThat(tries.get(1).get("status").asInt()).isEqualTo(201);
        assertThat(tries.get(1).get("next").asText()).isEqualTo("answer");
    }

    @Test
    void processingIsPolledUntilSuccess() throws Exception {
        script(List.of(late()), List.of(respond(200, JSON, "{\"status\":\"PROCESSING\"}"),
                respond(200, JSON, "{\"status\":\"PROCESSING\"}"),
                respond(200, JSON, "{\"status\":\"SUCCESS\",\"result\":{\"id\":\"o-3\"}}")));
        HttpResponse<String> r = post(UUID.randomUUID().toString());
        assertThat(r.body()).isEqualTo("{\"id\":\"o-3\"}");
        assertThat(paths()).hasSize(4);

        JsonNode only = admin("/calls/" + r.headers().firstValue("X-Call-Id").get()).get("tries").get(0);
        assertThat(only.get("next").asText()).isEqualTo("check-receipt");
        assertThat(only.get("why").asText()).as("the check's last answer").isEqualTo("SUCCESS");
        assertThat(only.get("afterCheck").asText()).isEqualTo("answer");
        assertThat(only.get("afterCheckWhy").asText()).isEqualTo("receipt_success");
    }

    @Test
    void failedEndsTheCallWith502AndADeadLetter() throws Exception {
        script(List.of(late()), List.of(respond(200, JSON, "{\"status\":\"FAILED\"}")));
        HttpResponse<String> r = post(UUID.randomUUID().toString());
        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.body()).contains("urn:idemproxy:problem:upstream-failed");
        assertThat(paths()).hasSize(2);
    }

    @Test
    void unreadableReceiptIsTriedThreeTimesThenTheOutcomeStaysAmbiguous() throws Exception {
        script(List.of(late()), List.of(respond(500, "x"), respond(503, "y"), respond(200, JSON, "not json")));
        String key = UUID.randomUUID().toString();
        HttpResponse<String> r = post(key);
        assertThat(r.statusCode()).isEqualTo(504);
        assertThat(r.body()).contains("urn:idemproxy:problem:ambiguous-outcome").contains("receipt unresolved");
        assertThat(paths()).hasSize(4);
        HttpResponse<String> dup = post(key);
        assertThat(dup.statusCode()).isEqualTo(504);
        assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(upstream.requestCount()).isEqualTo(before + 4);
    }

    /**
     * A 5xx whose receipt stays PROCESSING past the caller's deadline is answered as the upstream
     * sent it, byte for byte as the same call gets it on a route without a receipt endpoint, and is
     * what duplicates replay; it executed at most once, and the DLQ and receipt hold it.
     */
    @Test
    void a5xxWhoseReceiptStaysProcessingIsAnsweredAndReplayedAsTheUpstreamSentIt() throws Exception {
        String body = "{\"error\":\"ledger offline\",\"ref\":\"" + UUID.randomUUID() + "\"}";
        UpstreamAction failing = respond(500, Map.of("Content-Type", "application/vnd.ledger+json", "X-Ledger-Error", "L-17"),
                body);
        receiptsAfterScript = PROCESSING;
        script(List.of(failing), List.of());
        String key = UUID.randomUUID().toString();
        HttpResponse<String> r = post("/orders", key, 600);
        assertThat(r.statusCode()).isEqualTo(500);
        assertThat(r.body()).isEqualTo(body);
        assertThat(r.headers().firstValue("X-Ledger-Error")).hasValue("L-17");
        assertThat(r.headers().firstValue("Idempotent-Replayed")).isEmpty();
        String callId = r.headers().firstValue("X-Call-Id").orElseThrow();
        assertThat(paths()).as("the receipt was polled").contains("/receipts/" + callId);

        script(List.of(failing), List.of());
        HttpResponse<String> plain = post("/plain", UUID.randomUUID().toString(), 600);
        assertThat(plain.statusCode()).isEqualTo(500);
        assertThat(headersButCallId(r)).as("as without a receipt endpoint").isEqualTo(headersButCallId(plain));
        assertThat(r.body().getBytes(StandardCharsets.UTF_8)).isEqualTo(plain.body().getBytes(StandardCharsets.UTF_8));

        HttpResponse<String> dup = post("/orders", key, 600);
        assertThat(dup.statusCode()).isEqualTo(500);
        assertThat(dup.body()).isEqualTo(body);
        assertThat(dup.headers().firstValue("X-Ledger-Error")).hasValue("L-17");
        assertThat(dup.headers().firstValue("Content-Type")).hasValue("application/vnd.ledger+json");
        assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(dup.headers().firstValue("X-Call-Id")).hasValue(callId);
        assertThat(callsTo("/orders")).as("executed once").isEqualTo(1);

        JsonNode receipt = admin("/receipts/" + callId);
        assertThat(receipt.get("status").asText()).isEqualTo("FAILED");
        assertThat(receipt.get("reason").asText()).isEqualTo("receipt_unresolved");
        assertThat(receipt.get("httpStatus").asInt()).isEqualTo(500);
        JsonNode dead = deadLetterOf(callId);
        assertThat(dead.get("reason").asText()).isEqualTo("receipt_unresolved");
        assertThat(dead.get("lastStatus").asInt()).isEqualTo(500);
    }

    /** A chunked 5xx kept for the check is let go when the receipt resolves: NOT_FOUND retries as before. */
    @Test
    void aChunked5xxKeptForTheCheckIsDroppedWhenTheReceiptSaysNotFound() throws Exception {
        script(List.of(respondChunked(503, List.of("part one, ".getBytes(StandardCharsets.UTF_8),
                "part two".getBytes(StandardCharsets.UTF_8))), respond(201, "created on retry")), List.of(respond(404, "nope")));
        HttpResponse<String> r = post("/orders", UUID.randomUUID().toString(), 5_000);
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.body()).isEqualTo("created on retry");
        assertThat(r.headers().firstValue("X-Attempts")).hasValue("2");
        assertThat(callsTo("/orders")).isEqualTo(2);
    }

    /**
     * The receipt says NOT_FOUND after every 5xx but the attempts run out: the last failure is
     * returned, the upstream's 5xx as it came (not 504 ambiguous-outcome), and the key is released
     * (the call never executed), so the next duplicate executes.
     */
    @Test
    void aNotFoundReceiptWithNoRetryLeftReturnsTheLast5xxAsItCameAndReleasesTheKey() throws Exception {
        Map<String, String> headers = Map.of("Content-Type", "application/json", "X-Ledger-Error", "busy");
        script(List.of(respond(503, headers, "{\"error\":\"busy 1\"}"), respond(503, headers, "{\"error\":\"busy 2\"}"),
                respond(503, headers, "{\"error\":\"busy 3\"}"), respond(201, "created")),
                List.of(respond(404, "nope"), respond(404, "nope"), respond(404, "nope")));
        String key = UUID.randomUUID().toString();
        HttpResponse<String> r = post("/orders", key, 5_000);
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body()).isEqualTo("{\"error\":\"busy 3\"}");
        assertThat(r.headers().firstValue("X-Ledger-Error")).hasValue("busy");
        assertThat(r.headers().firstValue("X-Attempts")).hasValue("3");
        HttpResponse<String> again = post("/orders", key, 5_000);
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(callsTo("/orders")).isEqualTo(4);
    }

    /** A 5xx larger than maxResponseBody is not kept: an unresolved check answers 504 ambiguous-outcome, replayed. */
    @Test
    void a5xxLargerThanMaxResponseBodyIsNotKeptAndAnUnresolvedCheckAnswersAmbiguousOutcome() throws Exception {
        receiptsAfterScript = PROCESSING;
        script(List.of(respond(500, "x".repeat(4096))), List.of());
        String key = UUID.randomUUID().toString();
        HttpResponse<String> r = post("/small", key, 500);
        assertThat(r.statusCode()).isEqualTo(504);
        assertThat(r.body()).contains("urn:idemproxy:problem:ambiguous-outcome");
        HttpResponse<String> dup = post("/small", key, 500);
        assertThat(dup.statusCode()).isEqualTo(504);
        assertThat(dup.body()).isEqualTo(r.body());
        assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(callsTo("/small")).isEqualTo(1);
    }

    /**
     * A POST that times out, whose receipt stays PROCESSING until the caller's deadline, answers
     * 504 deadline-exceeded (as a deadline during an attempt does), replayed to duplicates, with
     * reason deadline in its receipt and DLQ entry; it executed at most once.
     */
    @Test
    void aTimeoutWhoseReceiptStaysProcessingUntilTheDeadlineAnswersDeadlineExceeded() throws Exception {
        receiptsAfterScript = PROCESSING;
        script(List.of(hang()), List.of());
        String key = UUID.randomUUID().toString();
        HttpResponse<String> r = post("/orders", key, 900);
        assertThat(r.statusCode()).isEqualTo(504);
        assertThat(r.body()).contains("urn:idemproxy:problem:deadline-exceeded");
        String callId = r.headers().firstValue("X-Call-Id").orElseThrow();
        assertThat(paths()).as("the receipt was polled").contains("/receipts/" + callId);

        HttpResponse<String> dup = post("/orders", key, 900);
        assertThat(dup.statusCode()).isEqualTo(504);
        assertThat(dup.body()).isEqualTo(r.body());
        assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(callsTo("/orders")).as("executed at most once").isEqualTo(1);

        JsonNode receipt = admin("/receipts/" + callId);
        assertThat(receipt.get("status").asText()).isEqualTo("FAILED");
        assertThat(receipt.get("reason").asText()).isEqualTo("deadline");
        assertThat(receipt.get("httpStatus").asInt()).isEqualTo(504);
        JsonNode dead = deadLetterOf(callId);
        assertThat(dead.get("reason").asText()).isEqualTo("deadline");
        assertThat(dead.get("lastStatus").asInt()).isEqualTo(504);
    }

    /** An attempt cut short by the deadline leaves no time to read the receipt: 504 deadline-exceeded, replayed. */
    @Test
    void aTimeoutAtTheDeadlineAnswersDeadlineExceededWithoutAskingTheReceipt() throws Exception {
        script(List.of(hang()), List.of());
        String key = UUID.randomUUID().toString();
        HttpResponse<String> r = post("/orders", key, 150);
        assertThat(r.statusCode()).isEqualTo(504);
        assertThat(r.body()).contains("urn:idemproxy:problem:deadline-exceeded");
        HttpResponse<String> dup = post("/orders", key, 150);
        assertThat(dup.body()).isEqualTo(r.body());
        assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(paths()).containsExactly("/orders");
        assertThat(deadLetterOf(r.headers().firstValue("X-Call-Id").orElseThrow()).get("reason").asText()).isEqualTo("deadline");
    }

    /**
     * The receipt endpoint does not answer in the time left: its queries, cut short by the
     * deadline, end past it, and the deadline, not an unreadable receipt, ended the check.
     */
    @Test
    void aTimeoutWhoseReceiptCannotBeReadBeforeTheDeadlineAnswersDeadlineExceeded() throws Exception {
        receiptsAfterScript = hang();
        script(List.of(hang()), List.of());
        String key = UUID.randomUUID().toString();
        HttpResponse<String> r = post("/orders", key, 500);
        assertThat(r.statusCode()).isEqualTo(504);
        assertThat(r.body()).contains("urn:idemproxy:problem:deadline-exceeded");
        String callId = r.headers().firstValue("X-Call-Id").orElseThrow();
        assertThat(paths()).as("the receipt was asked").contains("/receipts/" + callId);
        assertThat(callsTo("/orders")).isEqualTo(1);
        assertThat(deadLetterOf(callId).get("reason").asText()).isEqualTo("deadline");
    }
}
