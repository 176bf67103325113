package dev.idemproxy.app.it;

import dev.idemproxy.core.testing.Await;

import static dev.idemproxy.core.testing.UpstreamAction.after;
import static dev.idemproxy.core.testing.UpstreamAction.delayHead;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RedisClusterFixture;
import dev.idemproxy.core.testing.RedisSentinelFixture;
import dev.idemproxy.core.testing.RedisServerFixture;
import dev.idemproxy.core.testing.ReplyDroppingRelay;
import dev.idemproxy.core.testing.TestUpstream;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proxy end to end on real stores: Redis standalone, cluster and Sentinel, two proxies sharing one
 * Redis, a Redis outage under {@code reject} and {@code passthrough}, and the per-task retry
 * budget shared across calls and proxies. Asserted on the wire: statuses, bytes, headers,
 * upstream hit counts, {@code /readyz} and {@code /metrics}.
 */
@ExtendWith(LeakDetection.class)
class StoreIT {
    static final Duration WAIT = Duration.ofSeconds(20);
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    static TestUpstream upstream;
    static RedisServerFixture redis;
    /** Two proxies on {@link #redis}, as two sidecars of one agent fleet would be. */
    static RunningProxy proxyA;
    static RunningProxy proxyB;

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        redis = RedisServerFixture.startStandalone();
        proxyA = RunningProxy.start(redisStore(redis.uri(), "standalone", "reject"), routes());
        proxyB = RunningProxy.start(redisStore(redis.uri(), "standalone", "reject"), routes());
    }

    @AfterAll
    static void stop() {
        closeQuietly(proxyA);
        closeQuietly(proxyB);
        if (redis != null) {
            redis.close();
        }
        if (upstream != null) {
            upstream.close();
        }
    }

    static void closeQuietly(RunningProxy p) {
        if (p != null) {
            p.close();
        }
    }

    static String redisStore(String uri, String mode, String onUnavailable) {
        return "store:\n"
                + "  type: redis\n"
                + "  redis: { uri: \"" + uri + "\", mode: " + mode + " }\n"
                + "  onUnavailable: " + onUnavailable + "\n";
    }

    /** tickets: recorded; flaky: tagged idempotent, 5 attempts; twice: tagged, 2 attempts. Task budget: 2 retries. */
    static String routes() {
        String fastBackoff = "    retry: { maxAttempts: %d, backoff: { initial: 10ms, max: 20ms, jitter: none } }\n";
        return "tasks: { header: X-Task-Id, budget: { maxRetries: 2, window: 1h } }\n"
                + "routes:\n"
                + "  - name: tickets\n"
                + "    match: { pathPrefix: /tickets }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    timeouts: { perTry: 5s, total: 10s }\n"
                + "    idempotency: { enabled: true, waitTimeout: 10s }\n"
                + "  - name: flaky\n"
                + "    match: { pathPrefix: /flaky }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    tags: [idempotent]\n"
                + "    timeouts: { perTry: 2s, total: 5s }\n"
                + String.format(fastBackoff, 5)
                + "  - name: twice\n"
                + "    match: { pathPrefix: /twice }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    tags: [idempotent]\n"
                + "    timeouts: { perTry: 2s, total: 5s }\n"
                + String.format(fastBackoff, 2)
                + "  - name: nowhere\n"
                + "    match: { pathPrefix: /nowhere }\n"
                + "    upstream: http://127.0.0.1:" + CLOSED_PORT + "\n"
                + String.format(fastBackoff, 2);
    }

    /** A loopback port nothing listens on: connecting fails at once. */
    static final int CLOSED_PORT = dev.idemproxy.core.testing.FreePorts.pick();

    int before;

    @BeforeEach
    void mark() {
        before = upstream.requestCount();
    }

    static HttpRequest.Builder post(RunningProxy proxy, String path, String body, String... headers) {
        return post(proxy.uri(path), body, headers);
    }

    static HttpRequest.Builder post(URI uri, String body, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(WAIT)
                .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json");
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return b;
    }

    static HttpResponse<byte[]> send(HttpRequest.Builder request) throws Exception {
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    static HttpResponse<byte[]> postKey(RunningProxy proxy, String key, String body) throws Exception {
        return send(post(proxy, "/tickets/new", body, "Idempotency-Key", key));
    }

    static void assertReplayOf(HttpResponse<byte[]> replay, HttpResponse<byte[]> original) {
        assertThat(replay.statusCode()).isEqualTo(original.statusCode());
        assertThat(replay.body()).isEqualTo(original.body());
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(replay.headers().firstValue("X-Call-Id")).isEqualTo(original.headers().firstValue("X-Call-Id"));
    }

    // ------------------------------------------------------------------ Redis standalone

    @Test
    void redisStandaloneReplaysSequentialDuplicatesByteForByte() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(respond(201, Map.of("Content-Type", "application/json", "X-Ticket", "T-7"), "{\"id\":\"T-7\"}"));
        HttpResponse<byte[]> first = postKey(proxyA, key, "{\"title\":\"printer\"}");
        assertThat(first.statusCode()).isEqualTo(201);
        for (int i = 0; i < 3; i++) {
            HttpResponse<byte[]> dup = postKey(proxyA, key, "{\"title\":\"printer\"}");
            assertReplayOf(dup, first);
            assertThat(dup.headers().firstValue("X-Ticket")).hasValue("T-7");
        }
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
    }

    /**
     * Eight agents with a 0.5 s client timeout keep retrying one key while the upstream takes 2 s:
     * the first call runs on after its client gave up, the others wait on it or get its replay.
     */
    @Test
    void timeoutStormOnOneKeyExecutesOnceAndEveryAnswerIsTheSame() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(delayHead(Duration.ofSeconds(2), respond(200, "{\"charged\":true}")));
        ExecutorService agents = Executors.newFixedThreadPool(8);
        try {
            List<CompletableFuture<HttpResponse<byte[]>>> answers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                answers.add(CompletableFuture.supplyAsync(() -> retryUntilAnswered(key), agents));
            }
            List<HttpResponse<byte[]>> got = new ArrayList<>();
            for (CompletableFuture<HttpResponse<byte[]>> a : answers) {
                got.add(a.get(30, TimeUnit.SECONDS));
            }
            assertThat(got).allSatisfy(r -> {
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(new String(r.body())).isEqualTo("{\"charged\":true}");
                assertThat(r.headers().firstValue("X-Call-Id")).isEqualTo(got.get(0).headers().firstValue("X-Call-Id"));
            });
        } finally {
            agents.shutdownNow();
        }
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
    }

    static HttpResponse<byte[]> retryUntilAnswered(String key) {
        long until = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < until) {
            try {
                return send(post(proxyA, "/tickets/charge", "{\"amount\":5}", "Idempotency-Key", key)
                        .timeout(Duration.ofMillis(500)));
            } catch (HttpTimeoutException gaveUp) {
                // the agent's own timeout: retry the same call
            } catch (IOException e) {
                if (!closedByOwnTimeout(e)) {
                    throw new IllegalStateException(e);  // the proxy closed the connection, or another failure
                }
                // the same timeout, reported by the JDK's client as the read error of its own close
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError("no answer within " + WAIT);
    }

    /**
     * The JDK's HTTP/1.1 client cancels a timed-out exchange by closing its connection, and now and
     * then the read side's error reaches the caller before the timeout does: an IOException "HTTP/1.1
     * header parser received no bytes" caused by "connection closed locally", thrown from the
     * client's own timer. A connection the proxy closed has no such cause.
     */
    static boolean closedByOwnTimeout(IOException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof IOException && "connection closed locally".equals(t.getMessage())) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ Redis cluster

    @Test
    void redisClusterReplaysDuplicatesAndExecutesOnce() throws Exception {
        try (RedisClusterFixture cluster = RedisClusterFixture.start();
                RunningProxy proxy = RunningProxy.start(redisStore(cluster.uri(), "cluster", "reject"), routes())) {
            List<HttpResponse<byte[]>> firsts = new ArrayList<>();
            for (int i = 0; i < 6; i++) {  // several keys, so several slots (and masters) take part
                upstream.enqueue(respond(201, "created " + i));
                String key = "cluster-" + i + "-" + UUID.randomUUID();
                HttpResponse<byte[]> first = postKey(proxy, key, "{\"n\":" + i + "}");
                assertThat(first.statusCode()).isEqualTo(201);
                assertReplayOf(postKey(proxy, key, "{\"n\":" + i + "}"), first);
                firsts.add(first);
            }
            assertThat(firsts).extracting(r -> new String(r.body())).doesNotHaveDuplicates();
            assertThat(upstream.requestCount()).isEqualTo(before + 6);
        }
    }

    // ------------------------------------------------------------------ Redis Sentinel

    @Test
    void redisSentinelReplaysDuplicatesAndExecutesOnce() throws Exception {
        try (RedisSentinelFixture sentinel = RedisSentinelFixture.start();
                RunningProxy proxy = RunningProxy.start(redisStore(sentinel.uri(), "sentinel", "reject"), routes())) {
            upstream.enqueue(respond(201, "created via sentinel"));
            String key = "sentinel-" + UUID.randomUUID();
            HttpResponse<byte[]> first = postKey(proxy, key, "{\"n\":1}");
            assertThat(first.statusCode()).isEqualTo(201);
            assertReplayOf(postKey(proxy, key, "{\"n\":1}"), first);
            assertThat(upstream.requestCount()).isEqualTo(before + 1);
        }
    }

    // ------------------------------------------------------------------ two proxies, one Redis

    @Test
    void aDuplicateOnTheOtherProxyIsReplayed() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(respond(201, "made by A"));
        HttpResponse<byte[]> first = postKey(proxyA, key, "{\"x\":1}");
        assertReplayOf(postKey(proxyB, key, "{\"x\":1}"), first);
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
    }

    /** B's duplicate arrives while A's call is in flight: B polls the store until A's outcome is there. */
    @Test
    void aDuplicateOnTheOtherProxyWaitsForTheCallInFlightThere() throws Exception {
        String key = UUID.randomUUID().toString();
        upstream.enqueue(delayHead(Duration.ofMillis(800), respond(201, "slow, made by A")));
        CompletableFuture<HttpResponse<byte[]>> first = client.sendAsync(
                post(proxyA, "/tickets/new", "{\"x\":2}", "Idempotency-Key", key).build(), HttpResponse.BodyHandlers.ofByteArray());
        upstream.awaitRequests(before + 1, WAIT);
        HttpResponse<byte[]> dup = postKey(proxyB, key, "{\"x\":2}");
        HttpResponse<byte[]> original = first.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(original.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertReplayOf(dup, original);
        assertThat(new String(dup.body())).isEqualTo("slow, made by A");
        assertThat(upstream.requestCount()).isEqualTo(before + 1);
    }

    /**
     * The same with two proxy processes (the jar, twice, each its own JVM) sharing {@link #redis},
     * and tries split across them: A's call is in flight when B gets its duplicate, which waits
     * for it; later tries on either are replays. One execution in all.
     */
    @Test
    void twoProxyProcessesOnOneRedisExecuteACallOnce(@TempDir Path dir) throws Exception {
        ProcessIT.Ports a = ProcessIT.Ports.pick();
        ProcessIT.Ports b = ProcessIT.Ports.pick();
        String store = redisStore(redis.uri(), "standalone", "reject");
        String tickets = "  - name: tickets\n"
                + "    match: { pathPrefix: /tickets }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true, waitTimeout: 10s }\n";
        Path dirA = Files.createDirectories(dir.resolve("a"));
        Path dirB = Files.createDirectories(dir.resolve("b"));
        try (ChildProxy childA = ChildProxy.start(dirA, "run", "--config",
                        ProcessIT.writeConfig(dirA, a, store, "", tickets).toString());
                ChildProxy childB = ChildProxy.start(dirB, "run", "--config",
                        ProcessIT.writeConfig(dirB, b, store, "", tickets).toString())) {
            childA.awaitLine("admin listening on");
            childB.awaitLine("admin listening on");
            awaitStatus(a.admin("/readyz"), 200);
            awaitStatus(b.admin("/readyz"), 200);
            String key = UUID.randomUUID().toString();
            Function<ProcessIT.Ports, HttpRequest.Builder> theCall =
                    via -> post(via.proxy("/tickets/new"), "{\"x\":3}", "Idempotency-Key", key);
            upstream.enqueue(delayHead(Duration.ofMillis(800), respond(201, "made once, by A")));
            CompletableFuture<HttpResponse<byte[]>> first = client.sendAsync(theCall.apply(a).build(), HttpResponse.BodyHandlers.ofByteArray());
            upstream.awaitRequests(before + 1, WAIT);

            HttpResponse<byte[]> waited = send(theCall.apply(b));
            HttpResponse<byte[]> original = first.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(original.statusCode()).isEqualTo(201);
            assertThat(original.headers().firstValue("Idempotent-Replayed")).isEmpty();
            assertReplayOf(waited, original);
            assertReplayOf(send(theCall.apply(a)), original);
            assertReplayOf(send(theCall.apply(b)), original);
            assertThat(upstream.requestCount()).as("one execution across both processes").isEqualTo(before + 1);
        }
    }

    // ------------------------------------------------------------------ Redis outage

    /**
     * Redis persists here (append-only file, written out when it stops), so a restart keeps the
     * records: the duplicate of a call completed before the outage is still replayed after it.
     * Without persistence a restart would forget every key, and that duplicate would execute again.
     */
    @Test
    void redisOutageRejectsWith503ForwardingNothingAndARestartRecoversWithTheRecords() throws Exception {
        try (RedisServerFixture durable = RedisServerFixture.startStandalone("--appendonly", "yes");
                RunningProxy proxy = RunningProxy.start(redisStore(durable.uri(), "standalone", "reject"), routes())) {
            String kept = UUID.randomUUID().toString();
            upstream.enqueue(respond(201, "before the outage"));
            HttpResponse<byte[]> first = postKey(proxy, kept, "{\"a\":1}");
            assertThat(first.statusCode()).isEqualTo(201);
            assertThat(get(proxy.admin("/readyz")).statusCode()).isEqualTo(200);

            durable.stop();
            String during = UUID.randomUUID().toString();
            HttpResponse<byte[]> rejected = postKey(proxy, during, "{\"a\":2}");
            assertThat(rejected.statusCode()).isEqualTo(503);
            assertThat(new String(rejected.body())).contains("urn:idemproxy:problem:store-unavailable");
            awaitStatus(proxy.admin("/readyz"), 503);
            assertThat(upstream.requestCount()).as("nothing forwarded during the outage").isEqualTo(before + 1);

            durable.start();
            awaitStatus(proxy.admin("/readyz"), 200);
            assertReplayOf(postKey(proxy, kept, "{\"a\":1}"), first);
            upstream.enqueue(respond(201, "after the outage"));
            assertThat(new String(postKey(proxy, during, "{\"a\":2}").body())).isEqualTo("after the outage");
            assertThat(upstream.requestCount()).isEqualTo(before + 2);
        }
    }

    /**
     * Redis restarts empty (no persistence) while a call is at the upstream: its claim is gone, but
     * the owner's outcome is written back when the call ends, so the duplicate afterwards is a
     * replay, not a second execution (before, the end found no record, wrote nothing, and the
     * duplicate ran again).
     */
    @Test
    void redisRestartedEmptyMidCallStillStoresTheOutcomeAndTheDuplicateIsReplayed() throws Exception {
        try (RedisServerFixture forgetful = RedisServerFixture.startStandalone();
                RunningProxy proxy = RunningProxy.start(redisStore(forgetful.uri(), "standalone", "reject"), routes())) {
            String key = UUID.randomUUID().toString();
            CompletableFuture<Void> restarted = new CompletableFuture<>();
            upstream.enqueue(after(restarted, respond(201, "made once")));
            CompletableFuture<HttpResponse<byte[]>> first = client.sendAsync(
                    post(proxy, "/tickets/new", "{\"r\":1}", "Idempotency-Key", key).build(), HttpResponse.BodyHandlers.ofByteArray());
            upstream.awaitRequests(before + 1, WAIT);

            forgetful.stop();
            forgetful.start();
            assertThat(forgetful.command("DBSIZE")).as("restarted empty").isEqualTo(":0");
            awaitStatus(proxy.admin("/readyz"), 200);
            restarted.complete(null);  // now the upstream answers

            HttpResponse<byte[]> original = first.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(original.statusCode()).isEqualTo(201);
            HttpResponse<byte[]> dup = postKey(proxy, key, "{\"r\":1}");
            assertReplayOf(dup, original);
            assertThat(new String(dup.body())).isEqualTo("made once");
            assertThat(upstream.requestCount()).as("executed once").isEqualTo(before + 1);
        }
    }

    @Test
    void redisOutageWithPassthroughForwardsTheCallUnprotectedAndCountsIt() throws Exception {
        try (RedisServerFixture flaky = RedisServerFixture.startStandalone();
                RunningProxy proxy = RunningProxy.start(redisStore(flaky.uri(), "standalone", "passthrough"), routes())) {
            flaky.stop();
            String key = UUID.randomUUID().toString();
            upstream.enqueue(respond(201, "unprotected"));
            HttpResponse<byte[]> r = postKey(proxy, key, "{\"p\":1}");
            assertThat(r.statusCode()).isEqualTo(201);
            assertThat(new String(r.body())).isEqualTo("unprotected");
            assertThat(upstream.requestCount()).isEqualTo(before + 1);
            assertThat(upstream.request(before).header("Idempotency-Key"))
                    .as("the client's key still reaches the upstream, which may dedupe by itself").isEqualTo(key);
            String metrics = get(proxy.admin("/metrics")).body();
            assertThat(metrics).contains("idemproxy_store_passthrough_total{route=\"tickets\"} 1.0");
        }
    }

    /**
     * Started while Redis is away, under {@code passthrough}: calls are forwarded unprotected and
     * counted until the store connects, then protected (RedisStartIT has the process and reject).
     */
    @Test
    void aProxyStartedBeforeRedisWithPassthroughForwardsUnprotectedUntilItConnects() throws Exception {
        try (RedisServerFixture late = RedisServerFixture.notStarted();
                RunningProxy proxy = RunningProxy.start(redisStore(late.uri(), "standalone", "passthrough"), routes())) {
            assertThat(get(proxy.admin("/healthz")).statusCode()).isEqualTo(200);
            assertThat(get(proxy.admin("/readyz")).statusCode()).isEqualTo(503);
            String key = UUID.randomUUID().toString();
            upstream.enqueue(respond(201, "unprotected"));
            HttpResponse<byte[]> unprotected = postKey(proxy, key, "{\"p\":2}");
            assertThat(unprotected.statusCode()).isEqualTo(201);
            assertThat(upstream.request(before).header("Idempotency-Key")).isEqualTo(key);
            assertThat(get(proxy.admin("/metrics")).body()).contains("idemproxy_store_passthrough_total{route=\"tickets\"} 1.0");

            late.start();
            awaitStatus(proxy.admin("/readyz"), 200);
            String protectedKey = UUID.randomUUID().toString();
            upstream.enqueue(respond(201, "protected"));
            HttpResponse<byte[]> first = postKey(proxy, protectedKey, "{\"p\":3}");
            assertReplayOf(postKey(proxy, protectedKey, "{\"p\":3}"), first);
            assertThat(upstream.requestCount()).isEqualTo(before + 2);
            assertThat(get(proxy.admin("/metrics")).body()).contains("idemproxy_store_passthrough_total{route=\"tickets\"} 1.0");
            // A call forwarded unprotected leaves no receipt (docs/operations.md): none was tried, so
            // none failed in the outage nor lands once the store is back.
            assertThat(get(proxy.admin("/metrics")).body()).contains("idemproxy_store_errors_total{op=\"receipt_put\"} 0.0");
            String unprotectedCall = unprotected.headers().firstValue("X-Call-Id").orElseThrow();
            assertThat(get(proxy.admin("/receipts/" + unprotectedCall)).statusCode()).isEqualTo(404);
        }
    }

    /**
     * Redis writes a claim but its answer is lost (a relay drops the reply and closes the
     * connection): the caller gets 503 with nothing forwarded, and once Redis answers again the
     * proxy releases that claim, so the caller's retry runs instead of waiting out the lease
     * (default 30 s, beyond the route's 10 s waitTimeout: without the release it would get 409).
     */
    @Test
    void aClaimWhoseAnswerWasLostIsReleasedSoTheRetryRuns() throws Exception {
        try (ReplyDroppingRelay relay = new ReplyDroppingRelay(redis.port());
                RunningProxy proxy = proxyThrough(relay)) {
            String key = UUID.randomUUID().toString();
            relay.dropNextReply();
            HttpResponse<byte[]> lost = postKey(proxy, key, "{\"lost\":1}");
            assertThat(lost.statusCode()).isEqualTo(503);
            assertThat(new String(lost.body())).contains("urn:idemproxy:problem:store-unavailable");
            assertThat(relay.dropped()).as("the claim's reply was the one dropped").isEqualTo(1);
            assertThat(upstream.requestCount()).as("nothing forwarded").isEqualTo(before);

            assertTheRetryRunsOnce(proxy, key, "{\"lost\":1}", "after the lost answer");
        }
    }

    /**
     * The same, but the client leaves while its claim is on the way (the reply is held, then
     * lost): the proxy, which has no one to answer, still releases the claim.
     */
    @Test
    void aLostClaimOfAClientThatLeftIsReleasedToo() throws Exception {
        try (ReplyDroppingRelay relay = new ReplyDroppingRelay(redis.port());
                RunningProxy proxy = proxyThrough(relay)) {
            String key = UUID.randomUUID().toString();
            relay.dropNextReplyAfter(1_000);
            String body = "{\"left\":1}";
            try (Socket agent = new Socket(proxy.uri("/").getHost(), proxy.uri("/").getPort())) {
                agent.getOutputStream().write(("POST /tickets/new HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                        + "Idempotency-Key: " + key + "\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
                        .getBytes(StandardCharsets.US_ASCII));
                agent.getOutputStream().flush();
                Await.until("the claim's reply held by the relay", () -> relay.holding() == 1);
            }  // the agent leaves
            Await.until("the held reply to be dropped", () -> relay.dropped() > 0);
            assertThat(relay.dropped()).as("the claim's reply was the one dropped").isEqualTo(1);

            assertTheRetryRunsOnce(proxy, key, body, "after the agent left");
        }
    }

    /** A proxy (onUnavailable: reject) whose Redis connections go through {@code relay}. */
    private RunningProxy proxyThrough(ReplyDroppingRelay relay) throws Exception {
        return RunningProxy.start(redisStore("redis://127.0.0.1:" + relay.port(), "standalone", "reject"), routes());
    }

    /** Once Redis answers again, the retry of the call whose claim was lost runs, and only it reaches the upstream. */
    private void assertTheRetryRunsOnce(RunningProxy proxy, String key, String body, String answer) throws Exception {
        awaitStatus(proxy.admin("/readyz"), 200);
        upstream.enqueue(respond(201, answer));
        // /readyz may still say 200 from before the store noticed the lost connection: a 503
        // store-unavailable forwarded nothing, and an agent retries it, as this one does.
        HttpResponse<byte[]> retry = Await.value("the retry answered by the upstream", WAIT, () -> postKey(proxy, key, body),
                r -> r.statusCode() != 503);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(new String(retry.body())).isEqualTo(answer);
        assertThat(upstream.requestCount()).as("the call ran once, on the retry").isEqualTo(before + 1);
    }

    // ------------------------------------------------------------------ task budget

    /**
     * One task, a budget of 2 retries, an upstream that only says 503 and a route allowing 5
     * attempts: the task's calls, on either proxy, make 2 retries in all.
     */
    @Test
    void aTaskSpendsItsRetryBudgetOnceAcrossCallsAndProxies() throws Exception {
        String task = "task-" + UUID.randomUUID();
        upstream.enqueue(respond(503, "busy"), respond(503, "busy"), respond(503, "busy"), respond(503, "busy"),
                respond(503, "busy"));
        HttpResponse<byte[]> a1 = send(post(proxyA, "/flaky/1", "{}", "X-Task-Id", task));
        HttpResponse<byte[]> b2 = send(post(proxyB, "/flaky/2", "{}", "X-Task-Id", task));
        HttpResponse<byte[]> a3 = send(post(proxyA, "/flaky/3", "{}", "X-Task-Id", task));
        assertThat(List.of(a1, b2, a3)).allSatisfy(r -> assertThat(r.statusCode()).isEqualTo(503));
        assertThat(List.of(a1, b2, a3)).extracting(r -> r.headers().firstValue("X-Attempts").orElseThrow())
                .containsExactly("3", "1", "1");
        assertThat(List.of(a1, b2, a3)).extracting(r -> r.headers().firstValue("X-Retry-Budget-Remaining").orElseThrow())
                .containsExactly("0", "0", "0");
        assertThat(upstream.requestCount() - before).as("3 calls + 2 retries").isEqualTo(5);
        assertThat(get(proxyA.admin("/metrics")).body())
                .containsPattern("idemproxy_retry_budget_exhausted_total\\{budget=\"task\",route=\"flaky\"} [1-9][0-9]*\\.0");
    }

    @Test
    void retryBudgetRemainingCountsDownAcrossProxies() throws Exception {
        String task = "task-" + UUID.randomUUID();
        upstream.enqueue(respond(200, "fine"), respond(503, "busy"), respond(503, "busy"), respond(503, "busy"),
                respond(503, "busy"), respond(503, "busy"));
        HttpResponse<byte[]> ok = send(post(proxyA, "/twice/0", "{}", "X-Task-Id", task));
        HttpResponse<byte[]> b1 = send(post(proxyB, "/twice/1", "{}", "X-Task-Id", task));
        HttpResponse<byte[]> a2 = send(post(proxyA, "/twice/2", "{}", "X-Task-Id", task));
        HttpResponse<byte[]> b3 = send(post(proxyB, "/twice/3", "{}", "X-Task-Id", task));
        assertThat(List.of(ok, b1, a2, b3)).extracting(HttpResponse::statusCode).containsExactly(200, 503, 503, 503);
        assertThat(List.of(ok, b1, a2, b3)).extracting(r -> r.headers().firstValue("X-Attempts").orElseThrow())
                .containsExactly("1", "2", "2", "1");
        assertThat(List.of(ok, b1, a2, b3)).extracting(r -> r.headers().firstValue("X-Retry-Budget-Remaining").orElseThrow())
                .containsExactly("2", "1", "0", "0");
        assertThat(upstream.requestCount() - before).isEqualTo(6);
    }

    @Test
    void theBudgetLeftIsOnProblemAnswersToAndNeverOnReplays() throws Exception {
        String task = "task-" + UUID.randomUUID();
        HttpResponse<byte[]> unreachable = send(post(proxyA, "/nowhere/x", "{}", "X-Task-Id", task));
        assertThat(unreachable.statusCode()).isEqualTo(502);
        assertThat(new String(unreachable.body())).contains("urn:idemproxy:problem:upstream-unreachable");
        assertThat(unreachable.headers().firstValue("X-Attempts")).hasValue("2");
        assertThat(unreachable.headers().firstValue("X-Retry-Budget-Remaining")).hasValue("1");

        String key = UUID.randomUUID().toString();
        upstream.enqueue(respond(201, "recorded"));
        HttpResponse<byte[]> first = send(post(proxyB, "/tickets/t", "{}", "X-Task-Id", task, "Idempotency-Key", key));
        assertThat(first.headers().firstValue("X-Retry-Budget-Remaining")).hasValue("1");
        HttpResponse<byte[]> replay = send(post(proxyA, "/tickets/t", "{}", "X-Task-Id", task, "Idempotency-Key", key));
        assertReplayOf(replay, first);
        assertThat(replay.headers().firstValue("X-Retry-Budget-Remaining")).isEmpty();
    }

    /**
     * Six calls of one task at once, three per proxy, all against 503s: every call reads a budget of
     * 2 and decides to retry, but only two can take a token; the others stop with the 503 they had.
     */
    @Test
    void racingCallsOfOneTaskNeverOverspendItsBudget() throws Exception {
        String task = "task-" + UUID.randomUUID();
        for (int i = 0; i < 8; i++) {
            upstream.enqueue(respond(503, "busy"));
        }
        List<CompletableFuture<HttpResponse<byte[]>>> calls = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            calls.add(client.sendAsync(post(i % 2 == 0 ? proxyA : proxyB, "/flaky/race-" + i, "{}", "X-Task-Id", task).build(),
                    HttpResponse.BodyHandlers.ofByteArray()));
        }
        int attempts = 0;
        for (CompletableFuture<HttpResponse<byte[]>> c : calls) {
            HttpResponse<byte[]> r = c.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(r.statusCode()).isEqualTo(503);
            attempts += Integer.parseInt(r.headers().firstValue("X-Attempts").orElseThrow());
        }
        assertThat(attempts).as("6 calls + 2 retries").isEqualTo(8);
        assertThat(upstream.requestCount() - before).isEqualTo(8);
    }

    // ------------------------------------------------------------------ helpers

    static HttpResponse<String> get(URI uri) throws Exception {
        return client.send(HttpRequest.newBuilder(uri).timeout(WAIT).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Polls {@code uri} until it answers {@code status}: /readyz follows the store's connection state. */
    static void awaitStatus(URI uri, int status) {
        Await.value(uri + " to answer " + status, WAIT, () -> get(uri).statusCode(), s -> s == status);
    }
}
