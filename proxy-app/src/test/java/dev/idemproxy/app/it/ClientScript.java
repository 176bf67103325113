package dev.idemproxy.app.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP client run as a child process (curl, Python, Node) with the environment an agent
 * would have: its output is read line by line, and the test waits for a line, never for time to
 * pass. {@link #close()} destroys the process if it is still running. Thread-safe.
 */
final class ClientScript implements AutoCloseable {
    /** Proxy variables the test's own environment may carry, which must not reach the child. */
    private static final List<String> INHERITED_PROXY_VARIABLES = List.of("HTTP_PROXY", "http_proxy", "HTTPS_PROXY",
            "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE",
            "SSL_CERT_DIR", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS");

    private final Process process;
    private final List<String> command;
    private final List<String> lines = new ArrayList<>();

    private ClientScript(Process process, List<String> command) {
        this.process = process;
        this.command = command;
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (lines) {
                        lines.add(line);
                        lines.notifyAll();
                    }
                }
            } catch (IOException e) {
                // the process ended
            } finally {
                synchronized (lines) {
                    lines.add(null);
                    lines.notifyAll();
                }
            }
        }, "client-script-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code command} in {@code dir} with {@code env} on top of a proxy-free copy of this environment; stderr joins stdout. */
    static ClientScript start(Path dir, Map<String, String> env, List<String> command) {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        INHERITED_PROXY_VARIABLES.forEach(pb.environment()::remove);
        pb.environment().putAll(env);
        try {
            return new ClientScript(pb.start(), command);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /** Waits for a line that starts with one of {@code prefixes} and returns it; fails when the output ends first or time runs out. */
    String awaitLine(Duration timeout, String... prefixes) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        int seen = 0;
        synchronized (lines) {
            while (true) {
                for (; seen < lines.size(); seen++) {
                    String line = lines.get(seen);
                    if (line == null) {
                        throw new AssertionError(command + " ended without a line starting with " + List.of(prefixes) + ":\n" + output());
                    }
                    for (String p : prefixes) {
                        if (line.startsWith(p)) {
                            return line;
                        }
                    }
                }
                long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
                if (left <= 0) {
                    throw new AssertionError("no line starting with " + List.of(prefixes) + " from " + command + " within "
                            + timeout + ":\n" + output());
                }
                lines.wait(left);
            }
        }
    }

    /** Waits for the process to end and returns its exit code. */
    int waitFor(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(command + " still runs after " + timeout + ":\n" + output());
        }
        return process.exitValue();
    }

    String output() {
        synchronized (lines) {
            StringBuilder sb = new StringBuilder();
            lines.stream().filter(l -> l != null).forEach(l -> sb.append("  | ").append(l).append('\n'));
            return sb.toString();
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
