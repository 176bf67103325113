package dev.idemproxy.app.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.core.AdminPolicy;
import dev.idemproxy.core.HostPort;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.memory.MemoryStore;
import dev.idemproxy.core.tries.CallTries;
import dev.idemproxy.core.tries.HeadField;
import dev.idemproxy.core.tries.RequestHead;
import dev.idemproxy.core.tries.ResponseHead;
import dev.idemproxy.core.tries.Try;
import dev.idemproxy.core.tries.TryClass;
import dev.idemproxy.core.tries.TryNext;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CallsEndpointsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TTL = Duration.ofHours(1);

    private final HttpClient client = HttpClient.newHttpClient();
    private final Stores store = MemoryStore.create(1000, Clock.fixed(CallRecordsFixture.T0, ZoneOffset.UTC));
    private MetricsSetup metrics;
    private AdminServer server;

    @BeforeEach
    void setUp() {
        metrics = new MetricsSetup();
        server = new AdminServer(new AdminPolicy(new HostPort("127.0.0.1", 0), "s3cret"), metrics.registry(), () -> true, Map::of,
                CallRecordsEndpoints.routes(store, () -> new InetSocketAddress("127.0.0.1", 9), Duration.ofSeconds(5))).start();
    }

    @AfterEach
    void tearDown() {
        server.close();
        metrics.close();
        store.close();
    }

    private HttpResponse<String> get(String path, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode ok(String path) throws Exception {
        HttpResponse<String> r = get(path, "s3cret");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private void put(Receipt r) throws Exception {
        store.receipts().putReceipt(r, TTL).toCompletableFuture().get();
    }

    private static Receipt call(String id, String route, String status, int second, String task) {
        return new Receipt(id, "biz-" + id, "k-" + id, route, status, null, 200, 1, CallRecordsFixture.T0.plusSeconds(second), null)
                .withDetail(task, CallTries.NONE, null);
    }

    @Test
    void callsAreListedNewestFirstPagedAndFiltered() throws Exception {
        for (int i = 0; i < 5; i++) {
            put(call("c" + i, i % 2 == 0 ? "tickets" : "search", i == 3 ? "FAILED" : "SUCCESS", i, i < 2 ? "t-1" : null));
        }
        JsonNode first = ok("/calls?limit=2");
        assertThat(first.get("calls")).extracting(c -> c.get("callId").asText()).containsExactly("c4", "c3");
        JsonNode next = ok("/calls?limit=2&cursor=" + first.get("nextCursor").asText());
        assertThat(next.get("calls")).extracting(c -> c.get("callId").asText()).containsExactly("c2", "c1");
        assertThat(ok("/calls?route=tickets").get("calls")).extracting(c -> c.get("callId").asText()).containsExactly("c4", "c2", "c0");
        assertThat(ok("/calls?status=FAILED").get("calls")).extracting(c -> c.get("callId").asText()).containsExactly("c3");
        assertThat(ok("/calls?task=t-1").get("calls")).extracting(c -> c.get("taskId").asText()).containsExactly("t-1", "t-1");
        assertThat(ok("/calls?bizId=biz-c2").get("calls")).extracting(c -> c.get("callId").asText()).containsExactly("c2");
        JsonNode all = ok("/calls");
        assertThat(all.get("nextCursor").isNull()).isTrue();
        assertThat(all.get("calls").get(0).fieldNames()).toIterable().contains("callId", "route", "status", "taskId", "createdAt");
    }

    @Test
    void oneCallShowsItsTriesTheCountLeftOutAndItsHeads() throws Exception {
        Receipt r = call("c-9", "tickets", "SUCCESS", 0, "t-9").withDetail("t-9", new CallTries(List.of(
                new Try(1, 2, 40, 503, null, TryClass.UNKNOWN, TryNext.RETRY, 200, Try.BACKOFF, -1, null, null),
                new Try(2, 242, 30, 0, "connect-failure", TryClass.NOT_EXECUTED, TryNext.RETRY, 400, Try.BACKOFF, -1, null, null),
                new Try(3, 672, 8, 201, null, TryClass.EXECUTED, TryNext.ANSWER, -1, "executed", -1, null, null)), 0),
                dev.idemproxy.core.tries.CallHeads.of(new RequestHead("POST", "/t?api_key=***", List.of(new HeadField("Authorization", "***"))),
                new ResponseHead(201, List.of(new HeadField("Content-Type", "application/json")))));
        put(r);
        JsonNode c = ok("/calls/c-9");
        assertThat(c.get("tries")).hasSize(3);
        assertThat(c.get("tries").get(0).toString()).isEqualTo("{\"try\":1,\"startMs\":2,\"ms\":40,\"status\":503,\"failure\":null,"
                + "\"class\":\"unknown\",\"next\":\"retry\",\"waitMs\":200,\"why\":\"backoff\"}");
        assertThat(c.get("tries").get(1).get("failure").asText()).isEqualTo("connect-failure");
        assertThat(c.get("tries").get(1).get("status").isNull()).isTrue();
        assertThat(c.get("tries").get(2).get("next").asText()).isEqualTo("answer");
        assertThat(c.get("triesOmitted").asInt()).isZero();
        assertThat(c.get("request").get("uri").asText()).isEqualTo("/t?api_key=***");
        assertThat(c.get("request").get("headers").get(0).get("value").asText()).isEqualTo("***");
        assertThat(c.get("response").get("status").asInt()).isEqualTo(201);
        assertThat(c.get("taskId").asText()).isEqualTo("t-9");
    }

    @Test
    void badParametersAre400UnknownCallsAre404AndNothingWithoutTheToken() throws Exception {
        List<String> bad = new ArrayList<>(List.of("/calls?limit=0", "/calls?limit=501", "/calls?status=DONE", "/calls?cursor=nope",
                "/calls?cursor=" + DlqEndpoints.CURSOR.encode("0000001714557600000 dlq-1"), "/calls?colour=red"));
        for (String path : bad) {
            HttpResponse<String> r = get(path, "s3cret");
            assertThat(r.statusCode()).as(path).isEqualTo(400);
            assertThat(JSON.readTree(r.body()).get("type").asText()).isEqualTo("urn:idemproxy:problem:bad-request");
        }
        HttpResponse<String> missing = get("/calls/nope", "s3cret");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.headers().firstValue("content-type")).contains("application/problem+json");
        assertThat(get("/calls", null).statusCode()).isEqualTo(401);
        assertThat(get("/calls/nope", "wrong").statusCode()).isEqualTo(401);
    }
}
