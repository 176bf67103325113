package dev.idemproxy.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.SocketFactory;
import javax.net.ssl.SSLContext;

/**
 * A real {@code redis-server} child process on a loopback port, in a temporary directory, with
 * persistence off unless asked for ({@link #startStandalone(String...)} with
 * {@code "--appendonly", "yes"} keeps data across a restart in that directory). Variants: TLS only
 * ({@link #startTls}: {@code --port 0}, {@code --tls-port}), a password ({@link #startWithPassword}),
 * and a Sentinel ({@link #sentinelOn}, used by {@link RedisSentinelFixture}). Start it with
 * {@link #start()}; {@link #stop()} and {@link #start()} again restart it on the same port (for
 * outage tests); {@link #close()} stops it and deletes the directory. {@code redis-server} comes
 * from the PATH or /usr/bin; without it, tests fail with the install command rather than skip.
 * Not thread-safe: drive it from the test thread.
 */
public final class RedisServerFixture implements AutoCloseable {
    private static final long START_TIMEOUT_MS = 10_000;

    private final int port;
    private final List<String> extraArgs;
    private final Path dir;
    private final SocketFactory sockets;
    private final String password;
    private final boolean tls;
    private Path sentinelConfig;
    private Process process;

    private RedisServerFixture(int port, List<String> extraArgs) {
        this(port, extraArgs, null, null);
    }

    /**
     * @param tlsClient when not null, the server listens with TLS only and readiness is probed over it
     * @param password  when not null, readiness probes and {@link #command} authenticate with it
     */
    private RedisServerFixture(int port, List<String> extraArgs, SSLContext tlsClient, String password) {
        this.port = port;
        this.extraArgs = List.copyOf(extraArgs);
        this.sockets = tlsClient == null ? SocketFactory.getDefault() : tlsClient.getSocketFactory();
        this.tls = tlsClient != null;
        this.password = password;
        try {
            this.dir = Files.createTempDirectory("redis-" + port + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A started standalone server on a free port. */
    public static RedisServerFixture startStandalone() {
        return startStandalone(new String[0]);
    }

    /**
     * A started standalone server on a free port with extra {@code redis-server} arguments, which
     * override the defaults (e.g. {@code "--appendonly", "yes"}: an append-only file in this
     * fixture's directory, written out on a graceful {@link #stop()}, so data survives a restart).
     */
    public static RedisServerFixture startStandalone(String... extraArgs) {
        RedisServerFixture f = new RedisServerFixture(FreePorts.pick(), List.of(extraArgs));
        f.start();
        return f;
    }

    /**
     * A standalone server on a free port, <em>not</em> started: its {@link #uri()} refuses
     * connections until {@link #start()} (for tests of a proxy that starts while Redis is away).
     */
    public static RedisServerFixture notStarted(String... extraArgs) {
        return new RedisServerFixture(FreePorts.pick(), List.of(extraArgs));
    }

    /**
     * A started server on a free port that speaks TLS only ({@code --port 0}), presenting
     * {@code certs}' server certificate (SAN {@code localhost} and {@code 127.0.0.1}); clients need
     * no certificate of their own. {@link #uri()} is {@code rediss://127.0.0.1:PORT}.
     */
    public static RedisServerFixture startTls(TestCertificates certs, String... extraArgs) {
        List<String> args = new ArrayList<>(List.of("--tls-cert-file", certs.serverCertChainPemFile().toString(),
                "--tls-key-file", certs.serverKeyPemFile().toString(),
                "--tls-ca-cert-file", certs.caPemFile().toString(), "--tls-auth-clients", "no"));
        args.addAll(List.of(extraArgs));
        RedisServerFixture f = new RedisServerFixture(FreePorts.pick(), args, certs.clientSslContext(), null);
        f.start();
        return f;
    }

    /** A started server on a free port that requires {@code password} ({@code --requirepass}). */
    public static RedisServerFixture startWithPassword(String password, String... extraArgs) {
        List<String> args = new ArrayList<>(List.of("--requirepass", password));
        args.addAll(List.of(extraArgs));
        RedisServerFixture f = new RedisServerFixture(FreePorts.pick(), args, null, password);
        f.start();
        return f;
    }

    /** A not yet started server on {@code port} with extra {@code redis-server} arguments. */
    static RedisServerFixture on(int port, List<String> extraArgs) {
        return new RedisServerFixture(port, extraArgs);
    }

    /**
     * A not yet started {@code redis-server --sentinel} on {@code port}, its configuration file
     * (which Sentinel rewrites as it learns) holding {@code configLines}.
     */
    static RedisServerFixture sentinelOn(int port, List<String> configLines) {
        RedisServerFixture f = new RedisServerFixture(port, List.of());
        f.sentinelConfig = f.dir.resolve("sentinel.conf");
        try {
            Files.write(f.sentinelConfig, configLines);
        } catch (IOException e) {
            f.close();
            throw new UncheckedIOException(e);
        }
        return f;
    }

    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:PORT}, or {@code rediss://…} for a TLS server; never with the password. */
    public String uri() {
        return (tls ? "rediss" : "redis") + "://127.0.0.1:" + port;
    }

    Path dir() {
        return dir;
    }

    /** Starts the server (again) and waits until it answers PING. */
    public void start() {
        if (process != null && process.isAlive()) {
            return;
        }
        List<String> cmd = new ArrayList<>(List.of(binary("redis-server")));
        if (sentinelConfig != null) {
            cmd.addAll(List.of(sentinelConfig.toString(), "--sentinel"));
        }
        cmd.addAll(List.of("--port", tls ? "0" : Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
                "--dir", dir.toString(), "--protected-mode", "no"));
        if (tls) {
            cmd.addAll(List.of("--tls-port", Integer.toString(port)));
        }
        cmd.addAll(extraArgs);
        try {
            process = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.log").toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + cmd, e);
        }
        Await.until("redis-server on port " + port + " to answer PING", java.time.Duration.ofMillis(START_TIMEOUT_MS), () -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server on port " + port + " exited at start; its log: " + log());
            }
            try {
                return "+PONG".equals(command("PING"));
            } catch (IOException notYet) {
                return false;  // not listening yet
            }
        });
    }

    /** Stops the server (SIGTERM, then SIGKILL after 5 s); the port and directory stay for {@link #start()}. */
    public void stop() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    @Override
    public void close() {
        stop();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp directory left behind is harmless
        }
    }

    /**
     * Sends one command (over TLS and after {@code AUTH} when this server needs them) and returns
     * the reply as text; an array comes back as its elements, one per line.
     */
    public String command(String... args) throws IOException {
        return Resp.command(sockets, password, port, args);
    }

    /** A field of {@code INFO section} ({@code role}, {@code master_repl_offset}, …), or null. */
    public String info(String section, String field) throws IOException {
        String info = command("INFO", section);
        for (String line : info == null ? new String[0] : info.split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        return null;
    }

    String log() {
        try {
            return Files.readString(dir.resolve("redis.log"));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /**
     * The path of a Redis tool. When it is missing and this runs as root on a Debian machine, the
     * project installs Debian's redis-server package itself (once per JVM), so the README's test
     * command needs nothing installed by hand; otherwise a failure says how to install it.
     */
    static String binary(String name) {
        String found = search(name);
        if (found == null && installOnce()) {
            found = search(name);
        }
        if (found == null) {
            throw new IllegalStateException(name + " not found: run `apt-get install -y redis-server` (CI's .ci/run does this)");
        }
        return found;
    }

    private static Boolean installed;

    private static synchronized boolean installOnce() {
        if (installed == null) {
            installed = Boolean.FALSE;
            if ("root".equals(System.getProperty("user.name")) && Files.isExecutable(Path.of("/usr/bin/apt-get"))) {
                try {
                    Process p = new ProcessBuilder("bash", "-c",
                            "export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq redis-server")
                            .inheritIO().start();
                    installed = p.waitFor() == 0;
                } catch (IOException e) {
                    installed = Boolean.FALSE;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        return installed;
    }

    private static String search(String name) {
        String path = System.getenv("PATH");
        List<Path> candidates = new ArrayList<>();
        if (path != null) {
            for (String d : path.split(java.io.File.pathSeparator)) {
                if (!d.isEmpty()) {
                    candidates.add(Path.of(d, name));
                }
            }
        }
        candidates.add(Path.of("/usr/bin", name));
        for (Path p : candidates) {
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }

}
