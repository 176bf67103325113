package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RedisServerFixture;
import dev.idemproxy.core.testing.TestUpstream;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code store.nearCache} end to end, on Redis: duplicates of an ended call are answered from the
 * proxy's own memory, shown by taking Redis away (a new key then gets 503, a duplicate still its
 * replay, a different payload still 422) and by {@code idemproxy_store_near_cache_total}.
 */
@ExtendWith(LeakDetection.class)
class NearCacheIT {
    static TestUpstream upstream;

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
    }

    @AfterAll
    static void stop() {
        if (upstream != null) {
            upstream.close();
        }
    }

    static String nearCachedRedis(String uri) {
        return "store:\n"
                + "  type: redis\n"
                + "  redis: { uri: \"" + uri + "\", mode: standalone }\n"
                + "  onUnavailable: reject\n"
                + "  nearCache: { enabled: true, maxEntries: 100, ttl: 1m }\n";
    }

    static String routes() {
        return "routes:\n"
                + "  - name: tickets\n"
                + "    match: { pathPrefix: /tickets }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    timeouts: { perTry: 5s, total: 10s }\n"
                + "    idempotency: { enabled: true }\n";
    }

    @Test
    void anEndedCallIsReplayedFromTheNearCacheWhileTheStoreIsDownAndADifferentPayloadStillGets422() throws Exception {
        try (RedisServerFixture redis = RedisServerFixture.startStandalone();
                RunningProxy proxy = RunningProxy.start(nearCachedRedis(redis.uri()), routes())) {
            int before = upstream.requestCount();
            String key = UUID.randomUUID().toString();
            upstream.enqueue(respond(201, Map.of("Content-Type", "application/json", "X-Ticket", "T-9"), "{\"id\":\"T-9\"}"));
            HttpResponse<byte[]> first = StoreIT.postKey(proxy, key, "{\"title\":\"printer\"}");
            assertThat(first.statusCode()).isEqualTo(201);

            redis.stop();
            HttpResponse<byte[]> fresh = StoreIT.postKey(proxy, UUID.randomUUID().toString(), "{\"title\":\"new\"}");
            assertThat(fresh.statusCode()).as("the store is really down").isEqualTo(503);

            HttpResponse<byte[]> replay = StoreIT.postKey(proxy, key, "{\"title\":\"printer\"}");
            StoreIT.assertReplayOf(replay, first);
            assertThat(replay.headers().firstValue("X-Ticket")).hasValue("T-9");
            assertThat(replay.headers().firstValue("X-Attempts")).isEqualTo(first.headers().firstValue("X-Attempts"));

            HttpResponse<byte[]> mismatch = StoreIT.postKey(proxy, key, "{\"title\":\"scanner\"}");
            assertThat(mismatch.statusCode()).isEqualTo(422);
            assertThat(new String(mismatch.body())).contains("urn:idemproxy:problem:key-reused-with-different-payload");
            assertThat(upstream.requestCount()).isEqualTo(before + 1);

            String metrics = StoreIT.get(proxy.admin("/metrics")).body();
            // The replay is one hit, the 422 two: its claim asks again with the fingerprint of earlier builds.
            assertThat(metrics).contains("idemproxy_store_near_cache_total{result=\"hit\"} 3.0");
            assertThat(metrics).contains("idemproxy_store_near_cache_total{result=\"miss\"} 2.0");
        }
    }
}
