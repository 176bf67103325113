package dev.idemproxy.app.cli;

import static dev.idemproxy.app.admin.CallRecordsFixture.deadLetter;
import static dev.idemproxy.app.admin.CallRecordsFixture.receipt;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.app.admin.AdminServer;
import dev.idemproxy.app.admin.CallRecordsEndpoints;
import dev.idemproxy.app.admin.CallRecordsFixture;
import dev.idemproxy.app.admin.FakeProxyListener;
import dev.idemproxy.app.admin.MetricsSetup;
import dev.idemproxy.core.AdminPolicy;
import dev.idemproxy.core.HostPort;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.memory.MemoryStore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class CallRecordsCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN = "cli-token";

    private final Stores store =
            MemoryStore.create(1000, Clock.fixed(CallRecordsFixture.T0, ZoneOffset.UTC));
    private StringWriter out;
    private StringWriter err;
    private MetricsSetup metrics;
    private FakeProxyListener proxy;
    private AdminServer server;

    @BeforeEach
    void setUp() throws Exception {
        metrics = new MetricsSetup();
        proxy = new FakeProxyListener();
        server = new AdminServer(new AdminPolicy(new HostPort("127.0.0.1", 0), TOKEN), metrics.registry(),
                () -> true, Map::of, CallRecordsEndpoints.routes(store, proxy::address, Duration.ofSeconds(10)))
                .start();
        store.receipts().putReceipt(receipt("c-1", "order-42", 0), Duration.ofHours(1)).toCompletableFuture().join();
        for (int i = 1; i <= 3; i++) {
            store.deadLetters().addDeadLetter(deadLetter("d-" + i, i)).toCompletableFuture().join();
        }
    }

    @AfterEach
    void tearDown() {
        server.close();
        proxy.close();
        metrics.close();
        store.close();
    }

    private int run(String... args) {
        out = new StringWriter();
        err = new StringWriter();
        CommandLine cl = IdemproxyCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    /** The verb's arguments plus the admin URL and token of the test server. */
    private int admin(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--admin");
        all.add("http://127.0.0.1:" + server.port());
        all.add("--token");
        all.add(TOKEN);
        return run(all.toArray(String[]::new));
    }

    private JsonNode output() throws Exception {
        return JSON.readTree(out.toString());
    }

    @Test
    void receiptsGetPrintsTheReceiptAsIndentedJson() throws Exception {
        assertThat(admin("receipts", "get", "c-1")).as(err.toString()).isEqualTo(0);

        assertThat(output().get("callId").asText()).isEqualTo("c-1");
        assertThat(out.toString()).contains("\n  \"bizId\" : \"order-42\"");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void receiptsGetByBizIdListsThem() throws Exception {
        assertThat(admin("receipts", "get", "--biz-id", "order-42")).isEqualTo(0);

        assertThat(output().get("receipts").get(0).get("callId").asText()).isEqualTo("c-1");
    }

    @Test
    void anUnknownReceiptExitsOneWithItsNotFoundBody() throws Exception {
        assertThat(admin("receipts", "get", "nope")).isEqualTo(1);

        assertThat(output().get("status").asText()).isEqualTo("NOT_FOUND");
        assertThat(err.toString().strip()).isEqualTo("idemproxy: GET /receipts/nope: HTTP 404: NOT_FOUND");
    }

    @Test
    void receiptsGetNeedsExactlyOneOfCallIdAndBizId() {
        assertThat(admin("receipts", "get")).isEqualTo(2);
        assertThat(err.toString()).contains("exactly one of them");
        assertThat(admin("receipts", "get", "c-1", "--biz-id", "b")).isEqualTo(2);
    }

    @Test
    void callsListPrintsTheFilteredCallsNewestFirstAndCallsGetOneCall() throws Exception {
        store.receipts().putReceipt(receipt("c-2", "order-43", 5), Duration.ofHours(1)).toCompletableFuture().join();
        assertThat(admin("calls", "list", "--limit", "10")).as(err.toString()).isEqualTo(0);
        assertThat(output().get("calls")).extracting(c -> c.get("callId").asText()).containsExactly("c-2", "c-1");
        assertThat(admin("calls", "list", "--biz-id", "order-42", "--route", "tickets", "--status", "FAILED")).isEqualTo(0);
        assertThat(output().get("calls")).extracting(c -> c.get("callId").asText()).containsExactly("c-1");
        assertThat(admin("calls", "list", "--task", "nobody")).isEqualTo(0);
        assertThat(output().get("calls")).isEmpty();

        assertThat(admin("calls", "get", "c-2")).as(err.toString()).isEqualTo(0);
        assertThat(output().get("tries").isArray()).isTrue();
        assertThat(output().get("bizId").asText()).isEqualTo("order-43");
    }

    @Test
    void callsVerbsExitOneForAnUnknownCallAndTwoForBadFilters() {
        assertThat(admin("calls", "get", "nope")).isEqualTo(1);
        assertThat(err.toString()).contains("HTTP 404");
        assertThat(admin("calls", "list", "--status", "DONE")).isEqualTo(2);
        assertThat(err.toString()).contains("HTTP 400").contains("status 'DONE'");
        assertThat(admin("calls", "list", "--limit", "0")).isEqualTo(2);
        assertThat(run("calls")).isEqualTo(2);
        assertThat(run("calls", "get")).isEqualTo(2);
    }

    @Test
    void dlqListPrintsAPageAndItsCursor() throws Exception {
        assertThat(admin("dlq", "list", "--limit", "2")).isEqualTo(0);

        JsonNode page = output();
        assertThat(page.get("entries")).hasSize(2);
        String cursor = page.get("nextCursor").asText();

        assertThat(admin("dlq", "list", "--limit", "2", "--cursor", cursor)).isEqualTo(0);
        assertThat(output().get("entries").get(0).get("id").asText()).isEqualTo("d-3");
        assertThat(output().get("nextCursor").isNull()).isTrue();
    }

    @Test
    void aLimitOutOfRangeIsAUsageError() {
        assertThat(admin("dlq", "list", "--limit", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("--limit 0 (expected: 1..500)");
    }

    @Test
    void dlqShowPrintsTheEntryWithItsRequest() throws Exception {
        assertThat(admin("dlq", "show", "d-1")).isEqualTo(0);

        assertThat(output().get("request").get("method").asText()).isEqualTo("POST");
    }

    @Test
    void dlqShowOfAnUnknownIdExitsOne() {
        assertThat(admin("dlq", "show", "nope")).isEqualTo(1);
        assertThat(err.toString()).contains("HTTP 404: no DLQ entry nope");
    }

    @Test
    void dlqReplaySendsThroughTheListenerAndPrintsTheOutcome() throws Exception {
        assertThat(admin("dlq", "replay", "d-1")).as(err.toString()).isEqualTo(0);

        assertThat(output().get("replayed").asBoolean()).isTrue();
        assertThat(output().get("status").asInt()).isEqualTo(200);
        assertThat(proxy.received()).hasSize(1);
        assertThat(store.deadLetters().deadLetter("d-1").toCompletableFuture().join()).isEmpty();
    }

    @Test
    void dlqDeleteWithReleaseDeletesAndSaysSo() throws Exception {
        assertThat(admin("dlq", "delete", "d-2", "--release")).isEqualTo(0);

        assertThat(output().get("deleted").asBoolean()).isTrue();
        assertThat(output().get("released").asBoolean()).isTrue();
        assertThat(store.deadLetters().deadLetter("d-2").toCompletableFuture().join()).isEmpty();
        assertThat(admin("dlq", "delete", "d-2")).isEqualTo(1);
    }

    @Test
    void aWrongTokenExitsOne() {
        assertThat(run("dlq", "list", "--admin", "http://127.0.0.1:" + server.port(), "--token", "wrong"))
                .isEqualTo(1);
        assertThat(err.toString()).contains("HTTP 401");
    }

    @Test
    void anUnreachableAdminApiExitsOneWithOneLineAndNoStackTrace() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }

        assertThat(run("dlq", "list", "--admin", "http://127.0.0.1:" + closedPort)).isEqualTo(1);

        assertThat(err.toString().strip()).startsWith("idemproxy: cannot reach the admin API at http://127.0.0.1:"
                + closedPort + ": ").doesNotContain("\n").doesNotContain("\tat ");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void aBadAdminUrlIsAUsageError() {
        assertThat(run("dlq", "list", "--admin", "ftp://x")).isEqualTo(2);
        assertThat(err.toString()).contains("--admin 'ftp://x'");
    }

    @Test
    void missingVerbsAndArgumentsAreUsageErrors() {
        assertThat(run("dlq")).isEqualTo(2);
        assertThat(run("dlq", "show")).isEqualTo(2);
        assertThat(run("receipts")).isEqualTo(2);
        assertThat(run("dlq", "frobnicate")).isEqualTo(2);
    }

    @Test
    void everyVerbHasHelp() {
        for (String[] verb : List.of(new String[] {"dlq"}, new String[] {"dlq", "list"}, new String[] {"dlq", "show"},
                new String[] {"dlq", "replay"}, new String[] {"dlq", "delete"}, new String[] {"receipts", "get"})) {
            List<String> args = new ArrayList<>(List.of(verb));
            args.add("--help");
            assertThat(run(args.toArray(String[]::new))).as(String.join(" ", verb)).isEqualTo(0);
            assertThat(out.toString()).contains("Usage: idemproxy " + String.join(" ", verb));
        }
        assertThat(out.toString()).contains("--admin=URL");
    }
}
