package dev.idemproxy.app.it;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A real MCP server on loopback for the MCP route's tests: {@code node server.mjs} from
 * {@link McpNodeFixture}, built on the official TypeScript SDKs, on a free port. It serves both
 * protocol generations ({@link Era}) with both answer styles ({@link Answers}) at
 * {@link #endpoint}, and these tools:
 * <ul>
 *   <li>{@code search_docs}: {@code readOnlyHint: true};</li>
 *   <li>{@code create_ticket}: a plain side effect;</li>
 *   <li>{@code slow_commit}: commits, then answers after {@code delayMs} (default 2000), with
 *       progress on SSE;</li>
 *   <li>{@code commit_then_drop}: commits, then drops the connection without an answer;</li>
 *   <li>{@code set_flag}: {@code idempotentHint: true};</li>
 *   <li>{@code fail_internal}: commits, then answers JSON-RPC error -32603.</li>
 * </ul>
 * Every tool counts its executions at the moment it commits: the server prints
 * {@code EXEC <tool> <args>}, read here line by line, so a test can wait for an execution
 * ({@link #awaitExecutions}) and assert that no other happened. On SSE answers every tool sends
 * {@code notifications/progress} before its result when the call asks for progress.
 * {@link #annotate} changes what {@code tools/list} says. Thread-safe.
 */
public final class McpServerFixture implements AutoCloseable {
    public static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    /** The protocol generation an endpoint speaks. */
    public enum Era {
        /** 2025-03-26 … 2025-11-25: initialize, Mcp-Session-Id, GET stream, DELETE ({@code @modelcontextprotocol/sdk} 1.x). */
        SESSION("session"),
        /** 2026-07-28: sessionless, Mcp-Method/Mcp-Name headers ({@code @modelcontextprotocol/server} 2.x). */
        MODERN("modern");

        final String spelling;

        Era(String spelling) {
            this.spelling = spelling;
        }
    }

    /** How an endpoint answers a request. */
    public enum Answers {
        JSON("json"), SSE("sse");

        final String spelling;

        Answers(String spelling) {
            this.spelling = spelling;
        }
    }

    private final Process process;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<String, Integer> executions = new HashMap<>();
    private final List<String> output = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();
    private int port;
    private boolean ended;

    private McpServerFixture(Process process) {
        this.process = process;
        Thread out = new Thread(() -> read(process.getInputStream(), false), "mcp-fixture-out");
        Thread err = new Thread(() -> read(process.getErrorStream(), true), "mcp-fixture-err");
        out.setDaemon(true);
        err.setDaemon(true);
        out.start();
        err.start();
    }

    /** Starts the server with {@code tools/list} in one page. */
    public static McpServerFixture start() throws IOException, InterruptedException, TimeoutException {
        return start(0);
    }

    /** Starts the server; {@code pageSize} > 0 splits {@code tools/list} into pages of that many tools. */
    public static McpServerFixture start(int pageSize) throws IOException, InterruptedException, TimeoutException {
        ProcessBuilder pb = new ProcessBuilder("node", "server.mjs", "--port", "0", "--page-size", Integer.toString(pageSize))
                .directory(McpNodeFixture.directory().toFile());
        McpServerFixture f = new McpServerFixture(pb.start());
        try {
            f.awaitPort();
        } catch (TimeoutException | RuntimeException e) {
            f.close();
            throw e;
        }
        return f;
    }

    public int port() {
        return port;
    }

    /** The MCP endpoint of a generation and answer style, e.g. {@code http://127.0.0.1:P/session/sse}. */
    public URI endpoint(Era era, Answers answers) {
        return URI.create("http://127.0.0.1:" + port + "/" + era.spelling + "/" + answers.spelling);
    }

    /** How often {@code tool} has committed so far, as the server printed it. */
    public int executions(String tool) {
        lock.lock();
        try {
            return executions.getOrDefault(tool, 0);
        } finally {
            lock.unlock();
        }
    }

    /** Waits until {@code tool} has committed at least {@code n} times; fails with the output when it does not. */
    public void awaitExecutions(String tool, int n, Duration timeout) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (executions.getOrDefault(tool, 0) < n) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || ended) {
                    throw new TimeoutException(tool + " executed " + executions.getOrDefault(tool, 0) + " times, not " + n
                            + (ended ? " (the server ended)" : " within " + timeout) + "; output:\n" + String.join("\n", output));
                }
                changed.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The server's own count of executions per tool ({@code GET /admin/counts}), as JSON. */
    public String countsJson() throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/admin/counts")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** Merges {@code annotationsJson} ({@code {"readOnlyHint": true}}) into {@code tool}'s annotations in {@code tools/list}. */
    public void annotate(String tool, String annotationsJson) throws IOException, InterruptedException {
        post("/admin/annotations", "{\"" + tool + "\":" + annotationsJson + "}");
    }

    /** Clears the counts (the server's and this fixture's) and the annotation overrides. */
    public void reset() throws IOException, InterruptedException {
        post("/admin/reset", "");
        lock.lock();
        try {
            executions.clear();
        } finally {
            lock.unlock();
        }
    }

    /** Everything the server printed so far, for failure messages. */
    public String output() {
        lock.lock();
        try {
            return String.join("\n", output);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private void post(String path, String body) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 204) {
            throw new IllegalStateException("POST " + path + ": " + r.statusCode() + " " + r.body());
        }
    }

    private void awaitPort() throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        lock.lock();
        try {
            while (port == 0) {
                long left = deadline - System.nanoTime();
                if (ended || left <= 0) {
                    throw new TimeoutException("the MCP fixture server did not start"
                            + (ended ? " (it ended)" : " within " + START_TIMEOUT) + "; output:\n" + String.join("\n", output));
                }
                changed.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    private void read(InputStream in, boolean stderr) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                onLine(line, stderr);
            }
        } catch (IOException e) {
            onLine("(output unreadable: " + e + ")", true);
        } finally {
            lock.lock();
            try {
                ended = true;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    private void onLine(String line, boolean stderr) {
        lock.lock();
        try {
            output.add((stderr ? "err| " : "out| ") + line);
            if (!stderr && line.startsWith("LISTENING ")) {
                port = Integer.parseInt(line.substring("LISTENING ".length()).strip());
            } else if (!stderr && line.startsWith("EXEC ")) {
                int space = line.indexOf(' ', 5);
                executions.merge(space < 0 ? line.substring(5) : line.substring(5, space), 1, Integer::sum);
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
