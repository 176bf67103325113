package dev.idemproxy.app.it;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idemproxy.app.it.McpServerFixture.Era;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An MCP agent on the official TypeScript SDKs: {@code node client.mjs} from
 * {@link McpNodeFixture}, driven one command at a time. {@link #call} connects a new client
 * (a new session on the session-based generation), calls a tool with a client-side timeout,
 * closes the session, and on failure retries the same call from a new session, as many times as
 * asked, which is what an agent does after a timeout. Results come back as the driver's JSON:
 * {@code {"attempts": [{"ok": true, "result": {…}, "sessionId": …, "progress": N}, {"ok": false,
 * "error": {"name", "code", "message", "data"}}, …]}}. Not thread-safe: one command at a time.
 */
public final class McpClientDriver implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration MARGIN = Duration.ofSeconds(20);

    private final Process process;
    private final OutputStream stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final StringBuilder stderr = new StringBuilder();
    private int nextId = 1;

    private McpClientDriver(Process process) {
        this.process = process;
        this.stdin = process.getOutputStream();
        daemon("mcp-driver-out", () -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            }
            lines.add("EOF");
            return null;
        });
        daemon("mcp-driver-err", () -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(), UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (stderr) {
                        stderr.append(line).append('\n');
                    }
                }
            }
            return null;
        });
    }

    public static McpClientDriver start() throws IOException, InterruptedException, TimeoutException {
        McpClientDriver d = new McpClientDriver(new ProcessBuilder("node", "client.mjs")
                .directory(McpNodeFixture.directory().toFile()).start());
        String ready = d.lines.poll(McpServerFixture.START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        if (!"READY".equals(ready)) {
            d.close();
            throw new TimeoutException("the MCP client driver did not start (got " + ready + "); stderr:\n" + d.stderr());
        }
        return d;
    }

    /** Calls {@code tool} once, with no retry, no progress and no extra header. */
    public JsonNode call(URI endpoint, Era era, String tool, String argsJson, Duration timeout) throws Exception {
        return call(endpoint, era, tool, argsJson, timeout, 0, false, Map.of());
    }

    /**
     * Calls {@code tool}; after a failed attempt, retries it from a new client (a new session)
     * up to {@code retries} times.
     *
     * @param argsJson the arguments as a JSON object
     * @param progress ask for progress notifications (counted per attempt as {@code progress})
     * @param headers  extra HTTP headers on every request, such as {@code Idempotency-Key}
     */
    public JsonNode call(URI endpoint, Era era, String tool, String argsJson, Duration timeout, int retries,
            boolean progress, Map<String, String> headers) throws Exception {
        ObjectNode cmd = command("call", endpoint, era);
        cmd.put("tool", tool);
        cmd.set("args", JSON.readTree(argsJson));
        cmd.put("timeoutMs", timeout.toMillis());
        cmd.put("retries", retries);
        cmd.put("progress", progress);
        cmd.set("headers", JSON.valueToTree(headers));
        return send(cmd, timeout.multipliedBy(retries + 1L).plus(MARGIN));
    }

    /** Lists the tools ({@code {"ok": true, "tools": [...], "nextCursor": …}}); {@code cursor} null for the first page. */
    public JsonNode list(URI endpoint, Era era, String cursor) throws Exception {
        ObjectNode cmd = command("list", endpoint, era);
        if (cursor != null) {
            cmd.put("cursor", cursor);
        }
        return send(cmd, MARGIN);
    }

    @Override
    public void close() {
        try {
            stdin.close();
        } catch (IOException e) {
            // the driver is gone already
        }
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private ObjectNode command(String op, URI endpoint, Era era) {
        ObjectNode cmd = JSON.createObjectNode();
        cmd.put("id", nextId++);
        cmd.put("op", op);
        cmd.put("url", endpoint.toString());
        cmd.put("era", era.spelling);
        return cmd;
    }

    private JsonNode send(ObjectNode cmd, Duration wait) throws Exception {
        stdin.write((JSON.writeValueAsString(cmd) + "\n").getBytes(UTF_8));
        stdin.flush();
        String line = lines.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
        if (line == null || line.equals("EOF")) {
            throw new TimeoutException("no answer from the MCP client driver to " + cmd + " within " + wait + "; stderr:\n" + stderr());
        }
        JsonNode answer = JSON.readTree(line);
        if (answer.path("id").asInt() != cmd.get("id").asInt()) {
            throw new IllegalStateException("answer " + line + " is not for command " + cmd);
        }
        return answer;
    }

    private String stderr() {
        synchronized (stderr) {
            return stderr.toString();
        }
    }

    private static void daemon(String name, java.util.concurrent.Callable<Void> body) {
        Thread t = new Thread(() -> {
            try {
                body.call();
            } catch (Exception e) {
                // the process ended; the reader of lines sees EOF or a timeout
            }
        }, name);
        t.setDaemon(true);
        t.start();
    }
}
