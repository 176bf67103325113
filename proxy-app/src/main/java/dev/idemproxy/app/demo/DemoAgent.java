package dev.idemproxy.app.demo;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scripted agent: for each intent, one "create ticket" tool call, {@code POST /tickets} with
 * {@code {"intentId": …, "title": …}}, made the way agent SDKs make it: a short request timeout,
 * then retries of the same request (up to {@code retries} more, backoff 100 ms doubling, or the
 * server's {@code Retry-After} when longer) on a timeout, a dropped connection, 429 or 5xx.
 * It never sends an {@code Idempotency-Key}: agents don't. Intents run a few at a time.
 * This class is immutable; {@link #run()} may be called from any thread.
 */
public final class DemoAgent {
    static final Duration FIRST_BACKOFF = Duration.ofMillis(100);

    private final URI tickets;
    private final int intents;
    private final Duration timeout;
    private final int retries;
    private final int concurrency;

    /**
     * @param base        where the agent sends its tool calls (the proxy, or the service directly)
     * @param timeout     how long the agent waits for each response
     * @param retries     retries after the first try
     * @param concurrency intents in flight at once
     */
    public DemoAgent(URI base, int intents, Duration timeout, int retries, int concurrency) {
        this.tickets = requireNonNull(base, "base").resolve(DemoUpstream.PATH);
        this.intents = intents;
        this.timeout = requireNonNull(timeout, "timeout");
        this.retries = retries;
        this.concurrency = concurrency;
    }

    /** What the agent did and saw. */
    public record Tally(int requestsSent, int replays, int ticketsConfirmed, Map<String, Integer> answers) {
        public Tally {
            answers = Map.copyOf(answers);
        }
    }

    /** Runs every intent to its end (a 2xx, a final error, or retries used up). */
    public Tally run() throws InterruptedException {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).build();
        AtomicInteger sent = new AtomicInteger();
        AtomicInteger replays = new AtomicInteger();
        AtomicInteger confirmed = new AtomicInteger();
        Map<String, Integer> answers = new ConcurrentSkipListMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(concurrency, r -> {
            Thread t = new Thread(r, "demo-agent");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 1; i <= intents; i++) {
                int intent = i;
                done.add(pool.submit(() -> {
                    toolCall(client, intent, sent, replays, confirmed, answers);
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("the demo agent failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
        return new Tally(sent.get(), replays.get(), confirmed.get(), answers);
    }

    /**
     * Sends {@code calls} warm-up calls ({@code intentId} {@code warm-up-N}, which the demo upstream
     * answers without counting) with a generous timeout, so that class loading and JIT in a fresh
     * JVM do not pass for slowness of the proxy under the agent's short timeout. Failures are ignored.
     */
    public static void warmUp(URI base, int calls, int concurrency) throws InterruptedException {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        URI tickets = base.resolve(DemoUpstream.PATH);
        ExecutorService pool = Executors.newFixedThreadPool(concurrency, r -> {
            Thread t = new Thread(r, "demo-warm-up");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 1; i <= calls; i++) {
                String json = "{\"intentId\":\"warm-up-" + i + "\",\"title\":\"warm-up\"}";
                done.add(pool.submit(() -> client.send(HttpRequest.newBuilder(tickets).timeout(Duration.ofSeconds(10))
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                        HttpResponse.BodyHandlers.discarding())));
            }
            for (Future<?> f : done) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    // A warm-up call that fails changes nothing in the counts.
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    static String body(int intent) {
        return "{\"intentId\":\"intent-" + intent + "\",\"title\":\"Printer on floor " + (intent % 7 + 1)
                + " is out of toner (report " + intent + ")\"}";
    }

    private void toolCall(HttpClient client, int intent, AtomicInteger sent, AtomicInteger replays, AtomicInteger confirmed,
            Map<String, Integer> answers) throws InterruptedException {
        Duration backoff = FIRST_BACKOFF;
        for (int attempt = 0; attempt <= retries; attempt++) {
            if (attempt > 0) {
                Thread.sleep(backoff.toMillis());
                backoff = backoff.multipliedBy(2);
            }
            // Rebuilt on every try, as SDKs regenerate the request: same body, and no Idempotency-Key.
            HttpRequest req = HttpRequest.newBuilder(tickets).timeout(timeout)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body(intent))).build();
            sent.incrementAndGet();
            HttpResponse<String> r;
            try {
                r = client.send(req, HttpResponse.BodyHandlers.ofString());
            } catch (java.net.http.HttpTimeoutException e) {
                answers.merge("timeout", 1, Integer::sum);
                continue;
            } catch (IOException e) {
                answers.merge("connection error", 1, Integer::sum);
                continue;
            }
            boolean replayed = r.headers().firstValue("Idempotent-Replayed").map("true"::equalsIgnoreCase).orElse(false);
            if (replayed) {
                replays.incrementAndGet();
            }
            int status = r.statusCode();
            answers.merge(status + (replayed ? " (replayed)" : ""), 1, Integer::sum);
            if (status >= 200 && status < 300) {
                confirmed.incrementAndGet();
                return;
            }
            if (status != 429 && status < 500) {
                return;
            }
            Duration retryAfter = r.headers().firstValue("Retry-After").flatMap(DemoAgent::seconds).orElse(Duration.ZERO);
            if (retryAfter.compareTo(backoff) > 0) {
                backoff = retryAfter;
            }
        }
    }

    private static java.util.Optional<Duration> seconds(String v) {
        try {
            return java.util.Optional.of(Duration.ofSeconds(Long.parseLong(v.trim())));
        } catch (NumberFormatException e) {
            return java.util.Optional.empty();
        }
    }
}
