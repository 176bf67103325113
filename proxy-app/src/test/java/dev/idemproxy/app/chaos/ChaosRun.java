package dev.idemproxy.app.chaos;

import dev.idemproxy.core.testing.Await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One chaos scenario: {@code intents} simulated agents (at most {@code concurrency} at once) drive
 * their intents through the proxy replicas into a {@link ChaosUpstream}; once a share of them has
 * finished, an optional disruption runs (kill the proxy, restart Redis). Then the oracle:
 * <ol>
 *   <li>wait until the upstream has nothing pending, then re-send one duplicate of every intent
 *       (waiting on any call still in flight), and read the DLQ and receipts;</li>
 *   <li>zero duplicates: no intent executed more than once, ever;</li>
 *   <li>no completed record lost: every intent that had executed before the re-send is answered
 *       by a replay ({@code Idempotent-Replayed: true}) and does not execute again;</li>
 *   <li>every intent executed once, or is in the DLQ with a FAILED receipt, or its last answer
 *       said "not executed" (429, 502 unreachable, 503 store unavailable, connection refused);</li>
 *   <li>an agent that was ever told 2xx has its intent executed.</li>
 * </ol>
 */
public final class ChaosRun {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Violations printed with their whole history; the rest (a large run can have many) as one line each. */
    private static final int DESCRIBED = 20;

    /** Where the agents send requests, and where the admin API is. */
    public interface Target {
        int replicas();

        URI proxy(int replica);

        URI admin();
    }

    private final String scenario;
    private final long seed;
    private final int intents;
    private final int concurrency;
    private final boolean clientKey;
    private final Target target;
    private final ChaosUpstream upstream;
    private final ChaosAgent.Layers layers = ChaosAgent.Layers.standard();
    private final Duration verifyTimeout;
    private double disruptAt = 0.4;
    private Consumer<ChaosRun> disruption;
    private final AtomicLong carriedRetries = new AtomicLong();
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    public ChaosRun(String scenario, long seed, int intents, int concurrency, boolean clientKey, Target target,
            ChaosUpstream upstream, Duration verifyTimeout) {
        this.scenario = scenario;
        this.seed = seed;
        this.intents = intents;
        this.concurrency = concurrency;
        this.clientKey = clientKey;
        this.target = target;
        this.upstream = upstream;
        this.verifyTimeout = verifyTimeout;
    }

    /** Runs {@code action} on its own thread once {@code fraction} of the intents have finished. */
    public ChaosRun disruptAt(double fraction, Consumer<ChaosRun> action) {
        this.disruptAt = fraction;
        this.disruption = action;
        return this;
    }

    /** Adds the current proxy's retry counter to the report's (call before killing a proxy: its counters die with it). */
    public void carryMetrics() {
        carriedRetries.addAndGet(metric("idemproxy_retries_total"));
    }

    public ChaosReport run() throws Exception {
        long started = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(concurrency);
        Map<Integer, ChaosAgent.IntentLog> logs = new ConcurrentHashMap<>();
        AtomicInteger done = new AtomicInteger();
        int disruptAfter = (int) Math.max(1, intents * disruptAt);
        List<Future<?>> futures = new ArrayList<>();
        Thread[] disruptor = new Thread[1];
        Throwable[] disruptionFailure = new Throwable[1];
        ChaosAgent agent = new ChaosAgent(client, layers, x -> target.proxy(x % target.replicas()).resolve("/intents"),
                clientKey, seed);
        try {
            for (int i = 0; i < intents; i++) {
                int intent = i;
                futures.add(pool.submit(() -> {
                    logs.put(intent, agent.run(intent));
                    if (done.incrementAndGet() == disruptAfter && disruption != null) {
                        Thread t = new Thread(() -> {
                            try {
                                disruption.accept(this);
                            } catch (Throwable e) {
                                disruptionFailure[0] = e;
                            }
                        }, "chaos-disruption");
                        disruptor[0] = t;
                        t.start();
                    }
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
            if (disruptor[0] != null) {
                disruptor[0].join();
            }
            if (disruptionFailure[0] != null) {
                throw new IllegalStateException("the disruption failed", disruptionFailure[0]);
            }
            // Late answers still to come end within the upstream's lateness; calls the proxy still
            // runs are waited on by the re-sends below (onConcurrent: wait).
            try {
                Await.until("the upstream's late answers", verifyTimeout, () -> upstream.pending() == 0);
            } catch (AssertionError stillPending) {
                // verified below as they stand: a late answer still pending shows there
            }
            int[] before = new int[intents];
            for (int i = 0; i < intents; i++) {
                before[i] = upstream.executions(i);
            }
            Map<Integer, ChaosAgent.Seen> verify = new ConcurrentHashMap<>();
            List<Future<?>> checks = new ArrayList<>();
            for (int i = 0; i < intents; i++) {
                int intent = i;
                checks.add(pool.submit(() -> verify.put(intent, resend(intent))));
            }
            for (Future<?> f : checks) {
                f.get();
            }
            return judge(logs, before, verify, (System.nanoTime() - started) / 1_000_000);
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    private ChaosAgent.Seen resend(int intent) {
        HttpRequest.Builder b = HttpRequest.newBuilder(target.proxy(intent % target.replicas()).resolve("/intents"))
                .timeout(verifyTimeout).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(ChaosAgent.body(intent, clientKey ? "please do intent " + intent : "verify")));
        if (clientKey) {
            b.header("Idempotency-Key", "intent-" + intent);
        }
        long t0 = System.nanoTime();
        try {
            HttpResponse<byte[]> r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            return new ChaosAgent.Seen("verify", r.statusCode(), r.headers().firstValue("Idempotent-Replayed").isPresent(),
                    r.headers().firstValue("X-Call-Id").orElse(null), null, (System.nanoTime() - t0) / 1_000_000);
        } catch (Exception e) {
            return new ChaosAgent.Seen("verify", -1, false, null, e.toString(), (System.nanoTime() - t0) / 1_000_000);
        }
    }

    private ChaosReport judge(Map<Integer, ChaosAgent.IntentLog> logs, int[] before, Map<Integer, ChaosAgent.Seen> verify,
            long runMillis) throws Exception {
        Set<String> dlqBizIds = new HashSet<>();
        int dlqEntries = dlq(dlqBizIds);
        List<String> violations = new ArrayList<>();
        int executed = 0;
        int duplicates = 0;
        int inDlq = 0;
        int told = 0;
        int onVerify = 0;
        int verifyReplayed = 0;
        long agentRequests = 0;
        long replays = 0;
        long[] latencies = new long[intents];
        for (int i = 0; i < intents; i++) {
            ChaosAgent.IntentLog log = logs.get(i);
            ChaosAgent.Seen v = verify.get(i);
            agentRequests += log.seen().size();
            replays += log.replays();
            latencies[i] = log.millis();
            int after = upstream.executions(i);
            if (v.replayed()) {
                verifyReplayed++;
            }
            String problem = null;
            if (after > 1) {
                duplicates += after - 1;
                problem = "DUPLICATE: executed " + after + " times";
            } else if (before[i] == 1 && !v.replayed() && !ambiguousInDlq(i, log, dlqBizIds)) {
                problem = "LOST RECORD: executed before the re-send, whose answer was not a replay";
            } else if (log.sawSuccess() && after == 0) {
                problem = "PHANTOM: the agent was told 2xx but nothing executed";
            }
            if (after == 1) {
                executed++;
                if (before[i] == 0) {
                    onVerify++;
                }
            } else if (after == 0 && problem == null) {
                String bizId = "i-" + i;
                if (dlqBizIds.contains(bizId) && hasFailedReceipt(bizId)) {
                    inDlq++;
                } else if (toldNotExecuted(log.last()) || toldNotExecuted(v)) {
                    told++;
                } else {
                    problem = "UNACCOUNTED: not executed, not in the DLQ with a FAILED receipt, and the agent was not told";
                }
            }
            if (problem != null) {
                violations.add(violations.size() < DESCRIBED ? describe(i, problem, log, v)
                        : "intent i-" + i + ": " + problem + " (history not printed: only the first " + DESCRIBED + " are)");
            }
        }
        Arrays.sort(latencies);
        return new ChaosReport(scenario, seed, intents, agentRequests + intents, upstream.requests(), upstream.receiptChecks(),
                executed, duplicates, replays, carriedRetries.get() + metric("idemproxy_retries_total"), dlqEntries, inDlq, told,
                onVerify, verifyReplayed, percentile(latencies, 0.50), percentile(latencies, 0.99), runMillis, upstream.served(),
                violations);
    }

    /**
     * The call was cut mid-flight (say, its proxy was killed) before any agent was answered: its
     * outcome is unknown to the proxy, which is then bound to keep it in the DLQ with a FAILED
     * receipt and never run it again (docs/idempotency.md). That is not a lost record: no completed
     * record existed. It is one if any agent had been given a definite answer.
     */
    private boolean ambiguousInDlq(int intent, ChaosAgent.IntentLog log, Set<String> dlqBizIds) throws Exception {
        String bizId = "i-" + intent;
        boolean answered = log.seen().stream().anyMatch(ChaosAgent.Seen::definite);
        return !answered && dlqBizIds.contains(bizId) && hasFailedReceipt(bizId);
    }

    /** 429, 502 upstream-unreachable, 503 store-unavailable or a connection error: the proxy forwarded nothing that executed. */
    private static boolean toldNotExecuted(ChaosAgent.Seen s) {
        return s != null && (s.status() == 429 || s.status() == 502 || s.status() == 503 || (s.error() != null && s.error().startsWith("io")));
    }

    private String describe(int intent, String problem, ChaosAgent.IntentLog log, ChaosAgent.Seen verify) {
        StringBuilder sb = new StringBuilder("intent i-" + intent + " (seed " + seed + ", scenario " + scenario + "): " + problem);
        log.seen().forEach(s -> sb.append("\n    ").append(s));
        sb.append("\n    ").append(verify);
        upstream.history(intent).forEach(h -> sb.append("\n    ").append(h));
        try {
            sb.append("\n    receipts: ").append(get(target.admin().resolve("/receipts?bizId=i-" + intent)).body());
        } catch (Exception e) {
            sb.append("\n    receipts: unavailable (").append(e).append(')');
        }
        return sb.toString();
    }

    private int dlq(Set<String> bizIds) throws Exception {
        int n = 0;
        String cursor = null;
        do {
            String q = "/dlq?limit=500" + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
            JsonNode page = JSON.readTree(get(target.admin().resolve(q)).body());
            for (JsonNode e : page.path("entries")) {
                n++;
                if (e.hasNonNull("bizId")) {
                    bizIds.add(e.get("bizId").asText());
                }
            }
            JsonNode next = page.get("nextCursor");
            cursor = next == null || next.isNull() ? null : next.asText();
        } while (cursor != null);
        return n;
    }

    private boolean hasFailedReceipt(String bizId) throws Exception {
        JsonNode r = JSON.readTree(get(target.admin().resolve("/receipts?bizId=" + bizId + "&limit=500")).body());
        for (JsonNode receipt : r.path("receipts")) {
            if ("FAILED".equals(receipt.path("status").asText())) {
                return true;
            }
        }
        return false;
    }

    /** Sums every series of a Prometheus counter on the admin listener. */
    long metric(String name) {
        try {
            long sum = 0;
            for (String line : get(target.admin().resolve("/metrics")).body().split("\n")) {
                if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                    sum += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            return sum;
        } catch (Exception e) {
            return 0;
        }
    }

    private HttpResponse<String> get(URI uri) throws Exception {
        return client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    /** Summaries of what each fault did, for the failure message. */
    static Map<String, Integer> count(List<String> items) {
        Map<String, Integer> m = new HashMap<>();
        items.forEach(s -> m.merge(s, 1, Integer::sum));
        return m;
    }
}
