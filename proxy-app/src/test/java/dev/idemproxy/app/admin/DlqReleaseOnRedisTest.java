package dev.idemproxy.app.admin;

import static dev.idemproxy.app.admin.CallRecordsFixture.deadLetter;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.AdminPolicy;
import dev.idemproxy.core.HostPort;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.redis.RedisStore;
import dev.idemproxy.core.testing.RedisServerFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code DELETE /dlq/{id}?release=true} on a real Redis, while the dead-lettered call's own end is
 * still being retried (its dead letter is written as it settles, beside the end, and the end is
 * retried for minutes while the store fails): the late end is refused, instead of writing the
 * record back and turning the next duplicate into a replay of the released outcome.
 */
class DlqReleaseOnRedisTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private RedisServerFixture redis;
    private Stores store;
    private MetricsSetup metrics;
    private AdminServer server;

    @BeforeEach
    void setUp() {
        redis = RedisServerFixture.startStandalone();
        store = RedisStore.connect(new RedisPolicy(redis.uri(), "standalone", "dlq:"), Duration.ofSeconds(2));
        metrics = new MetricsSetup();
        server = new AdminServer(new AdminPolicy(new HostPort("127.0.0.1", 0), ""), metrics.registry(), () -> true, Map::of,
                CallRecordsEndpoints.routes(store, () -> null, Duration.ofSeconds(10))).start();
    }

    @AfterEach
    void tearDown() {
        server.close();
        metrics.close();
        store.close();
        redis.close();
    }

    @Test
    void theReleasedCallsLateEndDoesNotWriteItsRecordBack() throws Exception {
        DeadLetter d = deadLetter("d-1", 0);
        String owner = d.callId();  // a call's owner token is its call id
        assertThat(await(store.records().claim(d.recordKey(), "fp", owner, LEASE, new ClaimContext(owner)))).isEqualTo(ClaimResult.Claimed.FRESH);
        await(store.deadLetters().addDeadLetter(d));  // the call settled: its end has not reached Redis yet

        assertThat(send("DELETE", "/dlq/d-1?release=true").statusCode()).isEqualTo(204);

        OwnedClaim claim = new OwnedClaim(owner, owner, "fp", d.failedAt(), Duration.ZERO);
        assertThat(await(store.records().complete(d.recordKey(), claim, new StoredResponse(503, List.of(), new byte[0]), 3,
                Duration.ofHours(1)))).as("the end, retried after the release").isFalse();
        assertThat(await(store.records().claim(d.recordKey(), "fp", "next", LEASE, new ClaimContext("next"))))
                .as("the next duplicate executes").isEqualTo(ClaimResult.Claimed.FRESH);
    }

    private HttpResponse<String> send(String method, String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(20)).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
