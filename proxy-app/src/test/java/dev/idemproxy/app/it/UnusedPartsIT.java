package dev.idemproxy.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RedisServerFixture;
import dev.idemproxy.core.testing.TestUpstream;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The parts a config does not use are not loaded (issue #34): the real jar, started with the
 * shipped JVM profile (config/jvm.options) and {@code -Xlog:class+load}, serves a protected call
 * on the embedded or memory store without loading one class of the Redis client (Lettuce), of
 * idemproxy's Redis store or of BouncyCastle (the forward proxy's CA). A Redis store does load
 * Lettuce and a {@code forwardProxy} does load BouncyCastle, which shows the log would see them.
 * Logging is set up in code (issue #43): no class of logback's XML configuration (Joran) or of an
 * XML parser loads either.
 */
@ExtendWith(LeakDetection.class)
class UnusedPartsIT {
    private static final Path PROFILE = Path.of("../config/jvm.options").toAbsolutePath();
    private static final Pattern REDIS = Pattern.compile("\\] (io\\.lettuce\\.|dev\\.idemproxy\\.core\\.store\\.redis\\.)");
    private static final Pattern BOUNCY_CASTLE = Pattern.compile("\\] org\\.bouncycastle\\.");
    /** Joran's classes but its exception, which logback's own start declares (the verifier loads it). */
    private static final Pattern XML_CONFIG = Pattern.compile(
            "\\] (ch\\.qos\\.logback\\.core\\.joran\\.(?!spi\\.JoranException )|com\\.sun\\.org\\.apache\\.xerces\\.|javax\\.xml\\.parsers\\.)");

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

    @ParameterizedTest
    @ValueSource(strings = {"embedded", "memory"})
    void aLocalStoreServesAProtectedCallWithoutLoadingRedisOrCaClasses(String store) throws Exception {
        List<String> loaded = serveOneProtectedCall("store: { type: " + store + ", embedded: { path: \""
                + dir.resolve("data") + "\" } }\n", "");
        assertThat(loaded).as("the class log sees the proxy's own classes")
                .anyMatch(l -> l.contains("] dev.idemproxy.core.ProxyServer "));
        assertThat(loaded).as("Redis classes loaded").noneMatch(l -> REDIS.matcher(l).find());
        assertThat(loaded).as("BouncyCastle classes loaded").noneMatch(l -> BOUNCY_CASTLE.matcher(l).find());
        assertThat(loaded).as("logback's XML configuration or an XML parser loaded").noneMatch(l -> XML_CONFIG.matcher(l).find());
    }

    @Test
    void aRedisStoreLoadsTheRedisClient() throws Exception {
        try (RedisServerFixture redis = RedisServerFixture.startStandalone()) {
            List<String> loaded = serveOneProtectedCall("store: { type: redis, redis: { uri: \"" + redis.uri() + "\" } }\n", "");
            assertThat(loaded).anyMatch(l -> REDIS.matcher(l).find());
            assertThat(loaded).as("BouncyCastle classes loaded").noneMatch(l -> BOUNCY_CASTLE.matcher(l).find());
        }
    }

    @Test
    void aForwardProxyLoadsTheCaButNotTheRedisClient() throws Exception {
        List<String> loaded = serveOneProtectedCall("store: { type: embedded, embedded: { path: \"" + dir.resolve("data")
                + "\" } }\n", "forwardProxy: { connect: refuse }\n");
        assertThat(loaded).anyMatch(l -> BOUNCY_CASTLE.matcher(l).find());
        assertThat(loaded).as("Redis classes loaded").noneMatch(l -> REDIS.matcher(l).find());
    }

    /** Starts the jar with the shipped profile, serves one protected POST, stops it; the classes it loaded. */
    private List<String> serveOneProtectedCall(String store, String extra) throws Exception {
        ProcessIT.Ports p = ProcessIT.Ports.pick();
        Path config = ProcessIT.writeConfig(dir, p, store, extra, ProcessIT.route("tickets", "/tickets", upstream)
                + "    idempotency: { enabled: true, methods: [POST] }\n");
        Path classes = dir.resolve("classes.log");
        try (ChildProxy child = ChildProxy.startWithJvmFlags(dir, List.of("@" + PROFILE,
                "-Xlog:class+load=info:file=" + classes), "run", "--config", config.toString())) {
            child.awaitLines("admin listening on", 1, Duration.ofSeconds(60));
            StoreIT.awaitStatus(p.admin("/readyz"), 200);
            HttpResponse<String> r = ProcessIT.client.send(HttpRequest.newBuilder(p.proxy("/tickets"))
                            .timeout(ProcessIT.WAIT).header("Idempotency-Key", "unused-parts-1")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"n\":1}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(child.transcript()).isEqualTo(200);
            child.signal("TERM");
            assertThat(child.waitFor(ProcessIT.WAIT)).as(child.transcript()).isZero();
        }
        try (Stream<String> lines = Files.lines(classes)) {
            return lines.toList();
        }
    }
}
