package dev.idemproxy.app.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.core.testing.Await;
import dev.idemproxy.core.testing.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a Docker engine would do with the Dockerfile, without one: the build stage's Maven command
 * runs in a directory holding only what that stage copies, so a source the Dockerfile forgets
 * fails this build; and the runtime stage's AOT cache is made and used with the same commands and
 * options as in the image, on the runtime the jre stage links (with a JDK of the jre stage's
 * version: this JVM's if it is one, else {@code IDEMPROXY_IMAGE_JDK}, else one under
 * {@code /usr/lib/jvm}; without one that test is skipped), against the jar this build made.
 * tools/image-smoke.sh builds and runs the image itself, with a Docker engine.
 */
class DockerfileBuildIT {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path JAR = Path.of("target/idemproxy.jar").toAbsolutePath();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void theBuildStageBuildsTheJarFromWhatItCopiesAlone(@TempDir Path context) throws Exception {
        List<String> stage = stage("build");
        for (String line : stage) {
            if (line.startsWith("COPY ") && !line.startsWith("COPY --from")) {
                String[] parts = line.substring(5).trim().split("\\s+");
                copy(ROOT.resolve(parts[0]), context.resolve(parts[1].replaceFirst("/$", "") + (parts[1].endsWith("/")
                        ? "/" + Path.of(parts[0]).getFileName() : "")));
            }
        }
        String run = stage.stream().filter(l -> l.startsWith("RUN ") && l.contains("mvn ")).findFirst().orElseThrow();
        List<String> mvn = new ArrayList<>(List.of(run.substring(run.indexOf("mvn ")).split("&&")[0].trim().split("\\s+")));
        mvn.add("-o");  // what the outer build already fetched is all it may use
        String repo = System.getProperty("maven.repo.local");
        if (repo != null && !repo.isBlank()) {
            mvn.add("-Dmaven.repo.local=" + repo);
        }
        Result r = exec(context, 600, mvn);
        assertThat(r.exit).as("%s in a copy of the build stage's context:%n%s", mvn, r.output).isZero();
        assertThat(context.resolve("proxy-app/target/idemproxy.jar")).isRegularFile();
    }

    /**
     * The runtime stage's steps, in a directory standing for the image's file system: the Java
     * runtime linked by the {@code jre} stage's {@code jlink} command, the AOT cache's training
     * run, and the {@code ENTRYPOINT} with the default {@code CMD} and {@code -XX:AOTMode=on}
     * (which refuses to start when the cache cannot be used) up to {@code /readyz} 200 and a clean
     * stop. Every file the stage copies from the build context exists.
     */
    @Test
    void theRuntimeStagesAotCacheIsMadeAndUsedOnTheLinkedRuntime(@TempDir Path dir) throws Exception {
        assertThat(JAR).as("built by package").isRegularFile();
        List<String> runtime = stage(null);
        Map<String, String> image = imagePaths(runtime, dir);
        String from = stage("jre").get(0);
        int version = Integer.parseInt(from.replaceAll("^FROM \\S+?:(\\d+)\\D.*$", "$1"));
        Path jdk = jdk(version);
        Assumptions.assumeTrue(jdk != null, "no JDK " + version + " here for the jre stage (" + from
                + "): set IDEMPROXY_IMAGE_JDK to one");

        String link = stage("jre").stream().filter(l -> l.startsWith("RUN jlink ")).findFirst().orElseThrow();
        List<String> jlink = new ArrayList<>(List.of(link.substring(4).split("\\s+")));
        jlink.set(0, jdk.resolve("bin/jlink").toString());
        jlink.set(jlink.indexOf("--output") + 1, dir.resolve("jre").toString());
        Result linked = exec(dir, 300, jlink);
        assertThat(linked.exit).as("%s:%n%s", jlink, linked.output).isZero();

        String make = runtime.stream().filter(l -> l.startsWith("RUN java -XX:AOTCacheOutput=")).findFirst().orElseThrow();
        assertThat(make).contains("@/etc/idemproxy/jvm.options").contains("-jar /app/idemproxy.jar demo");
        List<String> train = inImage(List.of(make.substring(4, make.indexOf(" > ")).split("\\s+")), image);
        Result trained = exec(dir, 300, train);
        assertThat(trained.exit).as("%s:%n%s", train, trained.output).isZero();
        assertThat(Path.of(image.get("/app/idemproxy.aot"))).isRegularFile();

        String entry = runtime.stream().filter(l -> l.startsWith("ENTRYPOINT ")).findFirst().orElseThrow();
        String cmd = runtime.stream().filter(l -> l.startsWith("CMD ")).findFirst().orElseThrow();
        List<String> start = new ArrayList<>(jsonArray(entry.substring(11)));
        assertThat(start).contains("-XX:AOTCache=/app/idemproxy.aot");
        start.add(1, "-XX:AOTMode=on");
        start.addAll(jsonArray(cmd.substring(4)));
        start = inImage(start, image);
        int[] ports = FreePorts.pick(2);
        Map<String, String> env = new LinkedHashMap<>();
        runtime.stream().filter(l -> l.startsWith("ENV ") && !l.startsWith("ENV PATH="))  // the image's (MALLOC_ARENA_MAX)
                .map(l -> l.substring(4).split("=", 2)).forEach(kv -> env.put(kv[0], kv[1]));
        env.putAll(Map.of("IDEMPROXY_LISTEN", "127.0.0.1:" + ports[0], "IDEMPROXY_ADMIN_LISTEN", "127.0.0.1:" + ports[1],
                "IDEMPROXY_STORE", "memory"));
        Path out = dir.resolve("entrypoint.log");
        ProcessBuilder pb = new ProcessBuilder(start).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().putAll(env);
        Process proxy = pb.start();
        try {
            URI ready = URI.create("http://127.0.0.1:" + ports[1] + "/readyz");
            Await.until("/readyz 200 from " + start, Duration.ofSeconds(60), () -> {
                assertThat(proxy.isAlive()).as("the entrypoint exited: %s", read(out)).isTrue();
                return status(ready) == 200;
            });
            new ProcessBuilder("kill", "-s", "TERM", Long.toString(proxy.pid())).start().waitFor();
            assertThat(proxy.waitFor(30, TimeUnit.SECONDS)).as(read(out)).isTrue();
            assertThat(proxy.exitValue()).as(read(out)).isZero();
        } finally {
            proxy.destroyForcibly();
        }
    }

    /**
     * Where the runtime stage's files are here: what it copies (from the build stage: the jar this
     * build made; from the jre stage: {@code dir/jre}; from the context: the repository's file,
     * which must exist) and the AOT cache it makes ({@code dir/idemproxy.aot}).
     */
    private static Map<String, String> imagePaths(List<String> runtime, Path dir) {
        Map<String, String> paths = new LinkedHashMap<>();
        for (String line : runtime) {
            if (line.startsWith("COPY ")) {
                String[] parts = line.substring(5).trim().split("\\s+");
                String from = parts[parts.length - 2];
                String to = parts[parts.length - 1];
                if (line.startsWith("COPY --from=build ")) {
                    paths.put(to, JAR.toString());
                } else if (line.startsWith("COPY --from=jre ")) {
                    paths.put(to, dir.resolve("jre").toString());
                } else {
                    assertThat(ROOT.resolve(from)).as("%s: in the build context", line).exists();
                    paths.put(to, ROOT.resolve(from).toString());
                }
            }
        }
        paths.put("/app/idemproxy.aot", dir.resolve("idemproxy.aot").toString());
        assertThat(paths).containsKeys("/opt/java", "/app/idemproxy.jar", "/etc/idemproxy/jvm.options",
                "/etc/idemproxy/idemproxy.yaml");
        return paths;
    }

    /** A command of the image with its paths mapped by {@link #imagePaths}; {@code java} is the runtime's, as on the image's PATH. */
    private static List<String> inImage(List<String> command, Map<String, String> paths) {
        List<String> mapped = new ArrayList<>();
        for (String arg : command) {
            if (arg.equals("java")) {
                mapped.add(paths.get("/opt/java") + "/bin/java");
                continue;
            }
            String a = arg;
            for (Map.Entry<String, String> p : paths.entrySet()) {
                a = a.replace(p.getKey(), p.getValue());
            }
            mapped.add(a);
        }
        return mapped;
    }

    /**
     * A JDK of this feature version: this JVM's, else {@code IDEMPROXY_IMAGE_JDK}'s, else the first
     * under {@code /usr/lib/jvm} (where Debian's and Temurin's packages put them); null if none.
     */
    private static Path jdk(int version) throws IOException {
        List<Path> candidates = new ArrayList<>();
        candidates.add(Path.of(System.getProperty("java.home")));
        String given = System.getenv("IDEMPROXY_IMAGE_JDK");
        if (given != null && !given.isBlank()) {
            candidates.add(Path.of(given));
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (Files.isDirectory(jvms)) {
            try (var homes = Files.list(jvms)) {
                homes.sorted().forEach(candidates::add);
            }
        }
        for (Path home : candidates) {
            Path release = home.resolve("release");
            if (Files.isExecutable(home.resolve("bin/jlink")) && Files.isRegularFile(release)
                    && Files.readAllLines(release).stream().anyMatch(l -> l.startsWith("JAVA_VERSION=\"" + version + ".")
                            || l.equals("JAVA_VERSION=\"" + version + "\""))) {
                return home;
            }
        }
        return null;
    }

    private static List<String> jsonArray(String json) throws IOException {
        return List.of(new ObjectMapper().readValue(json, String[].class));
    }

    private static int status(URI uri) {
        try {
            return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** The instructions of the stage named {@code name} (null: the last stage), continuation lines joined. */
    private static List<String> stage(String name) throws IOException {
        List<List<String>> stages = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String raw : Files.readAllLines(ROOT.resolve("Dockerfile"))) {
            String line = raw.strip();
            if (line.startsWith("#") || (line.isEmpty() && current.length() == 0)) {
                continue;
            }
            boolean continued = line.endsWith("\\");
            current.append(continued ? line.substring(0, line.length() - 1).strip() + " " : line);
            if (!continued) {
                String instruction = current.toString().strip();
                current.setLength(0);
                if (instruction.startsWith("FROM ")) {
                    stages.add(new ArrayList<>());
                }
                stages.get(stages.size() - 1).add(instruction);
            }
        }
        if (name == null) {
            return stages.get(stages.size() - 1);
        }
        return stages.stream().filter(s -> s.get(0).endsWith(" AS " + name)).findFirst().orElseThrow();
    }

    /** Copies a file or a directory tree, leaving out build output ({@code target/}), as .dockerignore does. */
    private static void copy(Path from, Path to) throws IOException {
        if (Files.isRegularFile(from)) {
            Files.createDirectories(to.getParent());
            Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
            return;
        }
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                if (dir.getFileName().toString().equals("target")) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.REPLACE_EXISTING);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private record Result(int exit, String output) {}

    private static Result exec(Path dir, long timeoutSeconds, List<String> command) throws Exception {
        Path out = Files.createTempFile("exec", ".log");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new Result(-1, "timed out after " + timeoutSeconds + " s: " + Files.readString(out, StandardCharsets.UTF_8));
        }
        String output = Files.readString(out, StandardCharsets.UTF_8);
        Files.delete(out);
        return new Result(p.exitValue(), output.length() > 20_000 ? output.substring(output.length() - 20_000) : output);
    }
}
