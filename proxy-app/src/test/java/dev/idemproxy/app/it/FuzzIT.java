package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.echo;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RawHttp;
import dev.idemproxy.core.testing.RecordedRequest;
import dev.idemproxy.core.testing.TestUpstream;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * A fuzzed HTTP front. Throws the hand-written corpus ({@code fuzz/corpus/*.http}) and then
 * generated mutations of valid requests ({@link FuzzMutator}) at the real proxy, on a
 * pass-through route and on a protected (idempotent, memory store) route, each on a fresh raw
 * connection, from several threads, for a bounded time. The oracle, per exchange: an answer or a
 * close within the read timeout (never a hang); every response has a parseable status line; a
 * request {@link ReferenceHttp} calls invalid or incomplete never gets a 2xx; a 2xx echoes exactly
 * the method, target and body the reference parsed. After the run: the upstream never received a
 * smuggling marker nor a request the reference rejects, the proxy serves normally, drains with no
 * call stuck in flight, logged no unexpected warning, and (paranoid leak detection) leaked no buffer.
 *
 * <p>CI runs it for {@code fuzz.seconds} (default 30) of mutations. Longer, reproducibly:
 * {@code -Dfuzz.seconds=600 -Dfuzz.seed=42 -Dfuzz.threads=8}.
 */
@ExtendWith(LeakDetection.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FuzzIT {
    static final long SECONDS = Long.getLong("fuzz.seconds", 30);
    /** Fixed by default, so a CI run is repeatable; pass -Dfuzz.seed=N to explore others. */
    static final long SEED = Long.getLong("fuzz.seed", 20261129L);
    static final int THREADS = Integer.getInteger("fuzz.threads", 8);
    /** Well above the front's timeouts and the route idle timeout (2 s each): silence this long is a hang. */
    static final Duration READ_TIMEOUT = Duration.ofSeconds(8);
    static final String PASS = "/pass/";
    static final String PROT = "/prot/";
    /** The case a forwarded path belongs to, tolerating a mutated byte or two around the id. */
    private static final Pattern CASE_PATH = Pattern.compile("^/?(pass|prot)\\W{0,2}(?:smuggled-)?(c?)[^0-9]{0,2}?([0-9]+)");
    private static final Pattern BODY_MARKER = Pattern.compile("/(pass|prot)/smuggled-([cf][0-9]+)");

    static TestUpstream upstream;
    static RunningProxy proxy;
    static final LogCapture LOGS = new LogCapture();

    static final Queue<String> violations = new ConcurrentLinkedQueue<>();
    static final Map<String, ReferenceHttp.Parse> parses = new ConcurrentHashMap<>();
    /** The first bytes of every case, to show in findings about what the upstream saw. */
    static final Map<String, String> shown = new ConcurrentHashMap<>();
    static final Set<String> mustReject = ConcurrentHashMap.newKeySet();
    static final Set<String> cleanTargets = ConcurrentHashMap.newKeySet();
    static final Map<String, LongAdder> counters = new ConcurrentHashMap<>();
    static final AtomicInteger fuzzCases = new AtomicInteger();
    static long fuzzMillis;

    @BeforeAll
    static void start() throws Exception {
        LOGS.install();
        upstream = TestUpstream.start();
        upstream.defaultAction(echo());
        String timeouts = "    timeouts: { idle: 2s, perTry: 5s, total: 10s }\n";
        proxy = RunningProxy.start(""
                + "limits: { idleTimeout: 2s, headTimeout: 2s, bodyTimeout: 2s }\n"
                + "routes:\n"
                + "  - name: pass\n"
                + "    match: { pathPrefix: /pass }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + timeouts
                + "  - name: prot\n"
                + "    match: { pathPrefix: /prot }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + timeouts
                + "    idempotency: { enabled: true, maxRequestBody: 64KiB }\n");
    }

    @AfterAll
    static void stop() {
        List<String> problems = new ArrayList<>();
        try {
            boolean drained = proxy.assembly.stop(Duration.ofSeconds(10));
            if (!drained) {
                problems.add("the proxy did not drain: a call stayed in flight after the fuzz");
            }
            checkEverythingTheUpstreamSaw();
            problems.addAll(violations);
            List<String> warnings = LOGS.finish();
            for (String w : warnings) {
                problems.add("proxy logged: " + w);
            }
            printSummary(warnings.size());
        } finally {
            upstream.close();
            proxy.deleteFiles();
        }
        assertThat(problems).as("fuzz findings after the run (seed %d)", SEED).isEmpty();
    }

    // ------------------------------------------------------------------ tests

    @Test
    @Order(1)
    void corpusOnBothRoutes() throws Exception {
        List<FuzzCorpus.Entry> entries = FuzzCorpus.load();
        assertThat(entries).hasSizeGreaterThanOrEqualTo(30);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < entries.size(); i++) {
                FuzzCorpus.Entry e = entries.get(i);
                String id = String.format(Locale.ROOT, "c%02d", i);
                for (String route : List.of(PASS, PROT)) {
                    done.add(pool.submit(() -> {
                        runCorpusEntry(e, route, id);
                        return null;
                    }));
                }
            }
            for (Future<?> f : done) {
                f.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertNoViolations();
    }

    @Test
    @Order(2)
    void generatedMutationsOnBothRoutes() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
        long started = System.nanoTime();
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                workers.add(pool.submit(() -> {
                    while (System.nanoTime() < deadline) {
                        int id = next.incrementAndGet();
                        FuzzMutator.Case c = new FuzzMutator(new Random(SEED * 1_000_003L + id))
                                .next(id, id % 2 == 0 ? PASS : PROT);
                        runFuzzCase(c);
                    }
                    return null;
                }));
            }
            for (Future<?> f : workers) {
                f.get(SECONDS + 120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        fuzzMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        fuzzCases.set(next.get());
        assertNoViolations();
    }

    @Test
    @Order(3)
    void servesNormallyAfterwards() throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        for (String route : List.of(PASS, PROT)) {
            HttpResponse<String> get = client.send(HttpRequest.newBuilder(proxy.uri(route + "after-get"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(get.statusCode()).isEqualTo(200);
            assertThat(get.headers().firstValue("X-Echo-Uri")).hasValue(route + "after-get");
            HttpResponse<String> post = client.send(HttpRequest.newBuilder(proxy.uri(route + "after-post"))
                    .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString("still fine"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(post.statusCode()).isEqualTo(200);
            assertThat(post.body()).isEqualTo("still fine");
        }
        // A pipelined pair on one raw connection still comes back in order.
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port(), READ_TIMEOUT)) {
            raw.write("GET /pass/after-1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /prot/after-2 HTTP/1.1\r\nHost: a\r\n"
                    + "Content-Length: 2\r\n\r\nok");
            assertThat(raw.readResponse().header("X-Echo-Uri")).isEqualTo("/pass/after-1");
            RawHttp.Response second = raw.readResponse();
            assertThat(second.header("X-Echo-Uri")).isEqualTo("/prot/after-2");
            assertThat(second.bodyAsString()).isEqualTo("ok");
        }
    }

    // ------------------------------------------------------------------ one exchange

    /** What came back for one case. */
    record Outcome(List<RawHttp.Response> responses, String end, boolean writeFailed) {
    }

    static void runCorpusEntry(FuzzCorpus.Entry e, String route, String id) {
        String key = route + id;
        String label = "corpus " + e.name() + " on " + route;
        byte[] bytes = e.bytes(route, id);
        ReferenceHttp.Parse parse = ReferenceHttp.parse(bytes);
        parses.put(key, parse);
        shown.put(key, show(bytes));
        if (e.expect() == FuzzCorpus.Expect.MUST_REJECT) {
            mustReject.add(key);
            if (parse.verdict() == ReferenceHttp.Verdict.CLEAN) {
                violations.add(label + ": corpus says MUST_REJECT but the reference parser accepts it");
            }
        }
        count("corpus." + e.expect());
        Outcome o = exchange(label, bytes, new int[0], 0, e.shutdown(), parse, e.close());
        check(label, bytes, parse, o);
        RawHttp.Response first = o.responses().isEmpty() ? null : o.responses().get(0);
        if (e.expect() == FuzzCorpus.Expect.MUST_REJECT) {
            if (first == null) {
                if (!e.closeOk()) {
                    violations.add(label + ": no response (" + o.end() + "), expected a 4xx");
                }
            } else if (first.status() < 400 || first.status() >= 500) {
                violations.add(label + ": answered " + first.status() + ", expected a 4xx");
            }
        }
        if (e.status() != null && (first == null || first.status() != e.status())) {
            violations.add(label + ": answered " + (first == null ? o.end() : first.status()) + ", expected " + e.status());
        }
        if (e.close() && first != null && !"closed".equals(o.end()) && !"reset".equals(o.end())) {
            violations.add(label + ": the connection stayed open after the rejection");
        }
    }

    static void runFuzzCase(FuzzMutator.Case c) {
        String key = c.route() + "f" + c.id();
        ReferenceHttp.Parse parse = ReferenceHttp.parse(c.bytes());
        parses.put(key, parse);
        shown.put(key, show(c.bytes()));
        for (FuzzMutator.Category cat : c.categories()) {
            count("mutation." + cat);
        }
        count("verdict." + parse.verdict());
        count("verdict.softLenientRequests", parse.requests().stream().filter(r -> r.lenient() != null).count());
        Outcome o = exchange(c.describe(), c.bytes(), c.splits(), c.pauseMillis(), false, parse, false);
        check(c.describe(), c.bytes(), parse, o);
    }

    static Outcome exchange(String label, byte[] bytes, int[] splits, int pauseMillis, boolean shutdown,
            ReferenceHttp.Parse parse, boolean awaitClose) {
        int expected = parse.requests().size() + (parse.verdict() == ReferenceHttp.Verdict.CLEAN ? 0 : 1);
        List<RawHttp.Response> responses = new ArrayList<>();
        boolean writeFailed = false;
        String end = "open";
        count("requests.sent", expected);
        try (RawHttp raw = RawHttp.connect("127.0.0.1", proxy.port(), READ_TIMEOUT)) {
            try {
                int off = 0;
                for (int cut : splits) {
                    raw.write(Arrays.copyOfRange(bytes, off, cut));
                    off = cut;
                    if (pauseMillis > 0) {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pauseMillis));
                    }
                }
                raw.write(Arrays.copyOfRange(bytes, off, bytes.length));
                if (shutdown) {
                    raw.shutdownOutput();
                }
            } catch (IOException e) {
                writeFailed = true; // the proxy closed early (say after a 431); what it answered is still readable
                count("exchange.writeFailed");
            }
            try {
                while (responses.size() < expected) {
                    responses.add(raw.readResponse());
                }
                if (awaitClose) {
                    RawHttp.PeerClose pc = raw.awaitPeerClose(Duration.ofSeconds(5));
                    end = pc == RawHttp.PeerClose.OPEN ? "open" : pc.name().toLowerCase(Locale.ROOT);
                }
            } catch (SocketTimeoutException e) {
                end = "timeout";
            } catch (EOFException e) {
                end = "closed";
            } catch (SocketException e) {
                end = "reset";
            } catch (IOException | RuntimeException e) {
                end = "unparseable";
                violations.add(label + ": unparseable response: " + e + "\n    request: " + show(bytes));
            }
        } catch (IOException e) {
            violations.add(label + ": cannot connect: " + e);
        }
        for (RawHttp.Response r : responses) {
            count("responses." + r.status() / 100 + "xx");
        }
        if (responses.size() < expected && !"timeout".equals(end)) {
            count("exchange.closedWithoutResponse");
        }
        return new Outcome(responses, end, writeFailed);
    }

    /** The per-exchange oracle. */
    static void check(String label, byte[] bytes, ReferenceHttp.Parse parse, Outcome o) {
        if ("timeout".equals(o.end())) {
            violations.add(label + ": HANG: neither an answer nor a close within " + READ_TIMEOUT.toSeconds() + " s after "
                    + o.responses().size() + " response(s); reference: " + parse.verdict() + " " + parse.reason()
                    + "\n    request: " + show(bytes));
        }
        for (ReferenceHttp.Request r : parse.requests()) {
            cleanTargets.add(r.originTarget());
        }
        for (int i = 0; i < o.responses().size(); i++) {
            RawHttp.Response resp = o.responses().get(i);
            boolean ok = resp.status() >= 200 && resp.status() < 300;
            if (i < parse.requests().size()) {
                ReferenceHttp.Request req = parse.requests().get(i);
                if (ok && !(req.method().equals(resp.header("X-Echo-Method")) && req.originTarget().equals(resp.header("X-Echo-Uri"))
                        && Arrays.equals(req.body(), resp.body()))) {
                    violations.add(label + ": DESYNC: response " + i + " is " + resp.status() + " for "
                            + resp.header("X-Echo-Method") + " " + resp.header("X-Echo-Uri") + " with body "
                            + show(resp.body()) + " but the reference parsed " + req.method() + " " + req.target()
                            + " with body " + show(req.body()) + "\n    request: " + show(bytes));
                }
            } else if (ok && parse.verdict() != ReferenceHttp.Verdict.LENIENT) {
                violations.add(label + ": 2xx (" + resp.status() + " " + resp.header("X-Echo-Uri") + ") for a request the reference"
                        + " calls " + parse.verdict() + ": " + parse.reason() + "\n    request: " + show(bytes));
            }
        }
        boolean lenientBefore = parse.requests().stream().limit(o.responses().size() + 1L).anyMatch(r -> r.lenient() != null);
        if (o.responses().size() < parse.requests().size() && !"timeout".equals(o.end()) && !"unparseable".equals(o.end())
                && !o.writeFailed() && !lenientBefore) {
            violations.add(label + ": a valid request (" + parse.requests().get(o.responses().size()).target()
                    + ") got no answer: the connection " + o.end() + "\n    request: " + show(bytes));
        }
    }

    // ------------------------------------------------------------------ after the run

    /** Every request the upstream received: no marker, nothing the reference parse rejects. */
    static void checkEverythingTheUpstreamSaw() {
        for (RecordedRequest r : upstream.requests()) {
            String uri = r.uri();
            count("upstream.requests");
            Matcher m = CASE_PATH.matcher(uri);
            String key = m.find() ? "/" + m.group(1) + "/" + (m.group(2).isEmpty() ? "f" : "c") + m.group(3) : null;
            ReferenceHttp.Parse p = key == null ? null : parses.get(key);
            if (uri.contains("/smuggled-")) {
                if (p == null || !p.hasTarget(uri)) {
                    violations.add("SMUGGLED: the upstream received " + r.method() + " " + uri + "; the reference parse of "
                            + key + " is " + (p == null ? "unknown" : p.verdict() + " " + p.reason() + " after "
                            + p.requests().size() + " clean request(s)") + "\n    request: " + shown.get(key));
                }
                count("upstream.legitMarkers");
                continue;
            }
            if (key != null && mustReject.contains(key)) {
                violations.add("the upstream received " + r.method() + " " + uri + " from MUST_REJECT corpus case " + key
                    + "\n    request: " + shown.get(key));
                continue;
            }
            if (cleanTargets.contains(uri)) {
                continue;
            }
            if (p != null && p.verdict() == ReferenceHttp.Verdict.LENIENT) {
                count("upstream.lenientForwarded");
                continue;
            }
            // A mutated path points at the wrong case: the body's marker names the right one.
            Matcher b = BODY_MARKER.matcher(new String(r.body(), java.nio.charset.StandardCharsets.ISO_8859_1));
            if (b.find()) {
                String bodyKey = "/" + b.group(1) + "/" + b.group(2);
                ReferenceHttp.Parse bp = parses.get(bodyKey);
                if (bp != null && (bp.verdict() == ReferenceHttp.Verdict.LENIENT || bp.hasTarget(uri))) {
                    count("upstream.lenientForwarded");
                    continue;
                }
                if (bp != null) {
                    key = bodyKey;
                    p = bp;
                }
            }
            if (uri.contains("after-")) {
                continue;
            }
            violations.add("the upstream received " + r.method() + " " + uri + " (body " + show(r.body()) + ") which the reference "
                    + (p == null ? "never parsed" : "calls " + p.verdict() + ": " + p.reason() + "\n    request: " + shown.get(key)));
        }
    }

    static void assertNoViolations() {
        List<String> all = new ArrayList<>(violations);
        violations.clear();
        assertThat(all).as("fuzz findings (seed %d; rerun with -Dfuzz.seed=%d)", SEED, SEED).isEmpty();
    }

    static void printSummary(int warnings) {
        Map<String, Long> sorted = new TreeMap<>();
        counters.forEach((k, v) -> sorted.put(k, v.sum()));
        StringBuilder sb = new StringBuilder("\n=== FuzzIT summary ===\n");
        sb.append(String.format(Locale.ROOT, "seed %d, %d threads, mutations for %.1f s (fuzz.seconds=%d), %d generated cases%n",
                SEED, THREADS, fuzzMillis / 1000.0, SECONDS, fuzzCases.get()));
        sorted.forEach((k, v) -> sb.append(String.format(Locale.ROOT, "  %-40s %d%n", k, v)));
        sb.append("  proxy warnings logged: ").append(warnings).append('\n');
        System.out.println(sb);
    }

    // ------------------------------------------------------------------ helpers

    static void count(String what) {
        count(what, 1);
    }

    static void count(String what, long n) {
        counters.computeIfAbsent(what, k -> new LongAdder()).add(n);
    }

    /** Bytes as a Java-escaped string, long ones shortened. */
    static String show(byte[] bytes) {
        StringBuilder sb = new StringBuilder("\"");
        int limit = Math.min(bytes.length, 400);
        for (int i = 0; i < limit; i++) {
            int b = bytes[i] & 0xff;
            if (b == '\r') {
                sb.append("\\r");
            } else if (b == '\n') {
                sb.append("\\n");
            } else if (b == '\t') {
                sb.append("\\t");
            } else if (b == '\\') {
                sb.append("\\\\");
            } else if (b < 0x20 || b >= 0x7f) {
                sb.append(String.format(Locale.ROOT, "\\x%02x", b));
            } else {
                sb.append((char) b);
            }
        }
        sb.append('"');
        if (bytes.length > limit) {
            sb.append("… (").append(bytes.length).append(" bytes)");
        }
        return sb.toString();
    }

    /** Collects WARN and ERROR events of the proxy (and Netty) while the class runs. */
    static final class LogCapture extends AppenderBase<ILoggingEvent> {
        private final Queue<String> events = new ConcurrentLinkedQueue<>();

        void install() {
            Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
            setContext(root.getLoggerContext());
            setName("fuzz-capture");
            start();
            root.addAppender(this);
        }

        List<String> finish() {
            Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
            root.detachAppender(this);
            super.stop();
            return new ArrayList<>(events);
        }

        @Override
        protected void append(ILoggingEvent e) {
            if (e.getLevel().isGreaterOrEqual(Level.WARN)
                    && (e.getLoggerName().startsWith("dev.idemproxy") || e.getLoggerName().startsWith("io.netty"))) {
                String t = e.getThrowableProxy() == null ? "" : " " + e.getThrowableProxy().getClassName() + ": "
                        + e.getThrowableProxy().getMessage();
                events.add(e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage() + t);
            }
        }
    }
}
