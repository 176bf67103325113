package dev.idemproxy.app.demo;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.app.config.DurationParser;
import dev.idemproxy.app.config.InvalidConfigException;
import dev.idemproxy.app.config.YamlConfigLoader;
import dev.idemproxy.app.wiring.Assembly;
import dev.idemproxy.app.wiring.StartupException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Runs the demo twice with the same seed: the agent through idemproxy (embedded store in a temp
 * directory, deleted afterwards), then straight at a fresh copy of the flaky service.
 * Stateless; each {@link #run} starts and stops everything it uses.
 */
public final class Demo {
    /** How long to wait, after the agent is done, for calls the agent abandoned to end. */
    private static final Duration SETTLE = Duration.ofSeconds(10);

    /** Uncounted calls before each run: a fresh JVM is slow for its first few hundred milliseconds. */
    private static final int WARM_UP_CALLS = 48;

    private Demo() {}

    /** The result of both runs. */
    public record Outcome(DemoSettings settings, RunResult viaProxy, RunResult direct) {}

    public static Outcome run(DemoSettings settings) throws InterruptedException, StartupException, InvalidConfigException {
        requireNonNull(settings, "settings");
        RunResult via = viaProxy(settings);
        RunResult direct = direct(settings);
        return new Outcome(settings, via, direct);
    }

    static RunResult viaProxy(DemoSettings s) throws InterruptedException, StartupException, InvalidConfigException {
        Path dir = createTempDir();
        try (DemoUpstream upstream = DemoUpstream.start(new FaultPlan(s.seed()), s.lateBy())) {
            Path file = dir.resolve("idemproxy-demo.yaml");
            write(file, routeYaml(s, upstream.uri(), dir.resolve("data")));
            YamlConfigLoader loader = new YamlConfigLoader();
            Assembly proxy = Assembly.start(loader.load(file), null, loader);
            try {
                URI base = URI.create("http://127.0.0.1:" + proxy.proxyAddress().getPort());
                DemoAgent.warmUp(base, WARM_UP_CALLS, s.concurrency());
                DemoAgent.Tally tally = agent(s, base).run();
                awaitQuiet(upstream, proxy);
                long dlq = proxy.deadLetterCount().toCompletableFuture().get(5, TimeUnit.SECONDS);
                return result(true, s, upstream, tally, dlq);
            } catch (ExecutionException | TimeoutException e) {
                throw new IllegalStateException("cannot count the dead-letter queue: " + e, e);
            } finally {
                proxy.stop(Duration.ofSeconds(2));
            }
        } finally {
            deleteRecursively(dir);
        }
    }

    static RunResult direct(DemoSettings s) throws InterruptedException {
        try (DemoUpstream upstream = DemoUpstream.start(new FaultPlan(s.seed()), s.lateBy())) {
            DemoAgent.warmUp(upstream.uri(), WARM_UP_CALLS, s.concurrency());
            DemoAgent.Tally tally = agent(s, upstream.uri()).run();
            awaitQuiet(upstream, null);
            return result(false, s, upstream, tally, 0);
        }
    }

    /** The demo's config: one protected route for the tickets service, on the embedded store. */
    static String routeYaml(DemoSettings s, URI upstream, Path data) {
        Duration perTry = s.perTry();
        Duration total = perTry.multipliedBy(3).plusSeconds(2);
        return "# idemproxy demo: written and deleted by `idemproxy demo`\n"
                + "listen: 127.0.0.1:0\n"
                + "admin: { listen: 127.0.0.1:0 }\n"
                + "store:\n"
                + "  type: embedded\n"
                + "  embedded: { path: '" + data.toAbsolutePath().toString().replace("'", "''") + "' }\n"
                + "retryBudget: { ratio: 0.5, minPerSecond: 50, window: 10s }\n"
                + "routes:\n"
                + "  - name: tickets\n"
                + "    match: { pathPrefix: " + DemoUpstream.PATH + ", methods: [POST] }\n"
                + "    upstream: " + upstream + "\n"
                + "    # not tagged idempotent: the tickets service ignores Idempotency-Key\n"
                + "    timeouts: { connect: 1s, perTry: " + DurationParser.format(perTry) + ", total: "
                + DurationParser.format(total) + " }\n"
                + "    idempotency:\n"
                + "      enabled: true\n"
                + "      key: { derive: [method, path, 'body:/intentId'] }   # the agent sends no key\n"
                + "      onConcurrent: wait\n"
                + "      waitTimeout: " + DurationParser.format(total) + "\n"
                + "    retry:\n"
                + "      maxAttempts: 3\n"
                + "      retryOn: [connect-failure, read-timeout, reset, 429, 502, 503, 504]\n"
                + "      backoff: { initial: 50ms, max: 200ms, jitter: none }\n";
    }

    private static DemoAgent agent(DemoSettings s, URI base) {
        return new DemoAgent(base, s.intents(), s.agentTimeout(), s.retries(), s.concurrency());
    }

    /** Lets calls the agent gave up on finish, so every ticket they create is counted. */
    private static void awaitQuiet(DemoUpstream upstream, Assembly proxy) throws InterruptedException {
        long end = System.nanoTime() + SETTLE.toNanos();
        while (System.nanoTime() < end) {
            if (upstream.pending() == 0 && (proxy == null || proxy.inFlightCalls() == 0)) {
                return;
            }
            Thread.sleep(20);
        }
    }

    private static RunResult result(boolean proxied, DemoSettings s, DemoUpstream upstream, DemoAgent.Tally tally, long dlq) {
        int executions = 0;
        int executed = 0;
        Map<Integer, List<String>> histories = upstream.histories();
        Map<Integer, List<String>> duplicated = new TreeMap<>();
        for (int intent = 1; intent <= s.intents(); intent++) {
            int n = upstream.executions(intent);
            executions += n;
            if (n > 0) {
                executed++;
            }
            if (n > 1) {
                duplicated.put(intent, histories.getOrDefault(intent, List.of()));
            }
        }
        return new RunResult(proxied, s.intents(), tally.requestsSent(), executions, executed, executions - executed,
                tally.ticketsConfirmed(), tally.replays(), upstream.proxyRetries(), dlq, upstream.faultsServed(), tally.answers(), duplicated);
    }

    private static Path createTempDir() {
        try {
            return Files.createTempDirectory("idemproxy-demo");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temp directory for the demo's store", e);
        }
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // A leftover temp directory is harmless; the OS cleans it up.
        }
    }
}
