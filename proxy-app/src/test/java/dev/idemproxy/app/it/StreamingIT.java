package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.drainUploads;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.core.testing.DrainUploadsAction;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.TestUpstream;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A 1 GiB upload through the proxy while the upstream pauses reading. This JVM runs with far
 * less memory than 1 GiB (see failsafe's argLine), so the upload only passes if the proxy
 * streams it with back-pressure instead of buffering it. Every buffer it moves is tracked at the
 * build's paranoid leak level, and the class fails if one leaks.
 */
@ExtendWith(LeakDetection.class)
class StreamingIT {
    static final long ONE_GIB = Long.getLong("upload.size", 1L << 30);
    static TestUpstream upstream;
    static RunningProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        // limits.bodyTimeout is the whole body's budget (60s by default): a gibibyte under paranoid
        // leak detection on a busy machine may legitimately take longer, as a large upload may in use.
        proxy = RunningProxy.start("limits: { bodyTimeout: 10m }\nroutes:\n  - name: uploads\n    upstream: " + upstream.uri() + "\n");
    }

    @AfterAll
    static void stop() {
        proxy.close();
        upstream.close();
    }

    @Test
    void oneGibUploadStreamsThroughWithBackPressure() throws Exception {
        DrainUploadsAction drain = drainUploads(64L << 20, Duration.ofSeconds(1));
        upstream.enqueue(drain);
        PatternStream body = new PatternStream(ONE_GIB);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest req = HttpRequest.newBuilder(proxy.uri("/upload"))
                .header("Content-Type", "application/octet-stream")
                .POST(HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofInputStream(() -> body), ONE_GIB))
                .build();
        HttpResponse<String> r = client.send(req, HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode json = new ObjectMapper().readTree(r.body());
        assertThat(json.get("bytes").asLong()).isEqualTo(ONE_GIB);
        assertThat(json.get("crc32").asText()).isEqualTo(DrainUploadsAction.crc32Hex(body.crc()));
        assertThat(drain.pauses()).isEqualTo(1);
    }

    /** Deterministic bytes, generated as read, with a running CRC32; never held in memory. */
    static final class PatternStream extends InputStream {
        private final long length;
        private final CRC32 crc = new CRC32();
        private long pos;

        PatternStream(long length) {
            this.length = length;
        }

        long crc() {
            return crc.getValue();
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (pos >= length) {
                return -1;
            }
            int n = (int) Math.min(len, length - pos);
            for (int i = 0; i < n; i++) {
                long p = pos + i;
                b[off + i] = (byte) (p * 31 + (p >>> 13));
            }
            crc.update(b, off, n);
            pos += n;
            return n;
        }
    }
}
