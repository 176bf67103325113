package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.delayHead;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.TestUpstream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The memory store at its bounds, through the proxy: a full store evicts ended records, never
 * the record of a call still running, so that call's duplicate waits for it instead of running
 * it a second time, however many calls are running.
 */
@ExtendWith(LeakDetection.class)
class MemoryStoreBoundsIT {
    private static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private TestUpstream upstream;
    private RunningProxy proxy;
    private final ExecutorService pool = Executors.newFixedThreadPool(40);

    @AfterEach
    void stop() {
        pool.shutdownNow();
        if (proxy != null) {
            proxy.close();
        }
        if (upstream != null) {
            upstream.close();
        }
    }

    private HttpResponse<String> post(String key, String body) throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.uri("/tickets")).POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json").header("Idempotency-Key", key).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private CompletableFuture<HttpResponse<String>> postAsync(String key, String body) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return post(key, body);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        }, pool);
    }

    @Test
    void callsInFlightKeepTheirRecordsThoughThereAreMoreThanTheStoreHoldsAndEndedCallsComeAndGo() throws Exception {
        upstream = TestUpstream.start().defaultAction(respond(201, "fast"));
        proxy = RunningProxy.start("store: { type: memory, memory: { maxEntries: 5, maxBytes: 1MiB } }\n", ""
                + "routes:\n"
                + "  - name: tickets\n"
                + "    match: { pathPrefix: /tickets }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    timeouts: { perTry: 20s, total: 30s }\n"
                + "    idempotency: { enabled: true, waitTimeout: 20s }\n");
        JsonNode memory = new ObjectMapper().readTree(client.send(HttpRequest.newBuilder(proxy.admin("/config")).build(),
                HttpResponse.BodyHandlers.ofString()).body()).path("store").path("memory");
        assertThat(memory.path("maxEntries").asInt()).isEqualTo(5);
        assertThat(memory.path("maxBytes").asText()).isEqualTo("1MiB");

        int slowCalls = 20;  // four times what the store keeps by count
        for (int i = 0; i < slowCalls; i++) {
            upstream.enqueue(delayHead(Duration.ofSeconds(4), respond(201, "slow")));
        }
        List<CompletableFuture<HttpResponse<String>>> firsts = new ArrayList<>();
        for (int i = 0; i < slowCalls; i++) {
            firsts.add(postAsync("slow-" + i, "{\"n\":" + i + "}"));
        }
        upstream.awaitRequests(slowCalls, Duration.ofSeconds(10));
        for (int i = 1; i <= 30; i++) {  // ended calls come and go meanwhile
            assertThat(post("fast-" + i, "{\"n\":" + i + "}").statusCode()).isEqualTo(201);
        }
        assertThat(upstream.requestCount()).isEqualTo(slowCalls + 30);
        assertThat(firsts).as("the slow calls still run").noneMatch(CompletableFuture::isDone);

        List<CompletableFuture<HttpResponse<String>>> duplicates = new ArrayList<>();
        for (int i = 0; i < slowCalls; i++) {
            duplicates.add(postAsync("slow-" + i, "{\"n\":" + i + "}"));
        }
        for (int i = 0; i < slowCalls; i++) {
            HttpResponse<String> first = firsts.get(i).get(20, TimeUnit.SECONDS);
            HttpResponse<String> duplicate = duplicates.get(i).get(20, TimeUnit.SECONDS);
            assertThat(first.body()).isEqualTo("slow");
            assertThat(duplicate.body()).as("duplicate of slow-%d", i).isEqualTo("slow");
            assertThat(duplicate.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(duplicate.headers().firstValue("X-Call-Id")).isEqualTo(first.headers().firstValue("X-Call-Id"));
        }
        assertThat(upstream.requestCount()).as("each slow call ran once").isEqualTo(slowCalls + 30);
    }
}
