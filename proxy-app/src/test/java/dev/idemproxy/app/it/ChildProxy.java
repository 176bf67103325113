package dev.idemproxy.app.it;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.idemproxy.core.net.Transport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * {@code java -jar target/idemproxy.jar ARGS} as a child process, for what only a real process
 * shows: signals, exit codes and what is printed. Stdout and stderr are read line by line on two
 * daemon threads; tests wait on a line appearing ({@link #awaitLine}), never on time passing.
 * {@link #close()} always destroys the process. Thread-safe.
 */
final class ChildProxy implements AutoCloseable {
    /** The shaded jar, relative to the module directory failsafe runs in; built by {@code package}. */
    static final Path JAR = Path.of("target/idemproxy.jar");
    /** Small heap, paranoid leak detection; C1 only, as a child lives for seconds and starts on a busy machine. */
    static final List<String> JVM_FLAGS = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-Dio.netty.leakDetection.level=paranoid",
            // the test run's transport override (mvn verify -Didemproxy.transport=epoll), passed on
            "-D" + Transport.OVERRIDE_PROPERTY + "=" + System.getProperty(Transport.OVERRIDE_PROPERTY, "auto"));
    static final Duration DEFAULT_WAIT = Duration.ofSeconds(15);

    /** One line of output and the stream it came from. */
    record Line(boolean stderr, String text) {
        @Override
        public String toString() {
            return (stderr ? "err| " : "out| ") + text;
        }
    }

    private final Process process;
    private final List<String> command;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final List<Line> lines = new ArrayList<>();
    private int openStreams = 2;

    private ChildProxy(Process process, List<String> command) {
        this.process = process;
        this.command = command;
        reader(process.getInputStream(), false).start();
        reader(process.getErrorStream(), true).start();
    }

    /**
     * What a child is started through: nothing, unless this JVM runs with SIGHUP ignored (under
     * {@code nohup}, say), which a child would inherit and could not undo, so that the reload
     * tests' signal would never arrive. Then GNU env resets SIGHUP to its default and execs java
     * (so the pid is still the JVM's).
     */
    private static final List<String> PLAIN_PREFIX = hupIgnoredHere() ? List.of("env", "--default-signal=HUP") : List.of();

    /** Starts {@code java <flags> -jar <JAR> args...} in {@code workDir} with extra environment variables. */
    static ChildProxy start(Path workDir, Map<String, String> env, String... args) {
        return start(PLAIN_PREFIX, workDir, env, args);
    }

    /** Whether this process ignores SIGHUP (bit 0 of SigIgn in /proc/self/status); false where that cannot be read. */
    static boolean hupIgnoredHere() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("SigIgn:")) {
                    return (Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16) & 1L) != 0;
                }
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
        return false;
    }

    /**
     * As {@link #start(Path, String...)}, with SIGHUP ignored, as under {@code nohup}: a shell sets
     * the disposition and execs java in its place (so the pid is the JVM's).
     */
    static ChildProxy startIgnoringHup(Path workDir, String... args) {
        return startIgnoring("HUP", workDir, args);
    }

    /** As {@link #startIgnoringHup}, with {@code signal} ignored (INT: as a script's {@code cmd &} starts it). */
    static ChildProxy startIgnoring(String signal, Path workDir, String... args) {
        return start(List.of("sh", "-c", "trap '' " + signal + "; exec \"$@\"", "sh"), workDir, Map.of(), args);
    }

    private static ChildProxy start(List<String> prefix, Path workDir, Map<String, String> env, String... args) {
        return start(prefix, JVM_FLAGS, workDir, env, args);
    }

    /** Starts {@code java <jvmFlags> -jar <JAR> args...} in {@code workDir}: the caller's JVM options instead of {@link #JVM_FLAGS}. */
    static ChildProxy startWithJvmFlags(Path workDir, List<String> jvmFlags, String... args) {
        return start(PLAIN_PREFIX, jvmFlags, workDir, Map.of(), args);
    }

    private static ChildProxy start(List<String> prefix, List<String> jvmFlags, Path workDir, Map<String, String> env,
            String... args) {
        Path jar = JAR.toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: run the ITs through 'mvn verify' (after package)");
        }
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmFlags);
        cmd.add("-jar");
        cmd.add(jar.toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(workDir.toFile());
        pb.environment().putAll(env);
        try {
            return new ChildProxy(pb.start(), cmd);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + cmd, e);
        }
    }

    static ChildProxy start(Path workDir, String... args) {
        return start(workDir, Map.of(), args);
    }

    /**
     * Starts {@code command} as it is (say the launcher, {@code bin/idemproxy …}, or a shell running
     * a line of the docs) in {@code workDir}, with {@code env} added to this JVM's environment (a
     * null value removes the variable).
     */
    static ChildProxy command(List<String> command, Path workDir, Map<String, String> env) {
        ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile());
        env.forEach((name, value) -> {
            if (value == null) {
                pb.environment().remove(name);
            } else {
                pb.environment().put(name, value);
            }
        });
        try {
            return new ChildProxy(pb.start(), List.copyOf(command));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /** Runs a short-lived command to its end (e.g. {@code --version}); the result has the exit code and output. */
    static Finished run(Path workDir, String... args) throws InterruptedException {
        return start(workDir, args).finish();
    }

    /** Waits for this child to exit by itself and for all its output, closes it, and returns the result. */
    Finished finish() throws InterruptedException {
        try (this) {
            int code = waitFor(DEFAULT_WAIT);
            awaitStreamsClosed(DEFAULT_WAIT);
            return new Finished(code, stdout(), stderr(), lines());
        }
    }

    /** What a finished child printed, and its exit code. */
    record Finished(int exitCode, List<String> stdout, List<String> stderr, List<Line> lines) {
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("exit=" + exitCode);
            lines.forEach(l -> sb.append('\n').append(l));
            return sb.toString();
        }
    }

    private Thread reader(InputStream in, boolean stderr) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    add(new Line(stderr, line));
                }
            } catch (IOException e) {
                add(new Line(true, "[ChildProxy: reading the child's output failed: " + e + "]"));
            } finally {
                lock.lock();
                try {
                    openStreams--;
                    changed.signalAll();
                } finally {
                    lock.unlock();
                }
            }
        }, "child-proxy-" + (stderr ? "err" : "out"));
        t.setDaemon(true);
        return t;
    }

    private void add(Line line) {
        lock.lock();
        try {
            lines.add(line);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Sends a signal by name ({@code TERM}, {@code HUP}) with {@code kill -s NAME PID}. */
    void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-s", name, Long.toString(pid())).redirectErrorStream(true).start();
        String said = new String(kill.getInputStream().readAllBytes(), UTF_8);
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill -s " + name + " " + pid() + " failed: " + said);
        }
    }

    /**
     * Waits for the process to exit and returns its exit code.
     *
     * @throws AssertionError when it is still running after {@code timeout}, with its output
     */
    int waitFor(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the child did not exit within " + timeout + "; output so far:\n" + transcript());
        }
        return process.exitValue();
    }

    /** Waits until both output streams reached their end (after exit, so every line is in). */
    void awaitStreamsClosed(Duration timeout) throws InterruptedException {
        long remaining = timeout.toNanos();
        lock.lock();
        try {
            while (openStreams > 0) {
                if (remaining <= 0) {
                    throw new AssertionError("the child's output did not end within " + timeout);
                }
                remaining = changed.awaitNanos(remaining);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Waits for a line (stdout or stderr) in which {@code regex} is found; returns it. */
    String awaitLine(String regex) throws InterruptedException {
        return awaitLines(regex, 1, DEFAULT_WAIT);
    }

    /** Waits until {@code count} lines in which {@code regex} is found have been printed; returns the last. */
    String awaitLines(String regex, int count, Duration timeout) throws InterruptedException {
        Pattern p = Pattern.compile(regex);
        return awaitLines(l -> p.matcher(l).find(), "/" + regex + "/", count, timeout);
    }

    /** Waits for a line matching {@code condition}; returns it. */
    String awaitLine(Predicate<String> condition, Duration timeout) throws InterruptedException {
        return awaitLines(condition, "a line matching the condition", 1, timeout);
    }

    private String awaitLines(Predicate<String> condition, String what, int count, Duration timeout)
            throws InterruptedException {
        long remaining = timeout.toNanos();
        lock.lock();
        try {
            while (true) {
                List<String> hits = lines.stream().map(Line::text).filter(condition).toList();
                if (hits.size() >= count) {
                    return hits.get(count - 1);
                }
                if (openStreams == 0) {
                    throw new AssertionError("the child's output ended (exit " + exitCodeOrRunning() + ") with "
                            + hits.size() + " of " + count + " lines " + what + ":\n" + transcript());
                }
                if (remaining <= 0) {
                    throw new AssertionError("waited " + timeout + " for " + count + " lines " + what + ", saw "
                            + hits.size() + ":\n" + transcript());
                }
                remaining = changed.awaitNanos(remaining);
            }
        } finally {
            lock.unlock();
        }
    }

    /** How many lines so far {@code regex} is found in. */
    int count(String regex) {
        Pattern p = Pattern.compile(regex);
        return (int) lines().stream().filter(l -> p.matcher(l.text()).find()).count();
    }

    private String exitCodeOrRunning() {
        return process.isAlive() ? "still running" : Integer.toString(process.exitValue());
    }

    List<Line> lines() {
        lock.lock();
        try {
            return List.copyOf(lines);
        } finally {
            lock.unlock();
        }
    }

    List<String> stdout() {
        return lines().stream().filter(l -> !l.stderr()).map(Line::text).toList();
    }

    List<String> stderr() {
        return lines().stream().filter(Line::stderr).map(Line::text).toList();
    }

    /** Everything printed so far, stream-tagged, with the command line: for failure messages. */
    String transcript() {
        StringBuilder sb = new StringBuilder("$ " + String.join(" ", command));
        lines().forEach(l -> sb.append('\n').append(l));
        return sb.toString();
    }

    /** Fails when Netty's leak detector reported anything in the child's output. */
    void assertNoLeaks() {
        if (lines().stream().anyMatch(l -> l.text().contains("LEAK:"))) {
            throw new AssertionError("the child reported a Netty leak:\n" + transcript());
        }
    }

    /** Destroys the process if it still runs (forcibly after a short wait), then checks for leak reports. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        }
        assertNoLeaks();
    }
}
