package dev.idemproxy.app.admin;

import static dev.idemproxy.app.admin.CallRecordsFixture.clientKey;
import static dev.idemproxy.app.admin.CallRecordsFixture.deadLetter;
import static dev.idemproxy.app.admin.CallRecordsFixture.receipt;
import static dev.idemproxy.app.admin.CallRecordsFixture.request;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.core.AdminPolicy;
import dev.idemproxy.core.HostPort;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredRequest;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.memory.MemoryStore;
import dev.idemproxy.core.testing.Claims;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CallRecordsEndpointsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TTL = Duration.ofHours(1);

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Stores store =
            MemoryStore.create(1000, Clock.fixed(CallRecordsFixture.T0, ZoneOffset.UTC));
    private final AtomicReference<InetSocketAddress> proxyAddress = new AtomicReference<>();
    private MetricsSetup metrics;
    private FakeProxyListener proxy;
    private AdminServer server;

    @BeforeEach
    void setUp() throws Exception {
        metrics = new MetricsSetup();
        proxy = new FakeProxyListener();
        proxyAddress.set(proxy.address());
        server = new AdminServer(new AdminPolicy(new HostPort("127.0.0.1", 0), ""), metrics.registry(),
                () -> true, Map::of, CallRecordsEndpoints.routes(store, proxyAddress::get, Duration.ofSeconds(10)))
                .start();
    }

    @AfterEach
    void tearDown() {
        server.close();
        proxy.close();
        metrics.close();
        store.close();
    }

    private HttpResponse<String> send(String method, String path) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(20))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .build();
        return client.send(r, HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    private static List<String> fieldNames(JsonNode n) {
        List<String> names = new ArrayList<>();
        n.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private void put(DeadLetter... entries) {
        for (DeadLetter d : entries) {
            store.deadLetters().addDeadLetter(d).toCompletableFuture().join();
        }
    }

    private void completeRecord(RecordKey key) {
        store.records().claim(key, "fp", "owner-1", Duration.ofSeconds(30), new ClaimContext("call-x")).toCompletableFuture().join();
        store.records().complete(key, Claims.owned("owner-1"), new StoredResponse(503, List.of(), new byte[0]), 3, TTL)
                .toCompletableFuture().join();
        assertThat(store.records().get(key).toCompletableFuture().join()).isPresent();
    }

    // --- receipts

    @Test
    void receiptByCallIdHasExactlyTheContractFields() throws Exception {
        store.receipts().putReceipt(receipt("c-1", "order-42", 0), TTL).toCompletableFuture().join();

        HttpResponse<String> r = send("GET", "/receipts/c-1");

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode n = json(r);
        assertThat(fieldNames(n)).containsExactly("callId", "bizId", "key", "route", "status", "reason",
                "httpStatus", "attempts", "createdAt", "completedAt");
        assertThat(n.get("callId").asText()).isEqualTo("c-1");
        assertThat(n.get("key").asText()).isEqualTo("order-key-c-1");
        assertThat(n.get("status").asText()).isEqualTo("FAILED");
        assertThat(n.get("httpStatus").asInt()).isEqualTo(503);
        assertThat(n.get("createdAt").asText()).isEqualTo("2024-05-01T10:00:00Z");
        assertThat(n.get("completedAt").asText()).isEqualTo("2024-05-01T10:00:01.500Z");
    }

    @Test
    void nullableReceiptFieldsAreJsonNulls() throws Exception {
        store.receipts().putReceipt(new dev.idemproxy.core.store.Receipt("c-2", null, "k", "tickets", "IN_FLIGHT", null, 0, 0,
                CallRecordsFixture.T0, null), TTL).toCompletableFuture().join();

        JsonNode n = json(send("GET", "/receipts/c-2"));

        assertThat(n.get("bizId").isNull()).isTrue();
        assertThat(n.get("reason").isNull()).isTrue();
        assertThat(n.get("completedAt").isNull()).isTrue();
    }

    @Test
    void unknownCallIdIs404WithStatusNotFound() throws Exception {
        HttpResponse<String> r = send("GET", "/receipts/nope");

        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(json(r).get("status").asText()).isEqualTo("NOT_FOUND");
        assertThat(json(r).get("callId").asText()).isEqualTo("nope");
    }

    @Test
    void receiptsByBizIdAreListedOldestFirst() throws Exception {
        store.receipts().putReceipt(receipt("c-b", "order-42", 5), TTL).toCompletableFuture().join();
        store.receipts().putReceipt(receipt("c-a", "order-42", 1), TTL).toCompletableFuture().join();
        store.receipts().putReceipt(receipt("c-z", "order-99", 0), TTL).toCompletableFuture().join();

        HttpResponse<String> r = send("GET", "/receipts?bizId=order-42");

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode list = json(r).get("receipts");
        assertThat(list).hasSize(2);
        assertThat(list.get(0).get("callId").asText()).isEqualTo("c-a");
        assertThat(list.get(1).get("callId").asText()).isEqualTo("c-b");
        assertThat(json(send("GET", "/receipts?bizId=order-42&limit=1")).get("receipts")).hasSize(1);
        assertThat(json(send("GET", "/receipts?bizId=unknown")).get("receipts")).isEmpty();
    }

    @Test
    void receiptsWithoutBizIdOrWithABadLimitAre400() throws Exception {
        HttpResponse<String> r = send("GET", "/receipts");

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.headers().firstValue("content-type")).hasValue("application/problem+json");
        assertThat(json(r).get("type").asText()).isEqualTo("urn:idemproxy:problem:bad-request");
        assertThat(send("GET", "/receipts?bizId=b&limit=0").statusCode()).isEqualTo(400);
    }

    // --- DLQ listing

    @Test
    void dlqEntryShowsTheClientKeyAndRouteButNeverTheScope() throws Exception {
        put(deadLetter("d-1", 0));

        HttpResponse<String> r = send("GET", "/dlq");

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode entry = json(r).get("entries").get(0);
        assertThat(fieldNames(entry)).containsExactly("id", "callId", "taskId", "bizId", "key", "route", "reason",
                "lastStatus", "attempts", "failedAt");
        assertThat(entry.get("key").asText()).isEqualTo("k-d-1");
        assertThat(entry.get("route").asText()).isEqualTo("tickets");
        assertThat(entry.get("failedAt").asText()).isEqualTo("2024-05-01T10:00:00Z");
        assertThat(json(r).get("nextCursor").isNull()).isTrue();
        assertThat(r.body()).doesNotContain("5c0pe-hash");
    }

    @Test
    void derivedAndGeneratedKeysAreShownAsTheyAre() throws Exception {
        put(deadLetter("d-1", 0, new RecordKey("r", "", "d:abc123"), request()),
                deadLetter("d-2", 1, new RecordKey("r", "", "g:0000-1111"), request()));

        JsonNode entries = json(send("GET", "/dlq")).get("entries");

        assertThat(entries.get(0).get("key").asText()).isEqualTo("d:abc123");
        assertThat(entries.get(1).get("key").asText()).isEqualTo("g:0000-1111");
    }

    @Test
    void dlqPagesWithTheCursorAcrossThreePages() throws Exception {
        put(deadLetter("d-5", 5), deadLetter("d-1", 1), deadLetter("d-3", 3), deadLetter("d-2", 2), deadLetter("d-4", 4));

        List<String> seen = new ArrayList<>();
        List<Integer> pageSizes = new ArrayList<>();
        String cursor = null;
        do {
            HttpResponse<String> r = send("GET", "/dlq?limit=2" + (cursor == null ? "" : "&cursor=" + cursor));
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode page = json(r);
            pageSizes.add(page.get("entries").size());
            for (Iterator<JsonNode> it = page.get("entries").elements(); it.hasNext(); ) {
                seen.add(it.next().get("id").asText());
            }
            cursor = page.get("nextCursor").isNull() ? null : page.get("nextCursor").asText();
        } while (cursor != null && pageSizes.size() < 10);

        assertThat(pageSizes).containsExactly(2, 2, 1);
        assertThat(seen).containsExactly("d-1", "d-2", "d-3", "d-4", "d-5");
    }

    @Test
    void badLimitsAndCursorsAre400() throws Exception {
        for (String q : List.of("limit=0", "limit=501", "limit=abc", "limit=-3", "cursor=%21%21not-base64", "cursor=zzz", "cursor=ZGxxMTo")) {
            HttpResponse<String> r = send("GET", "/dlq?" + q);
            assertThat(r.statusCode()).as(q).isEqualTo(400);
            assertThat(json(r).get("type").asText()).as(q).isEqualTo("urn:idemproxy:problem:bad-request");
        }
        assertThat(send("GET", "/dlq?limit=500").statusCode()).isEqualTo(200);
    }

    // --- DLQ entry

    @Test
    void showAddsTheStoredRequestWithATextBody() throws Exception {
        put(deadLetter("d-1", 0));

        HttpResponse<String> r = send("GET", "/dlq/d-1");

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode n = json(r);
        assertThat(n.get("id").asText()).isEqualTo("d-1");
        JsonNode req = n.get("request");
        assertThat(fieldNames(req)).containsExactly("method", "uri", "headers", "body");
        assertThat(req.get("method").asText()).isEqualTo("POST");
        assertThat(req.get("uri").asText()).isEqualTo("/api/tickets?x=1");
        assertThat(req.get("headers").get(0).get("name").asText()).isEqualTo("Content-Type");
        assertThat(req.get("headers").get(0).get("value").asText()).isEqualTo("application/json");
        assertThat(req.get("body").asText()).isEqualTo("{\"seat\":\"12A\"}\n");
    }

    @Test
    void showEncodesABinaryBodyAsBase64() throws Exception {
        byte[] binary = {(byte) 0xff, (byte) 0xfe, 0, 1};
        put(deadLetter("d-1", 0, clientKey("k"), new StoredRequest("PUT", "/blob", List.of(), binary)));

        JsonNode req = json(send("GET", "/dlq/d-1")).get("request");

        assertThat(req.get("bodyEncoding").asText()).isEqualTo("base64");
        assertThat(Base64.getDecoder().decode(req.get("body").asText())).isEqualTo(binary);
    }

    @Test
    void unknownEntryIs404ForShowDeleteAndReplay() throws Exception {
        for (String[] call : List.of(new String[] {"GET", "/dlq/nope"}, new String[] {"DELETE", "/dlq/nope"},
                new String[] {"POST", "/dlq/nope/replay"})) {
            HttpResponse<String> r = send(call[0], call[1]);
            assertThat(r.statusCode()).as(call[0]).isEqualTo(404);
            assertThat(json(r).get("type").asText()).isEqualTo("urn:idemproxy:problem:not-found");
        }
        assertThat(proxy.received()).isEmpty();
    }

    @Test
    void deleteWithoutReleaseKeepsTheIdempotencyRecord() throws Exception {
        DeadLetter d = deadLetter("d-1", 0);
        put(d);
        completeRecord(d.recordKey());

        HttpResponse<String> r = send("DELETE", "/dlq/d-1");

        assertThat(r.statusCode()).isEqualTo(204);
        assertThat(store.deadLetters().deadLetter("d-1").toCompletableFuture().join()).isEmpty();
        assertThat(store.records().get(d.recordKey()).toCompletableFuture().join()).isPresent();
    }

    @Test
    void deleteWithReleaseAlsoEvictsTheIdempotencyRecord() throws Exception {
        DeadLetter d = deadLetter("d-1", 0);
        put(d);
        completeRecord(d.recordKey());

        HttpResponse<String> r = send("DELETE", "/dlq/d-1?release=true");

        assertThat(r.statusCode()).isEqualTo(204);
        assertThat(store.deadLetters().deadLetter("d-1").toCompletableFuture().join()).isEmpty();
        assertThat(store.records().get(d.recordKey()).toCompletableFuture().join()).isEmpty();
    }

    @Test
    void deleteWithAnUnknownReleaseValueIs400AndDeletesNothing() throws Exception {
        put(deadLetter("d-1", 0));

        assertThat(send("DELETE", "/dlq/d-1?release=yes").statusCode()).isEqualTo(400);
        assertThat(store.deadLetters().deadLetter("d-1").toCompletableFuture().join()).isPresent();
    }

    // --- replay

    @Test
    void replaySendsTheStoredRequestWithoutRedactedOrStaleHeaders() throws Exception {
        DeadLetter d = deadLetter("d-1", 0);
        put(d);
        completeRecord(d.recordKey());

        HttpResponse<String> r = send("POST", "/dlq/d-1/replay");

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode n = json(r);
        assertThat(n.get("id").asText()).isEqualTo("d-1");
        assertThat(n.get("status").asInt()).isEqualTo(200);
        assertThat(n.get("replayed").asBoolean()).isTrue();
        assertThat(n.get("callId").asText()).isEqualTo("replay-call-1");
        assertThat(n.get("originalCallId").asText()).isEqualTo("call-d-1");
        assertThat(proxy.received()).hasSize(1);
        FakeProxyListener.Received got = proxy.received().get(0);
        assertThat(got.method()).isEqualTo("POST");
        assertThat(got.uri()).isEqualTo("/api/tickets?x=1");
        assertThat(got.header("Idempotency-Key")).containsExactly("k-1");
        assertThat(got.header("Content-Type")).containsExactly("application/json");
        assertThat(got.header("X-Biz-Id")).containsExactly("order-42");
        assertThat(got.header("Authorization")).isEmpty();
        assertThat(got.header("X-Api-Key")).isEmpty();
        assertThat(got.header("X-Request-Deadline")).isEmpty();
        assertThat(new String(got.body(), StandardCharsets.UTF_8)).isEqualTo("{\"seat\":\"12A\"}\n");
        assertThat(got.header("Content-Length")).containsExactly("15");
    }

    @Test
    void aSuccessfulReplayEvictsTheRecordAndRemovesTheEntry() throws Exception {
        DeadLetter d = deadLetter("d-1", 0);
        put(d);
        completeRecord(d.recordKey());

        JsonNode n = json(send("POST", "/dlq/d-1/replay"));

        assertThat(n.get("removed").asBoolean()).isTrue();
        assertThat(store.deadLetters().deadLetter("d-1").toCompletableFuture().join()).isEmpty();
        assertThat(store.records().get(d.recordKey()).toCompletableFuture().join()).isEmpty();
    }

    @Test
    void aFailedReplayKeepsTheEntry() throws Exception {
        put(deadLetter("d-1", 0));
        proxy.answer(503);

        HttpResponse<String> r = send("POST", "/dlq/d-1/replay");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(json(r).get("status").asInt()).isEqualTo(503);
        assertThat(json(r).get("removed").asBoolean()).isFalse();
        assertThat(store.deadLetters().deadLetter("d-1").toCompletableFuture().join()).isPresent();
    }

    @Test
    void aRequestNamingAHostIsReplayedInAbsoluteFormThroughTheListener() throws Exception {
        StoredRequest req = new StoredRequest("GET", "/api/tickets/7",
                List.of(new StoredHeader("Host", "tickets.internal:8443")), new byte[0]);
        put(deadLetter("d-1", 0, clientKey("k"), req));

        assertThat(send("POST", "/dlq/d-1/replay").statusCode()).isEqualTo(200);

        FakeProxyListener.Received got = proxy.received().get(0);
        assertThat(got.method()).isEqualTo("GET");
        assertThat(got.uri()).isEqualTo("http://tickets.internal:8443/api/tickets/7");
        assertThat(got.header("Host")).containsExactly("tickets.internal:8443");
    }

    @Test
    void anUnreachableListenerIs502AndKeepsTheEntry() throws Exception {
        put(deadLetter("d-1", 0));
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        proxyAddress.set(new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), closedPort));

        HttpResponse<String> r = send("POST", "/dlq/d-1/replay");

        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(json(r).get("type").asText()).isEqualTo("urn:idemproxy:problem:replay-failed");
        assertThat(store.deadLetters().deadLetter("d-1").toCompletableFuture().join()).isPresent();
    }
}
