package dev.idemproxy.app.it;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Node.js project of the test tree ({@code src/test/<name>}, pinned by its
 * {@code package-lock.json}), installed once per checkout into {@code target/<name>} with
 * {@code npm ci}: copied there, so the source tree never holds {@code node_modules}, and installed
 * again only when the lock file changes. Node.js 20 or later with npm must be on the PATH: when
 * {@code node} or {@code npm} is missing and this runs as root on a Debian machine, the Debian
 * packages {@code nodejs} and {@code npm} are installed (as .ci/run installs redis-server);
 * otherwise, or when the installed Node.js is older than 20, it fails with a message that says
 * what to install. A file lock keeps two test JVMs from installing at once. Thread-safe.
 */
final class NodeProject {
    private static final long INSTALL_MINUTES = 5;

    private final Path source;
    private final Path dir;
    private final List<String> files;
    private final String what;
    private Path installed;

    /**
     * @param name  the project's folder under {@code src/test} (and {@code target}), relative to
     *              the module directory surefire and failsafe run in
     * @param files the files to copy, {@code package.json} and {@code package-lock.json} among them
     * @param what  what the project is for, in error messages
     */
    NodeProject(String name, List<String> files, String what) {
        this.source = Path.of("src/test", name);
        this.dir = Path.of("target", name);
        this.files = List.copyOf(files);
        this.what = what;
    }

    /** The directory with the project's scripts and their {@code node_modules}, installed if need be. */
    synchronized Path directory() throws IOException, InterruptedException {
        if (installed != null) {
            return installed;
        }
        String node = require("node", "--version", "nodejs");
        int major = Integer.parseInt(node.replaceFirst("^v(\\d+).*$", "$1"));
        if (major < 20) {
            throw new IllegalStateException(what + " need Node.js 20 or later; 'node --version' says " + node);
        }
        require("npm", "--version", "npm");
        Files.createDirectories(dir);
        try (FileChannel ch = FileChannel.open(dir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            FileLock installing = ch.lock();   // released with the channel
            for (String f : files) {
                Files.copy(source.resolve(f), dir.resolve(f), StandardCopyOption.REPLACE_EXISTING);
            }
            String stamp = sha256(Files.readAllBytes(dir.resolve("package-lock.json")));
            Path stampFile = dir.resolve("node_modules/.idemproxy-lock-sha256");
            if (!Files.isRegularFile(stampFile) || !Files.readString(stampFile).equals(stamp)) {
                npmCi();
                Files.writeString(stampFile, stamp);
            }
        }
        installed = dir.toAbsolutePath();
        return installed;
    }

    private void npmCi() throws IOException, InterruptedException {
        Path log = dir.resolve("npm-ci.log");
        Process p = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund")
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(INSTALL_MINUTES, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("'npm ci' in " + dir + " did not finish within " + INSTALL_MINUTES + " minutes; see " + log);
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException("'npm ci' in " + dir + " failed (exit " + p.exitValue() + "):\n" + tail(log));
        }
    }

    /**
     * Runs {@code command arg} and returns its first output line; installs {@code debianPackage}
     * once when the command is missing and it can, and fails clearly when it is still missing.
     */
    String require(String command, String arg, String debianPackage) throws InterruptedException {
        try {
            return run(command, arg);
        } catch (IOException missing) {
            if (installed(debianPackage)) {
                try {
                    return run(command, arg);
                } catch (IOException stillMissing) {
                    // reported below
                }
            }
            throw new IllegalStateException("'" + command + "' is not on the PATH: " + what + " (" + source
                    + ") need it; install it (e.g. apt-get install " + debianPackage + ") and run the tests again", missing);
        }
    }

    static String run(String command, String arg) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command, arg).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), UTF_8).strip();
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("'" + command + " " + arg + "' failed: " + out);
        }
        return out.lines().findFirst().orElse("");
    }

    /** Installs a Debian package when this runs as root with apt-get; true when that worked. */
    private static boolean installed(String debianPackage) throws InterruptedException {
        if (!"root".equals(System.getProperty("user.name")) || !Files.isExecutable(Path.of("/usr/bin/apt-get"))) {
            return false;
        }
        try {
            Process p = new ProcessBuilder("bash", "-c",
                    "export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq " + debianPackage)
                    .inheritIO().start();
            return p.waitFor() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    private static String tail(Path log) throws IOException {
        try (Stream<String> lines = Files.lines(log)) {
            List<String> all = lines.toList();
            return String.join("\n", all.subList(Math.max(0, all.size() - 30), all.size()));
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
