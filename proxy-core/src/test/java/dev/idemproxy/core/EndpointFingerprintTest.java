package dev.idemproxy.core;

import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.call.CallId;
import dev.idemproxy.core.idempotency.Fingerprint;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.idempotency.RequestView;
import dev.idemproxy.core.idempotency.TestRequest;
import dev.idemproxy.core.idempotency.Scope;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.store.memory.MemoryStore;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.OneLoopProxy;
import dev.idemproxy.core.testing.TestUpstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * docs/security.md, "a record belongs to one endpoint": method and path are part of every fingerprint.
 * Records written before that (their fingerprint over the configured parts alone) are still found:
 * they are replayed to their duplicates as they were, for the rest of their ttl.
 */
@ExtendWith(LeakDetection.class)
class EndpointFingerprintTest {
    static final String BODY = "{\"title\":\"printer\"}";
    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    TestUpstream upstream;
    Stores store;
    ProxyServer proxy;
    IdempotencyPolicy policy;

    @BeforeEach
    void start() throws Exception {
        upstream = TestUpstream.start();
        store = MemoryStore.create(1000, Clock.systemUTC());
        IdempotencyPolicy posts = OneLoopProxy.protectPosts(Duration.ofHours(1));
        policy = new IdempotencyPolicy(true, java.util.Set.of("POST", "PUT"), posts.key(), posts.scope(), posts.fingerprint(),
                posts.ttl(), posts.lease(), posts.onConcurrent(), posts.waitTimeout(), posts.maxRequestBody(),
                posts.maxResponseBody());
        Route passThrough = Route.passThrough("tickets", new RouteMatch(null, "/tickets", java.util.Set.of()), upstream.uri());
        Route route = new Route(passThrough.name(), passThrough.match(), passThrough.upstream(), passThrough.tags(),
                passThrough.timeouts(), policy, passThrough.retry(), passThrough.ids(), null, passThrough.deadLetter(),
                passThrough.tls(), passThrough.pool());
        proxy = OneLoopProxy.start(route, store);
    }

    @AfterEach
    void stop() throws Exception {
        proxy.stop(Duration.ofSeconds(1));
        store.close();
        upstream.close();
    }

    @Test
    void theSameKeyOnAnotherPathOrMethodOfTheRouteIs422() throws Exception {
        upstream.enqueue(respond(201, "created"));
        assertThat(send("POST", "/tickets", "k-endpoint", BODY).statusCode()).isEqualTo(201);

        HttpResponse<String> otherPath = send("POST", "/tickets/other", "k-endpoint", BODY);
        HttpResponse<String> otherMethod = send("PUT", "/tickets", "k-endpoint", BODY);

        assertThat(otherPath.statusCode()).isEqualTo(422);
        assertThat(otherPath.body()).contains("urn:idemproxy:problem:key-reused-with-different-payload");
        assertThat(otherMethod.statusCode()).isEqualTo(422);
        assertThat(send("POST", "/tickets", "k-endpoint", BODY).headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(upstream.requestCount()).isEqualTo(1);
    }

    @Test
    void aRecordWrittenWithTheFingerprintOfEarlierBuildsIsStillReplayedToItsDuplicates() throws Exception {
        writeLegacyRecord("k-legacy", "/tickets", BODY, "written before the upgrade");

        HttpResponse<String> dup = send("POST", "/tickets", "k-legacy", BODY);
        HttpResponse<String> reordered = send("POST", "/tickets", "k-legacy", "{ \"title\" : \"printer\" }");
        HttpResponse<String> otherBody = send("POST", "/tickets", "k-legacy", "{\"title\":\"scanner\"}");

        assertThat(dup.statusCode()).isEqualTo(201);
        assertThat(dup.body()).isEqualTo("written before the upgrade");
        assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(reordered.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(otherBody.statusCode()).as("its payload still has to match").isEqualTo(422);
        // As it was when written: such a record's fingerprint knows no path, so it answers the route's other paths too.
        assertThat(send("POST", "/tickets/other", "k-legacy", BODY).body()).isEqualTo("written before the upgrade");
        assertThat(upstream.requestCount()).isZero();
    }

    /** A completed record as a build before this one stored it: fingerprint over {@code [body]} alone. */
    private void writeLegacyRecord(String key, String path, String body, String responseBody) throws Exception {
        RequestView view = TestRequest.post(path).withJson(body);
        RecordKey rk = new RecordKey("tickets", Scope.of(policy.scope(), view).hash(), "c:" + key);
        String legacy = Fingerprint.legacy(policy, false, view).value();
        assertThat(legacy).isNotEqualTo(Fingerprint.of(policy, false, view).value());
        java.util.Random random = new java.util.Random(1);
        String callId = CallId.next(java.time.Clock.systemUTC(), random);
        String owner = CallId.owner(callId, random);
        ClaimResult claimed = store.records().claim(rk, legacy, owner, Duration.ofSeconds(30), new ClaimContext(callId, Duration.ofHours(1)))
                .toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(claimed).isInstanceOf(ClaimResult.Claimed.class);
        StoredResponse response = new StoredResponse(201, List.of(new StoredHeader("Content-Length",
                Integer.toString(responseBody.length()))), responseBody.getBytes(StandardCharsets.UTF_8));
        assertThat(store.records().complete(rk, new OwnedClaim(owner, callId, legacy, Instant.now(), Duration.ofHours(1)), response, 1,
                Duration.ofHours(1)).toCompletableFuture().get(5, TimeUnit.SECONDS)).isTrue();
    }

    private HttpResponse<String> send(String method, String path, String key, String body) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.address().getPort() + path))
                .header("Idempotency-Key", key).header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
