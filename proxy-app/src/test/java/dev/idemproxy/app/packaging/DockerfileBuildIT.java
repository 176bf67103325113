package dev.idemproxy.app.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a Docker engine would do with the Dockerfile, without one (none runs here): the build
 * stage's Maven command runs in a directory holding only what that stage copies, so a source the
 * Dockerfile forgets fails this build; and the runtime stage's class-data archive is made and
 * used with the same commands and options as in the image, against the jar this build made.
 */
class DockerfileBuildIT {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path JAR = Path.of("target/idemproxy.jar").toAbsolutePath();

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

    @Test
    void theRuntimeStagesClassDataArchiveIsMadeAndUsed(@TempDir Path dir) throws Exception {
        List<String> runtime = stage(null);
        String make = runtime.stream().filter(l -> l.startsWith("RUN java -XX:ArchiveClassesAtExit=")).findFirst().orElseThrow();
        assertThat(make).contains("@/etc/idemproxy/jvm.options").contains("-jar /app/idemproxy.jar demo");
        assertThat(JAR).as("built by package").isRegularFile();
        Path jsa = dir.resolve("idemproxy.jsa");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String options = "@" + ROOT.resolve("config/jvm.options");

        Result train = exec(dir, 120, List.of(java, "-XX:ArchiveClassesAtExit=" + jsa, options, "-jar", JAR.toString(), "demo"));
        assertThat(train.exit).as(train.output).isZero();
        assertThat(jsa).isRegularFile();
        // -Xshare:on fails the start when the archive cannot be mapped or does not match.
        Result use = exec(dir, 60, List.of(java, "-XX:SharedArchiveFile=" + jsa, "-Xshare:on", options, "-jar", JAR.toString(),
                "--version"));
        assertThat(use.exit).as(use.output).isZero();
        assertThat(use.output).contains("idemproxy");
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
