package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.delayHead;
import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.app.cli.IdemproxyCommand;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.testing.RecordedRequest;
import dev.idemproxy.core.testing.TestUpstream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * CONTRACT §12 "Secrets never leave the proxy in clear", end to end on a real proxy and
 * upstream: a call carrying every kind of secret is dead-lettered; the admin API, the CLI, the
 * config view and the log lines show none of them, while the DLQ replay still reaches the same
 * URL and authenticates with the header the route keeps for it.
 */
@ExtendWith(LeakDetection.class)
class SecretsIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    private static final String BEARER = "bearer-" + RUN;
    private static final Map<String, String> SECRET_HEADERS = Map.of(
            "Authorization", "Bearer " + BEARER,
            "Cookie", "session=cookie-" + RUN,
            "X-Api-Key", "xapikey-" + RUN,
            "Api-Key", "apikey-" + RUN,
            "X-Auth-Token", "xauth-" + RUN);
    private static final String QUERY = "?api_key=qkey-" + RUN + "&Sig=qsig-" + RUN + "&page=2&token=qtok-" + RUN;
    private static final String UPSTREAM_PASSWORD = "upw-" + RUN;
    private static final String RECEIPT_KEY = "rkey-" + RUN;

    private static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
    private static final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private static TestUpstream upstream;
    private static RunningProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        logged.start();
        root.addAppender(logged);
        upstream = TestUpstream.start();
        String base = upstream.uri().toString().replace("http://", "http://bot:" + UPSTREAM_PASSWORD + "@");
        proxy = RunningProxy.start(""
                + "secretHeaders: [X-Auth-Token]\n"
                + "secretQueryParams: [sig]\n"
                + "routes:\n"
                + "  - name: payments\n"
                + "    match: { pathPrefix: /pay }\n"
                + "    upstream: " + base + "/v1\n"
                + "    timeouts: { perTry: 300ms, total: 5s }\n"
                + "    idempotency: { enabled: true }\n"
                + "    receipt: { url: \"" + upstream.uri() + "/receipts/{callId}?api_key=" + RECEIPT_KEY + "\" }\n"
                + "    deadLetter: { keepHeaders: [Authorization] }\n");
    }

    @AfterAll
    static void stop() {
        try {
            proxy.close();
            upstream.close();
        } finally {
            root.detachAppender(logged);
        }
    }

    @Test
    void aDeadLetteredCallsSecretsAreShownNowhereYetItsReplayReachesTheSameUrlAuthenticated() throws Exception {
        upstream.enqueue(delayHead(Duration.ofSeconds(2), respond(200, "late")));
        HttpRequest.Builder b = HttpRequest.newBuilder(proxy.uri("/pay/charges" + QUERY)).header("Idempotency-Key", "k-" + RUN)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"amount\":5}"));
        SECRET_HEADERS.forEach(b::header);
        HttpResponse<String> failed = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(failed.statusCode()).isEqualTo(504);
        assertNoSecret("the problem answer", failed.body());
        String callId = failed.headers().firstValue("X-Call-Id").orElseThrow();
        String entryId = entryFor(callId);

        JsonNode shown = admin("GET", "/dlq/" + entryId);
        assertNoSecret("GET /dlq/{id}", shown.toString());
        JsonNode request = shown.get("request");
        assertThat(request.get("uri").asText())
                .isEqualTo("/pay/charges?api_key=***&Sig=***&page=2&token=***");
        for (JsonNode h : request.get("headers")) {
            if (SECRET_HEADERS.containsKey(h.get("name").asText())) {
                assertThat(h.get("value").asText()).as(h.get("name").asText()).isEqualTo("***");
            }
        }
        assertThat(names(request.get("headers"))).containsAll(SECRET_HEADERS.keySet());

        String cliShow = cli("dlq", "show", entryId, "--admin", proxy.admin("").toString());
        assertThat(cliShow).contains("api_key=***");
        assertNoSecret("idemproxy dlq show", cliShow);

        JsonNode config = admin("GET", "/config");
        assertNoSecret("GET /config", config.toString());
        JsonNode route = config.get("routes").get(0);
        assertThat(route.get("upstream").asText()).isEqualTo("http://***@" + upstream.uri().getAuthority() + "/v1");
        assertThat(route.get("receipt").get("url").asText()).endsWith("/receipts/{callId}?api_key=***");

        upstream.enqueue(respond(201, "charged"));
        int before = upstream.requestCount();
        assertThat(admin("POST", "/dlq/" + entryId + "/replay").get("status").asInt()).isEqualTo(201);
        RecordedRequest resent = upstream.awaitRequests(before + 1, Duration.ofSeconds(5)).get(before);
        assertThat(resent.uri()).as("the replay reaches the same URL").isEqualTo("/v1/pay/charges" + QUERY);
        assertThat(resent.header("Authorization")).as("kept for replays").isEqualTo("Bearer " + BEARER);
        assertThat(resent.header("X-Auth-Token")).as("not kept: not re-sent").isNull();
        assertThat(resent.header("Cookie")).isNull();

        List<String> lines = new ArrayList<>();
        List<ILoggingEvent> events;
        synchronized (logged) {  // appenders append under their own lock
            events = List.copyOf(logged.list);
        }
        for (ILoggingEvent e : events) {
            lines.add(e.getFormattedMessage() + " " + e.getKeyValuePairs());
        }
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("path=\"/pay/charges?api_key=***&Sig=***&page=2&token=***\""));
        for (String line : lines) {
            assertNoSecret("log line", line);
        }
    }

    /** Every secret of this class carries RUN; the call's idempotency key (k-RUN) is no secret. */
    private static void assertNoSecret(String where, String text) {
        assertThat(text.replace("k-" + RUN, "k-")).as(where).doesNotContain(RUN);
    }

    private static List<String> names(JsonNode headers) {
        List<String> names = new ArrayList<>();
        headers.forEach(h -> names.add(h.get("name").asText()));
        return names;
    }

    private static String cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = IdemproxyCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute(args)).as("exit code; stderr: %s", err).isZero();
        return out + err.toString();
    }

    private static JsonNode admin(String method, String path) throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(proxy.admin(path))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    private static String entryFor(String callId) throws Exception {
        for (JsonNode e : admin("GET", "/dlq?limit=500").get("entries")) {
            if (e.get("callId").asText().equals(callId)) {
                return e.get("id").asText();
            }
        }
        throw new AssertionError("no DLQ entry for call " + callId);
    }
}
