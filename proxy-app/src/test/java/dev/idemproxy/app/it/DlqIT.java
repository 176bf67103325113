package dev.idemproxy.app.it;

import dev.idemproxy.core.testing.Await;

import static dev.idemproxy.core.testing.UpstreamAction.after;
import static dev.idemproxy.core.testing.UpstreamAction.delayHead;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static dev.idemproxy.core.testing.UpstreamAction.retryAfter;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.app.cli.IdemproxyCommand;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RecordedRequest;
import dev.idemproxy.core.testing.TestUpstream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/** The dead-letter workflow end to end: a call that could not finish, inspected, replayed and released. */
@ExtendWith(LeakDetection.class)
class DlqIT {
    static final String SECRET = "Bearer dlq-secret-" + UUID.randomUUID();
    static final ObjectMapper JSON = new ObjectMapper();
    static TestUpstream upstream;
    static RunningProxy proxy;
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        proxy = RunningProxy.start(""
                + "secretHeaders: [X-Api-Key]\n"
                + "routes:\n"
                + "  - name: payments\n"
                + "    match: { pathPrefix: /pay }\n"
                + "    upstream: " + upstream.uri() + "/v1\n"
                + "    timeouts: { perTry: 300ms, total: 5s }\n"
                + "    idempotency: { enabled: true }\n"
                + "    ids: { bizId: [body:/orderId] }\n"
                + "  - name: limited\n"
                + "    match: { pathPrefix: /limited }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    retry: { maxAttempts: 3, maxRetryAfter: 1s }\n"
                + "    idempotency: { enabled: true }\n"
                + "  - name: ledger\n"
                + "    match: { pathPrefix: /ledger }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    timeouts: { perTry: 10s, total: 20s }\n"
                + "    idempotency: { enabled: true }\n"
                + "  - name: unrecorded\n"
                + "    match: { pathPrefix: /plain }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    timeouts: { perTry: 300ms, total: 5s }\n"
                + "    retry: { maxAttempts: 2 }\n");
    }

    @AfterAll
    static void stop() {
        proxy.close();
        upstream.close();
    }

    static HttpResponse<String> pay(String key, String orderId) throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.uri("/pay/charges")).header("Idempotency-Key", key)
                .header("Authorization", SECRET).header("X-Api-Key", "k-123").header("X-Trace", "t-1")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"orderId\":\"" + orderId + "\",\"amount\":5}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> limited(String key) throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.uri("/limited/charges")).header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":5}")).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The receipt as the admin API answers it (admin() would overwrite its httpStatus field). */
    static JsonNode receipt(String callId) throws Exception {
        return JSON.readTree(client.send(HttpRequest.newBuilder(proxy.admin("/receipts/" + callId)).build(),
                HttpResponse.BodyHandlers.ofString()).body());
    }

    static JsonNode admin(String method, String path) throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(proxy.admin(path))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        return r.body().isEmpty() ? JSON.createObjectNode().put("httpStatus", r.statusCode())
                : ((com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(r.body())).put("httpStatus", r.statusCode());
    }

    static JsonNode entryFor(String callId) throws Exception {
        for (JsonNode e : admin("GET", "/dlq?limit=500").get("entries")) {
            if (e.get("callId").asText().equals(callId)) {
                return e;
            }
        }
        throw new AssertionError("no DLQ entry for call " + callId);
    }

    /**
     * A 429 whose Retry-After is longer than the route waits goes back at once, its key released:
     * nothing executed, so no dead letter; its receipt says FAILED, never SUCCESS, so a receipt
     * check that reads it does not answer from a result that never was.
     */
    @Test
    void aNotExecutedAnswerHandedBackLeavesAFailedReceiptAndNoDeadLetter() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(retryAfter(429, "3600"));
        HttpResponse<String> refused = limited(key);
        assertThat(refused.statusCode()).isEqualTo(429);
        String callId = refused.headers().firstValue("X-Call-Id").orElseThrow();

        JsonNode receipt = Await.value("the receipt of " + callId + " to leave PROCESSING", Duration.ofSeconds(5),
                () -> receipt(callId), r -> !"PROCESSING".equals(r.path("status").asText()));
        assertThat(receipt.get("status").asText()).isEqualTo("FAILED");
        assertThat(receipt.get("reason").asText()).isEqualTo("retry_after");
        assertThat(receipt.get("httpStatus").asInt()).isEqualTo(429);
        for (JsonNode e : admin("GET", "/dlq?limit=500").get("entries")) {
            assertThat(e.get("callId").asText()).isNotEqualTo(callId);
        }

        upstream.enqueue(respond(201, "charged"));
        HttpResponse<String> again = limited(key);
        assertThat(again.statusCode()).as("the key was released: the retry executes").isEqualTo(201);
    }

    static HttpResponse<String> ledger(String key) throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.uri("/ledger/entries")).header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":5}")).build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * While a replay of an entry runs, a second replay of it and a release of its key are refused
     * (409): either would evict the running replay's claim, and the call would then execute twice.
     */
    @Test
    void aSecondReplayOrAReleaseWhileAReplayRunsIsRefusedAndTheCallExecutesOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(respond(500, "ledger down"));
        HttpResponse<String> failed = ledger(key);
        assertThat(failed.statusCode()).isEqualTo(500);
        String entryId = entryFor(failed.headers().firstValue("X-Call-Id").orElseThrow()).get("id").asText();

        CompletableFuture<Void> gate = new CompletableFuture<>();
        upstream.enqueue(after(gate, respond(201, "charged once")));
        int before = upstream.requestCount();
        CompletableFuture<JsonNode> replay = CompletableFuture.supplyAsync(() -> {
            try {
                return admin("POST", "/dlq/" + entryId + "/replay");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            upstream.awaitRequests(before + 1, Duration.ofSeconds(5));  // the replay is in flight upstream
            JsonNode again = admin("POST", "/dlq/" + entryId + "/replay");
            assertThat(again.get("httpStatus").asInt()).isEqualTo(409);
            assertThat(again.get("type").asText()).endsWith("replay-in-flight");
            JsonNode release = admin("DELETE", "/dlq/" + entryId + "?release=true");
            assertThat(release.get("httpStatus").asInt()).isEqualTo(409);
        } finally {
            gate.complete(null);
        }
        assertThat(replay.get(10, TimeUnit.SECONDS).get("status").asInt()).isEqualTo(201);
        HttpResponse<String> dup = ledger(key);
        assertThat(dup.body()).isEqualTo("charged once");
        assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
    }

    @Test
    void ambiguousCallIsDeadLetteredInspectedAndReplayedUnderItsKeyAndCallId() throws Exception {
        String key = UUID.randomUUID().toString();
        String order = "ord-" + UUID.randomUUID();
        upstream.enqueue(delayHead(Duration.ofSeconds(2), respond(200, "late")));
        HttpResponse<String> failed = pay(key, order);
        assertThat(failed.statusCode()).isEqualTo(504);
        String callId = failed.headers().firstValue("X-Call-Id").orElseThrow();

        JsonNode receipt = admin("GET", "/receipts/" + callId);
        assertThat(receipt.get("status").asText()).isEqualTo("FAILED");
        assertThat(receipt.get("reason").asText()).isNotBlank();
        assertThat(receipt.get("bizId").asText()).isEqualTo(order);
        assertThat(receipt.get("key").asText()).isEqualTo(key);
        assertThat(admin("GET", "/receipts?bizId=" + order).get("receipts")).hasSize(1);
        assertThat(admin("GET", "/receipts/no-such-call").get("status").asText()).isEqualTo("NOT_FOUND");

        JsonNode entry = entryFor(callId);
        assertThat(entry.get("key").asText()).isEqualTo(key);
        assertThat(entry.get("route").asText()).isEqualTo("payments");
        assertThat(entry.get("bizId").asText()).isEqualTo(order);
        assertThat(entry.get("lastStatus").asInt()).isEqualTo(504);
        assertThat(entry.get("attempts").asInt()).isEqualTo(1);
        JsonNode shown = admin("GET", "/dlq/" + entry.get("id").asText());
        String request = shown.get("request").toString();
        assertThat(request).contains("/pay/charges").contains("X-Trace").contains("\"***\"")
                .doesNotContain(SECRET.substring(7)).doesNotContain("k-123");

        upstream.enqueue(respond(201, "charged once"));
        int before = upstream.requestCount();
        JsonNode replay = admin("POST", "/dlq/" + entry.get("id").asText() + "/replay");
        assertThat(replay.get("status").asInt()).isEqualTo(201);
        RecordedRequest resent = upstream.awaitRequests(before + 1, Duration.ofSeconds(5)).get(before);
        assertThat(resent.uri()).isEqualTo("/v1/pay/charges");
        assertThat(resent.header("Idempotency-Key")).isEqualTo(key);
        assertThat(resent.header("X-Call-Id")).isEqualTo(callId);
        assertThat(resent.header("X-Idemproxy-Replay")).isNull();
        assertThat(admin("GET", "/dlq/" + entry.get("id").asText()).get("httpStatus").asInt()).isEqualTo(404);

        HttpResponse<String> dup = pay(key, order);
        assertThat(dup.statusCode()).isEqualTo(201);
        assertThat(dup.body()).isEqualTo("charged once");
        assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
    }

    /**
     * A replay is the same call run again, so its receipt, one record of the call across its
     * whole life, keeps when the call was first made; only completedAt moves to the replay's end.
     * Both for a call with an idempotency record and for one on a retry-only route (no record).
     */
    @Test
    void aReplayedCallsReceiptKeepsWhenTheCallWasFirstMade() throws Exception {
        upstream.enqueue(delayHead(Duration.ofSeconds(2), respond(200, "late")));
        HttpResponse<String> recorded = pay(UUID.randomUUID().toString(), "ord-" + UUID.randomUUID());
        upstream.enqueue(delayHead(Duration.ofSeconds(2), respond(200, "late")));
        HttpResponse<String> unrecorded = client.send(HttpRequest.newBuilder(proxy.uri("/plain/charges"))
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":5}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(recorded.statusCode()).isEqualTo(504);
        assertThat(unrecorded.statusCode()).isEqualTo(504);
        String[] callIds = {recorded.headers().firstValue("X-Call-Id").orElseThrow(),
                unrecorded.headers().firstValue("X-Call-Id").orElseThrow()};
        String[] firstCreated = new String[2];
        for (int i = 0; i < 2; i++) {
            JsonNode first = settledReceipt(callIds[i]);
            assertThat(first.get("status").asText()).isEqualTo("FAILED");
            firstCreated[i] = first.get("createdAt").asText();
        }
        java.time.Instant latest = java.time.Instant.parse(firstCreated[0]).isAfter(java.time.Instant.parse(firstCreated[1]))
                ? java.time.Instant.parse(firstCreated[0]) : java.time.Instant.parse(firstCreated[1]);
        // The replays must start measurably later than the first calls: more than a second of wall time.
        Await.until("a second of wall time since the first calls", Duration.ofSeconds(5),
                () -> java.time.Instant.now().isAfter(latest.plusMillis(1_100)));

        for (int i = 0; i < 2; i++) {
            upstream.enqueue(respond(201, "charged once"));
            java.time.Instant replayStart = java.time.Instant.now();
            JsonNode replay = admin("POST", "/dlq/" + entryFor(callIds[i]).get("id").asText() + "/replay");
            assertThat(replay.get("status").asInt()).isEqualTo(201);
            assertThat(replay.get("callId").asText()).isEqualTo(callIds[i]);

            String replayed = callIds[i];
            JsonNode after = Await.value("the replay's SUCCESS receipt", Duration.ofSeconds(5), () -> receipt(replayed),
                    r -> "SUCCESS".equals(r.path("status").asText()));
            assertThat(after.get("status").asText()).isEqualTo("SUCCESS");
            assertThat(after.get("createdAt").asText()).as("call %d: the first call's start", i).isEqualTo(firstCreated[i]);
            assertThat(java.time.Instant.parse(after.get("createdAt").asText())).isBefore(replayStart.minusSeconds(1));
            assertThat(java.time.Instant.parse(after.get("completedAt").asText())).as("the replay's end")
                    .isAfterOrEqualTo(replayStart.truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
        }
    }

    /** The receipt once its call has ended (a receipt written apart from the record may trail the answer). */
    static JsonNode settledReceipt(String callId) throws Exception {
        return Await.value("the receipt of " + callId + " to settle", Duration.ofSeconds(5), () -> receipt(callId),
                r -> !"PROCESSING".equals(r.path("status").asText()) && !"NOT_FOUND".equals(r.path("status").asText()));
    }

    @Test
    void deleteWithReleaseLetsTheNextDuplicateExecute() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(delayHead(Duration.ofSeconds(2), respond(200, "late")));
        String callId = pay(key, "o-del").headers().firstValue("X-Call-Id").orElseThrow();
        assertThat(pay(key, "o-del").headers().firstValue("Idempotent-Replayed")).hasValue("true");
        String id = entryFor(callId).get("id").asText();

        StringWriter out = new StringWriter();
        CommandLine cli = IdemproxyCommand.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(new StringWriter()));
        String adminUrl = "http://127.0.0.1:" + proxy.assembly.adminAddress().getPort();
        assertThat(cli.execute("dlq", "show", id, "--admin", adminUrl)).isEqualTo(0);
        assertThat(out.toString()).contains(callId);
        assertThat(cli.execute("receipts", "get", callId, "--admin", adminUrl)).isEqualTo(0);
        assertThat(cli.execute("dlq", "delete", id, "--release", "--admin", adminUrl)).isEqualTo(0);

        upstream.enqueue(respond(200, "executed after release"));
        HttpResponse<String> next = pay(key, "o-del");
        assertThat(next.body()).isEqualTo("executed after release");
        assertThat(next.headers().firstValue("Idempotent-Replayed")).isEmpty();
    }
}
