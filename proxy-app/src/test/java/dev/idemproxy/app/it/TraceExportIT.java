package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.app.telemetry.OtlpCollector;
import dev.idemproxy.core.testing.Await;
import dev.idemproxy.core.testing.FreePorts;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.TestUpstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A collector that is down or stuck never slows or fails a call: every call is answered, each well
 * within the 5 s an export may take (were a span's end to wait for its export, each call would
 * wait that long and its client would give up at 4 s), and the spans that could not go are
 * counted in {@code idemproxy_trace_spans_dropped_total}.
 */
@ExtendWith(LeakDetection.class)
class TraceExportIT {
    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    /** Less than an export's timeout: a call held by its spans' export would not be answered in it. */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(4);
    static final int CALLS = 20;

    TestUpstream upstream;
    RunningProxy proxy;

    @BeforeEach
    void startUpstream() {
        upstream = TestUpstream.start().defaultAction(respond(200, "ok"));
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
        upstream.close();
    }

    void startProxy(URI collector) throws Exception {
        proxy = RunningProxy.start(""
                + "telemetry: { traces: { endpoint: \"" + collector + "\" } }\n"
                + "routes:\n"
                + "  - name: tickets\n"
                + "    match: { pathPrefix: /tickets }\n"
                + "    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true }\n");
    }

    int call() throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(proxy.uri("/tickets/t")).timeout(CALL_TIMEOUT)
                .header("Idempotency-Key", UUID.randomUUID().toString()).POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    double dropped(String reason) {
        try {
            return McpWireIT.metric(proxy, "idemproxy_trace_spans_dropped_total{reason=\"" + reason + "\"}");
        } catch (Exception e) {
            throw new AssertionError("cannot read /metrics", e);
        }
    }

    @Test
    void aCollectorThatRefusesConnectionsCostsTheSpansNotTheCalls() throws Exception {
        startProxy(URI.create("http://127.0.0.1:" + FreePorts.pick() + "/v1/traces"));

        for (int i = 0; i < CALLS; i++) {
            assertThat(call()).isEqualTo(200);
        }

        // two spans a call: its SERVER span and its one try's CLIENT span
        Await.until("every span counted as dropped", Duration.ofSeconds(30), () -> dropped("export_failed") == 2 * CALLS);
        assertThat(dropped("queue_full")).isZero();
    }

    @Test
    void aCollectorThatNeverAnswersHoldsNoCall() throws Exception {
        try (OtlpCollector stuck = OtlpCollector.hanging()) {
            startProxy(stuck.endpoint());
            assertThat(call()).isEqualTo(200);
            Await.until("the first export under way, unanswered", Duration.ofSeconds(10), () -> stuck.exports() == 1);

            for (int i = 0; i < CALLS; i++) {
                assertThat(call()).isEqualTo(200);
            }

            Await.until("the stuck export counted as failed", Duration.ofSeconds(30), () -> dropped("export_failed") >= 2);
            assertThat(stuck.spans()).isEmpty();
        }
    }
}
