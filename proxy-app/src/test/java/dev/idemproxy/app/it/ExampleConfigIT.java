package dev.idemproxy.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * README "Try it", as a user runs it: the jar serves the demo's tickets service
 * ({@code demo serve}) and bin/idemproxy, as README's first command does, runs the repository's
 * {@code config/idemproxy.yaml} with the shipped JVM profile, each a child process (the proxy with
 * paranoid leak detection added through IDEMPROXY_JAVA_OPTS); the example's ports are the only change (to free ones, and its upstream to where the
 * demo service listens). The example's route protects out of the box: a keyless duplicate, and a
 * duplicate under a client key, are replayed with {@code Idempotent-Replayed: true} and the
 * service creates one ticket for each pair.
 */
class ExampleConfigIT {
    static final Path EXAMPLE = Path.of("..", "config", "idemproxy.yaml");
    /** README's first command runs the example through the launcher, with the shipped JVM profile. */
    static final Path LAUNCHER = DocBlocks.ROOT.resolve("bin/idemproxy");
    static final Duration WAIT = Duration.ofSeconds(20);
    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static final String TICKET = "{\"title\":\"printer on fire\"}";

    @TempDir
    Path dir;

    @Test
    void theExampleConfigProtectsItsRouteAgainstTheDemoService() throws Exception {
        try (ChildProxy service = ChildProxy.start(dir, "demo", "serve", "--listen", "127.0.0.1:0")) {
            String serviceUrl = group(service.awaitLine("demo tickets service listening on "),
                    "listening on (http://127\\.0\\.0\\.1:\\d+)");
            Files.writeString(dir.resolve("idemproxy.yaml"), onFreePorts(Files.readString(EXAMPLE), serviceUrl));
            try (ChildProxy proxy = ChildProxy.command(List.of(LAUNCHER.toString(), "run", "--config", "idemproxy.yaml"), dir,
                    Map.of("JAVA_HOME", System.getProperty("java.home"), "IDEMPROXY_JAVA_OPTS", "-Dio.netty.leakDetection.level=paranoid"))) {
                String port = group(proxy.awaitLine("idemproxy listening on "), "listening on \\S*:(\\d+) ");
                proxy.awaitLine("admin listening on");
                URI tickets = URI.create("http://127.0.0.1:" + port + "/tickets");

                HttpResponse<String> first = post(tickets, null);
                HttpResponse<String> again = post(tickets, null);
                assertThat(first.statusCode()).as(proxy.transcript()).isEqualTo(201);
                assertThat(first.body()).isEqualTo("{\"ticketId\":\"T-0001\",\"ticketsCreated\":1}");
                assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
                assertThat(again.statusCode()).isEqualTo(201);
                assertThat(again.body()).isEqualTo(first.body());
                assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");

                HttpResponse<String> keyed = post(tickets, "order-42");
                HttpResponse<String> keyedAgain = post(tickets, "order-42");
                assertThat(keyed.body()).isEqualTo("{\"ticketId\":\"T-0002\",\"ticketsCreated\":2}");
                assertThat(keyedAgain.body()).isEqualTo(keyed.body());
                assertThat(keyedAgain.headers().firstValue("Idempotent-Replayed")).hasValue("true");

                HttpResponse<String> count = CLIENT.send(HttpRequest.newBuilder(tickets).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(count.body()).as("through the proxy: the service ran once per pair").isEqualTo("{\"ticketsCreated\":2}");
                assertThat(service.count("created ticket")).isEqualTo(2);

                proxy.signal("TERM");
                assertThat(proxy.waitFor(WAIT)).as(proxy.transcript()).isZero();
                proxy.assertNoLeaks();
            }
            service.signal("TERM");
            assertThat(service.waitFor(WAIT)).as(service.transcript()).isZero();
            service.awaitLine("demo tickets service stopped: 2 tickets created");
        }
    }

    @Test
    void demoServeSaysWhenItCannotListen() throws Exception {
        try (ChildProxy first = ChildProxy.start(dir, "demo", "serve", "--listen", "127.0.0.1:0")) {
            String taken = group(first.awaitLine("listening on "), "listening on http://(127\\.0\\.0\\.1:\\d+)");
            ChildProxy.Finished second = ChildProxy.run(dir, "demo", "serve", "--listen", taken);
            assertThat(second.exitCode()).as(second.toString()).isEqualTo(1);
            assertThat(second.stderr()).anyMatch(l -> l.startsWith("idemproxy demo serve: cannot listen on " + taken));
            ChildProxy.Finished bad = ChildProxy.run(dir, "demo", "serve", "--listen", "8081");
            assertThat(bad.exitCode()).as(bad.toString()).isEqualTo(2);
        }
    }

    /**
     * Issue #43: README's {@code demo serve … &}, run by a script, starts it with SIGINT ignored; it
     * says so naming the tickets service, not "the proxy", and how to stop it, which then works.
     */
    @Test
    void demoServeStartedWithSigintIgnoredSaysHowToStopTheTicketsService() throws Exception {
        try (ChildProxy service = ChildProxy.startIgnoring("INT", dir, "demo", "serve", "--listen", "127.0.0.1:0")) {
            service.awaitLine("SIGINT was ignored when this process started \\(nohup, or started with & by a script\\), so it"
                    + " stays ignored: stop the tickets service with SIGTERM \\(kill PID\\)$");
            service.awaitLine("demo tickets service listening on ");
            assertThat(service.count("the proxy")).as(service.transcript()).isZero();
            assertThat(service.count("SIGHUP")).as("nothing to reload, nothing said about HUP").isZero();
            service.signal("TERM");
            assertThat(service.waitFor(WAIT)).as(service.transcript()).isZero();
        }
    }

    /**
     * The example with its two listeners on port 0 and its upstream at {@code serviceUrl}: each
     * replaced text must be there, so a reshaped example fails here rather than running untested.
     */
    static String onFreePorts(String example, String serviceUrl) {
        String yaml = example;
        for (String[] change : new String[][] {
            {"listen: 127.0.0.1:8080", "listen: 127.0.0.1:0"},
            {"listen: 127.0.0.1:9901", "listen: 127.0.0.1:0"},
            {"upstream: http://127.0.0.1:8081", "upstream: " + serviceUrl}}) {
            assertThat(yaml).as("config/idemproxy.yaml").contains(change[0]);
            yaml = yaml.replace(change[0], change[1]);
        }
        return yaml;
    }

    static HttpResponse<String> post(URI uri, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(TICKET));
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String group(String line, String regex) {
        Matcher m = Pattern.compile(regex).matcher(line);
        assertThat(m.find()).as("%s in %s", regex, line).isTrue();
        return m.group(1);
    }
}
