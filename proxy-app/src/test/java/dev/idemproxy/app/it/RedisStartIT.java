package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.FreePorts;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.LoopbackBlackhole;
import dev.idemproxy.core.testing.RedisServerFixture;
import dev.idemproxy.core.testing.TestCertificates;
import dev.idemproxy.core.testing.TestUpstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code idemproxy.jar} started while its Redis is away, as a Kubernetes sidecar may be
 * when Redis is briefly gone at pod start: the process starts and listens instead of exiting 1;
 * {@code /healthz} is 200 and {@code /readyz} 503; a protected call is answered
 * {@code 503 store-unavailable} with nothing forwarded, and the admin's receipts and DLQ are 503;
 * the failure is logged once, not per attempt. Once a {@code redis-server} listens on that port,
 * {@code /readyz} turns 200 and calls are protected: one executes, its duplicate is replayed.
 */
@ExtendWith(LeakDetection.class)
class RedisStartIT {
    static final Duration WAIT = Duration.ofSeconds(20);
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    static TestUpstream upstream;

    @TempDir
    Path dir;

    @BeforeAll
    static void startUpstream() {
        upstream = TestUpstream.start();
    }

    @AfterAll
    static void stopUpstream() {
        upstream.close();
    }

    @Test
    void theProxyStartsWhileRedisIsDownAndProtectsCallsOnceRedisIsThere() throws Exception {
        int[] ports = FreePorts.pick(2);
        try (RedisServerFixture redis = RedisServerFixture.notStarted()) {
            Path config = Files.writeString(dir.resolve("idemproxy.yaml"), "listen: 127.0.0.1:" + ports[0] + "\n"
                    + "admin: { listen: 127.0.0.1:" + ports[1] + " }\n"
                    + "store:\n"
                    + "  type: redis\n"
                    + "  redis: { uri: \"" + redis.uri() + "\" }\n"
                    + "  onUnavailable: reject\n"
                    + "routes:\n"
                    + "  - name: orders\n"
                    + "    match: { pathPrefix: /orders }\n"
                    + "    upstream: " + upstream.uri() + "\n"
                    + "    idempotency: { enabled: true }\n", UTF_8);
            try (ChildProxy child = ChildProxy.start(dir, "run", "--config", config.toString())) {
                child.awaitLine("cannot connect to Redis at .*; trying again in the background");
                child.awaitLine("admin listening on");
                assertThat(child.count("cannot connect to Redis at " + redis.uri().replace(".", "\\.")))
                        .as(child.transcript()).isEqualTo(1);
                URI admin = URI.create("http://127.0.0.1:" + ports[1]);
                assertThat(StoreIT.get(admin.resolve("/healthz")).statusCode()).isEqualTo(200);
                assertThat(StoreIT.get(admin.resolve("/readyz")).statusCode()).isEqualTo(503);
                assertThat(StoreIT.get(admin.resolve("/dlq")).statusCode()).isEqualTo(503);
                assertThat(StoreIT.get(admin.resolve("/receipts/0123456789abcdef0123456789abcdef")).statusCode()).isEqualTo(503);

                int before = upstream.requestCount();
                String key = UUID.randomUUID().toString();
                HttpResponse<byte[]> rejected = order(ports[0], key);
                assertThat(rejected.statusCode()).isEqualTo(503);
                assertThat(new String(rejected.body(), UTF_8)).contains("urn:idemproxy:problem:store-unavailable");
                assertThat(upstream.requestCount()).as("nothing forwarded").isEqualTo(before);

                redis.start();
                StoreIT.awaitStatus(admin.resolve("/readyz"), 200);
                child.awaitLine("connected to Redis at .* after [0-9]+ failed attempts");
                upstream.enqueue(respond(201, "order placed"));
                HttpResponse<byte[]> first = order(ports[0], key);
                assertThat(first.statusCode()).isEqualTo(201);
                HttpResponse<byte[]> dup = order(ports[0], key);
                assertThat(dup.statusCode()).isEqualTo(201);
                assertThat(dup.body()).isEqualTo(first.body());
                assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
                assertThat(upstream.requestCount()).as("executed once").isEqualTo(before + 1);
                assertThat(child.count("still cannot connect")).as("well under 30 s of failures: one line in all").isZero();

                child.signal("TERM");
                assertThat(child.waitFor(WAIT)).as(child.transcript()).isZero();
                child.assertNoLeaks();
            }
        }
    }

    /**
     * An address that drops SYNs (a loopback port whose accept queue is full) holds an attempt
     * until its connect times out: the proxy listens once no TCP connection was made within half a
     * second, and the attempts go on in the background.
     */
    @Test
    void theProxyListensAtOnceWhileItsRedisAddressDropsEverySyn() throws Exception {
        int[] ports = FreePorts.pick(2);
        try (LoopbackBlackhole blackhole = LoopbackBlackhole.open()) {
            Path config = redisConfig(ports, "redis://127.0.0.1:" + blackhole.port());
            try (ChildProxy child = ChildProxy.start(dir, "run", "--config", config.toString())) {
                child.awaitLine("admin listening on");
                String transcript = child.transcript();
                assertThat(transcript).as("the start went on before the first attempt ended")
                        .contains("no connection to Redis at redis://127.0.0.1:" + blackhole.port()
                                + " within 500 ms: starting without it")
                        .doesNotContain("still connecting to Redis");
                URI admin = URI.create("http://127.0.0.1:" + ports[1]);
                assertThat(StoreIT.get(admin.resolve("/healthz")).statusCode()).isEqualTo(200);
                assertThat(StoreIT.get(admin.resolve("/readyz")).statusCode()).isEqualTo(503);

                child.signal("TERM");
                assertThat(child.waitFor(WAIT)).as(child.transcript()).isZero();
            }
        }
    }

    /** A setting no retry mends, like a refused password: exit 1, saying what to change. */
    @Test
    void aPlainRedisUriAtATlsPortStopsTheStartWithExit1() throws Exception {
        int[] ports = FreePorts.pick(2);
        try (TestCertificates certs = TestCertificates.create(); RedisServerFixture redis = RedisServerFixture.startTls(certs)) {
            String plain = redis.uri().replace("rediss://", "redis://");
            Path config = redisConfig(ports, plain);
            try (ChildProxy child = ChildProxy.start(dir, "run", "--config", config.toString())) {
                assertThat(child.waitFor(WAIT)).as(child.transcript()).isEqualTo(1);
                assertThat(child.transcript()).contains("cannot open the redis store at " + plain + ": cannot connect to Redis at "
                        + plain + ": the server at 127.0.0.1:" + redis.port() + " speaks TLS, not plain RESP: use a rediss:// URI");
            }
        }
    }

    private Path redisConfig(int[] ports, String uri) throws java.io.IOException {
        return Files.writeString(dir.resolve("idemproxy.yaml"), "listen: 127.0.0.1:" + ports[0] + "\n"
                + "admin: { listen: 127.0.0.1:" + ports[1] + " }\n"
                + "store:\n"
                + "  type: redis\n"
                + "  redis: { uri: \"" + uri + "\" }\n"
                + "routes:\n"
                + "  - name: orders\n"
                + "    match: { pathPrefix: /orders }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true }\n", UTF_8);
    }

    static HttpResponse<byte[]> order(int port, String key) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders/new")).timeout(WAIT)
                        .header("Idempotency-Key", key).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"A-1\"}")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }
}
