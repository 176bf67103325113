package dev.idemproxy.app.chaos;

import dev.idemproxy.core.testing.Await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

/**
 * One simulated agent working one business intent through three nested retry layers, each with
 * its own timeout: the agent loop (3 tries, a short backoff), an SDK (2 tries within its own
 * time limit) and an HTTP client (2 tries, each with a request timeout shorter than some of the
 * proxy's work). Up to 12 requests per intent. It stops at the first 2xx or definite 4xx; it
 * retries timeouts, connection errors, 5xx, 408, 409 and 429. Not thread-safe: one per intent.
 */
public final class ChaosAgent {
    /** The layers' limits. */
    public record Layers(int agentTries, int sdkTries, int httpTries, Duration httpTimeout, Duration sdkTimeout,
            Duration agentBackoff) {
        public static Layers standard() {
            return new Layers(3, 2, 2, Duration.ofMillis(450), Duration.ofMillis(900), Duration.ofMillis(150));
        }
    }

    /** What one request of the intent met. */
    public record Seen(String layer, int status, boolean replayed, String callId, String error, long millis) {
        boolean success() {
            return status >= 200 && status < 300;
        }

        boolean definite() {
            return success() || (status >= 400 && status < 500 && status != 408 && status != 409 && status != 425
                    && status != 429);
        }

        @Override
        public String toString() {
            return "agent " + layer + ": " + (error != null ? error : status + (replayed ? " replayed" : "")
                    + (callId == null ? "" : " call=" + callId)) + " (" + millis + " ms)";
        }
    }

    /** Everything the agent saw for one intent, and how long the intent took end to end. */
    public record IntentLog(int intent, List<Seen> seen, long millis) {
        Seen last() {
            return seen.isEmpty() ? null : seen.get(seen.size() - 1);
        }

        boolean sawSuccess() {
            return seen.stream().anyMatch(Seen::success);
        }

        long replays() {
            return seen.stream().filter(Seen::replayed).count();
        }
    }

    private final HttpClient client;
    private final Layers layers;
    private final IntFunction<URI> target;
    private final boolean clientKey;
    private final long seed;

    /**
     * @param target    for a random number drawn from the intent's seeded random, the proxy URI to send a request to
     * @param clientKey true: the agent sends a stable {@code Idempotency-Key} per intent and an
     *                  identical body; false: no key (the proxy derives one from {@code intentId})
     *                  and a free-text field reworded on every try, as an LLM would
     */
    public ChaosAgent(HttpClient client, Layers layers, IntFunction<URI> target, boolean clientKey, long seed) {
        this.client = client;
        this.layers = layers;
        this.target = target;
        this.clientKey = clientKey;
        this.seed = seed;
    }

    public IntentLog run(int intent) {
        long start = System.nanoTime();
        List<Seen> seen = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(seed ^ (intent * 0x9E3779B97F4A7C15L));
        outer:
        for (int a = 1; a <= layers.agentTries(); a++) {
            for (int s = 1; s <= layers.sdkTries(); s++) {
                long sdkStart = System.nanoTime();
                for (int h = 1; h <= layers.httpTries(); h++) {
                    Seen r = send(intent, layerName(a, s, h), seen.size(), random);
                    seen.add(r);
                    if (r.definite()) {
                        break outer;
                    }
                    if (System.nanoTime() - sdkStart > layers.sdkTimeout().toNanos()) {
                        break;  // the SDK's own time limit: its next try, not the HTTP client's
                    }
                }
            }
            if (a < layers.agentTries()) {
                pause(layers.agentBackoff().toMillis() * a + random.nextInt(20));
            }
        }
        return new IntentLog(intent, List.copyOf(seen), (System.nanoTime() - start) / 1_000_000);
    }

    private static final String[] LAYER_NAMES = new String[1000];

    /** "agent.sdk.http" try numbers, shared strings (a large run keeps millions of them). */
    private static String layerName(int a, int s, int h) {
        if (a > 9 || s > 9 || h > 9) {
            return a + "." + s + "." + h;
        }
        int i = a * 100 + s * 10 + h;
        String n = LAYER_NAMES[i];
        if (n == null) {
            n = a + "." + s + "." + h;
            LAYER_NAMES[i] = n;
        }
        return n;
    }

    /** The request body; in derived-key mode the free text changes with every try. */
    static String body(int intent, String note) {
        return "{\"intentId\":\"i-" + intent + "\",\"amount\":" + (intent % 97 + 1) + ",\"note\":\"" + note + "\"}";
    }

    private Seen send(int intent, String layer, int n, SplittableRandom random) {
        String note = clientKey ? "please do intent " + intent : "try " + layer + " wording " + random.nextInt(1000);
        HttpRequest.Builder b = HttpRequest.newBuilder(target.apply(random.nextInt(1 << 20))).timeout(layers.httpTimeout())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body(intent, note)));
        if (clientKey) {
            b.header("Idempotency-Key", "intent-" + intent);
        }
        long t0 = System.nanoTime();
        try {
            HttpResponse<byte[]> r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            return new Seen(layer, r.statusCode(), r.headers().firstValue("Idempotent-Replayed").isPresent(),
                    r.headers().firstValue("X-Call-Id").orElse(null), null, (System.nanoTime() - t0) / 1_000_000);
        } catch (HttpTimeoutException e) {
            return new Seen(layer, -1, false, null, "timeout", (System.nanoTime() - t0) / 1_000_000);
        } catch (IOException e) {
            return new Seen(layer, -1, false, null, "io: " + e.getClass().getSimpleName(), (System.nanoTime() - t0) / 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Seen(layer, -1, false, null, "interrupted", 0);
        }
    }

    private static void pause(long millis) {
        Await.realTime(java.time.Duration.ofMillis(millis));  // the agent's own backoff between its tries: simulated behaviour
    }
}
