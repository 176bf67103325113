package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idemproxy.core.secret.PrivateFiles;
import dev.idemproxy.core.testing.FreePorts;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.TestUpstream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded store across real process deaths: a call completed before a {@code kill -9} is
 * replayed by the next process on the same data directory, never executed again; a second
 * process on a directory in use refuses to start, in one line, with exit 1; and the directory
 * and its files are owner-only, whatever their modes before a start.
 */
@ExtendWith(LeakDetection.class)
class EmbeddedStoreProcessIT {
    static final Duration WAIT = Duration.ofSeconds(15);
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    static TestUpstream upstream;

    @TempDir
    Path dir;

    @BeforeAll
    static void startUpstream() {
        upstream = TestUpstream.start();
    }

    @AfterAll
    static void stopUpstream() {
        upstream.close();
    }

    /** A config on fresh ports whose embedded store lives in {@code dir/data}. */
    Path config(String name, int listen, int admin) throws Exception {
        String yaml = "listen: 127.0.0.1:" + listen + "\n"
                + "admin: { listen: 127.0.0.1:" + admin + " }\n"
                + "store: { type: embedded, embedded: { path: " + dir.resolve("data") + " } }\n"
                + "routes:\n"
                + "  - name: orders\n"
                + "    match: { pathPrefix: /orders }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true }\n";
        return Files.writeString(dir.resolve(name), yaml, UTF_8);
    }

    static ChildProxy startRun(Path config) throws InterruptedException {
        ChildProxy child = ChildProxy.start(config.getParent(), "run", "--config", config.toString());
        try {
            child.awaitLine("admin listening on");
            return child;
        } catch (AssertionError | InterruptedException e) {
            child.close();
            throw e;
        }
    }

    static HttpResponse<byte[]> order(int port, String key) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders")).timeout(WAIT)
                        .header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"A-1\"}")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void aCallCompletedBeforeKill9IsReplayedByTheNextProcessNotExecutedAgain() throws Exception {
        int[] ports = FreePorts.pick(2);
        Path cfg = config("idemproxy.yaml", ports[0], ports[1]);
        String key = UUID.randomUUID().toString();
        int before = upstream.requestCount();
        HttpResponse<byte[]> first;
        try (ChildProxy doomed = startRun(cfg)) {
            upstream.enqueue(respond(201, Map.of("Content-Type", "application/json"), "{\"order\":\"O-1\"}"));
            first = order(ports[0], key);
            assertThat(first.statusCode()).isEqualTo(201);
            // Killed the moment the answer is in: the response's last bytes go out only once its
            // record is committed to the file, so nothing the caller saw can be missing after this.
            ProcessHandle.of(doomed.pid()).ifPresent(ProcessHandle::destroyForcibly);  // kill -9: no shutdown hook runs
            assertThat(doomed.waitFor(WAIT)).as(doomed.transcript()).isNotZero();
        }
        try (ChildProxy next = startRun(cfg)) {
            HttpResponse<byte[]> dup = order(ports[0], key);
            assertThat(dup.statusCode()).isEqualTo(201);
            assertThat(dup.body()).isEqualTo(first.body());
            assertThat(dup.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(dup.headers().firstValue("X-Call-Id")).isEqualTo(first.headers().firstValue("X-Call-Id"));
            assertThat(upstream.requestCount()).isEqualTo(before + 1);
            next.assertNoLeaks();
        }
    }

    /** docs/security.md "Files": the data directory and what is in it are owner-only, made so at every start. */
    @Test
    void theDataDirectoryAndItsFilesAreOwnerOnlyFromTheFirstStartAndAgainAtEachStart() throws Exception {
        assumeTrue(PrivateFiles.supportsPosix(dir));
        int[] ports = FreePorts.pick(2);
        Path cfg = config("idemproxy.yaml", ports[0], ports[1]);
        Path data = dir.resolve("data");
        Path file = data.resolve("0000000000000001.log");  // the log's first segment (idemproxy.lock beside it)
        String key = UUID.randomUUID().toString();
        try (ChildProxy first = startRun(cfg)) {
            upstream.enqueue(respond(201, "made"));
            assertThat(order(ports[0], key).statusCode()).isEqualTo(201);
            assertThat(mode(data)).isEqualTo("rwx------");
            assertThat(mode(file)).isEqualTo("rw-------");
            assertThat(mode(data.resolve("idemproxy.lock"))).isEqualTo("rw-------");
            first.signal("TERM");
            assertThat(first.waitFor(WAIT)).isZero();
        }
        Path sub = Files.createDirectory(data.resolve("notes"));
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        Files.setPosixFilePermissions(sub, PosixFilePermissions.fromString("rwxrwxrwx"));

        try (ChildProxy next = startRun(cfg)) {
            assertThat(mode(data)).isEqualTo("rwx------");
            assertThat(mode(file)).isEqualTo("rw-------");
            assertThat(mode(sub)).isEqualTo("rwx------");
            HttpResponse<byte[]> dup = order(ports[0], key);
            assertThat(dup.headers().firstValue("Idempotent-Replayed")).as("the records are kept").hasValue("true");
            assertThat(next.lines()).noneMatch(l -> l.text().contains("cannot take group and other permissions"));
        }
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void aSecondProcessOnADataDirectoryInUseExits1WithOneLine() throws Exception {
        int[] ports = FreePorts.pick(4);
        try (ChildProxy owner = startRun(config("first.yaml", ports[0], ports[1]))) {
            ChildProxy.Finished second = ChildProxy.run(dir, "run", "--config", config("second.yaml", ports[2], ports[3]).toString());
            assertThat(second.exitCode()).as(second.toString()).isEqualTo(1);
            assertThat(second.stderr()).as(second.toString()).hasSize(1);
            assertThat(second.stderr().get(0)).startsWith("idemproxy: cannot open the embedded store at ")
                    .contains("is in use by another process");
            assertThat(second.lines()).as(second.toString())
                    .noneMatch(l -> l.text().contains("at dev.") || l.text().contains("Exception in thread")
                            || l.text().contains("at org.h2."));
            assertThat(owner.isAlive()).isTrue();
        }
    }
}
