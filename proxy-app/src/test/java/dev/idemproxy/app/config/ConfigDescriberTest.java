package dev.idemproxy.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.core.ProxyConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigDescriberTest {
    private final YamlConfigLoader loader = new YamlConfigLoader(Map.of("IDEMPROXY_ADMIN_TOKEN", "t0p-secret")::get);

    @Test
    void routeTableHasOneAlignedLinePerRoute() throws Exception {
        ProxyConfig config = loader.parse("routes:\n"
                + "  - name: tickets\n"
                + "    match: { host: tickets.internal, pathPrefix: /api/tickets, methods: [POST, GET] }\n"
                + "    upstream: https://tickets.internal:8443\n"
                + "    tags: [idempotent]\n"
                + "    idempotency: { enabled: true }\n"
                + "    retry: { maxAttempts: 4 }\n"
                + "  - name: echo\n"
                + "    upstream: http://127.0.0.1:8081\n", "t.yaml", Path.of(""));

        assertThat(ConfigDescriber.routeTable(config)).isEqualTo(String.join("\n",
                "ROUTE    MATCH                                                      UPSTREAM                       "
                        + "PROTECTS               ATTEMPTS  TAGS",
                "tickets  host=tickets.internal path=/api/tickets* methods=GET,POST  https://tickets.internal:8443  "
                        + "POST,PUT,PATCH,DELETE  4         idempotent",
                "echo     *                                                          http://127.0.0.1:8081          "
                        + "-                      1         -"));
    }

    @Test
    void anMcpRouteSaysWhichToolsItProtectsAndWhereTheirKeysComeFrom() throws Exception {
        ProxyConfig config = loader.parse("routes:\n"
                + "  - name: tools\n"
                + "    match: { pathPrefix: /mcp }\n"
                + "    upstream: http://127.0.0.1:3001\n"
                + "    mcp: { enabled: true, tools: { search_docs: pass, create_ticket: protect, close_ticket: protect } }\n"
                + "    idempotency: { scope: [header:Authorization] }\n"
                + "  - name: all\n"
                + "    match: { pathPrefix: /all }\n"
                + "    upstream: http://127.0.0.1:3002\n"
                + "    mcp: { enabled: true, protect: none, tools: { create_ticket: protect }, window: 1h }\n", "t.yaml", Path.of(""));

        assertThat(ConfigDescriber.keySources(config)).containsExactly(
                "route tools (MCP): protects tools/call of every tool but those the server's tools/list marks readOnlyHint,"
                        + " and always [close_ticket, create_ticket], never [search_docs]; key from header Idempotency-Key,"
                        + " else derived from the tool's name and arguments within 10m; scoped by [header:Authorization]",
                "route all (MCP): protects tools/call of no tool but [create_ticket]; key from header Idempotency-Key,"
                        + " else derived from the tool's name and arguments within 1h; scoped by credential headers"
                        + " [Authorization, Proxy-Authorization, Cookie, X-Api-Key, Api-Key]");
    }

    @Test
    void eachInterceptedHostIsShownWithTheCasFiles(@TempDir Path dir) throws Exception {
        ProxyConfig config = loader.parse("forwardProxy: { connect: refuse, ca: { cert: ca/ca.crt, key: ca/ca.key } }\n"
                + "routes:\n"
                + "  - name: stripe\n"
                + "    match: { host: api.stripe.com }\n"
                + "    intercept: true\n"
                + "  - name: openai\n"
                + "    match: { host: api.openai.com }\n"
                + "    intercept: true\n", "t.yaml", dir);
        String ca = dir.resolve("ca/ca.crt").toAbsolutePath() + " (key " + dir.resolve("ca/ca.key").toAbsolutePath();

        assertThat(ConfigDescriber.interception(config)).containsExactly(
                "route stripe: intercepts CONNECTs to api.stripe.com, with certificates from the CA " + ca
                        + "; not there yet: made at start or by idemproxy ca cert)",
                "route openai: intercepts CONNECTs to api.openai.com, with certificates from the CA " + ca
                        + "; not there yet: made at start or by idemproxy ca cert)",
                "forwardProxy: CONNECTs to other hosts refused (403 connect-refused)");
        assertThat(ConfigDescriber.interception(loader.parse("routes: []\n", "t.yaml", dir))).isEmpty();
        assertThat(ConfigDescriber.interception(loader.parse("forwardProxy: {}\n", "t.yaml", dir))).containsExactly(
                "forwardProxy: CONNECTs to any host (no route intercepts) tunnelled blind; the CA "
                        + dir.resolve("idemproxy-data/ca.crt").toAbsolutePath() + " (key "
                        + dir.resolve("idemproxy-data/ca.key").toAbsolutePath()
                        + "; not there yet: made at start or by idemproxy ca cert)");
    }

    @Test
    void routeTableOfNoRoutesSaysSo() {
        assertThat(ConfigDescriber.routeTable(ProxyConfig.empty())).isEqualTo("(no routes)");
    }

    @Test
    void effectiveConfigRedactsSecrets() throws Exception {
        ProxyConfig config = loader.parse("admin: { token: \"${IDEMPROXY_ADMIN_TOKEN}\" }\n"
                + "store: { type: redis, redis: { uri: \"redis://user:hunter2@cache:6379\" } }\n", "t.yaml", Path.of(""));

        Map<String, Object> tree = ConfigDescriber.effectiveConfig(config);
        String json = new ObjectMapper().writeValueAsString(tree);

        assertThat(json).doesNotContain("t0p-secret").doesNotContain("hunter2");
        assertThat(((Map<?, ?>) tree.get("admin")).get("token")).isEqualTo("***");
        assertThat(((Map<?, ?>) ((Map<?, ?>) tree.get("store")).get("redis")).get("uri"))
                .isEqualTo("redis://***@cache:6379");
    }

    @Test
    void upstreamAndReceiptUrlsShowNoUserInfoNorSecretQueryValues() throws Exception {
        ProxyConfig config = loader.parse("secretQueryParams: [sig]\n"
                + "routes:\n"
                + "  - name: tickets\n"
                + "    upstream: https://bot:pa55word@tickets.internal:8443/base\n"
                + "    receipt: { url: \"https://tickets.internal:8443/receipts/{callId}?api_key=k3y&sig=s1g&v=2\" }\n",
                "t.yaml", Path.of(""));

        Map<String, Object> tree = ConfigDescriber.effectiveConfig(config);
        Map<?, ?> route = (Map<?, ?>) ((List<?>) tree.get("routes")).get(0);

        assertThat(route.get("upstream")).isEqualTo("https://***@tickets.internal:8443/base");
        assertThat(((Map<?, ?>) route.get("receipt")).get("url"))
                .isEqualTo("https://tickets.internal:8443/receipts/{callId}?api_key=***&sig=***&v=2");
        assertThat(tree.get("secretQueryParams")).isEqualTo(List.of("sig"));
        assertThat(new ObjectMapper().writeValueAsString(tree)).doesNotContain("pa55word").doesNotContain("k3y")
                .doesNotContain("s1g");
        assertThat(ConfigDescriber.routeTable(config)).contains("https://***@tickets.internal:8443/base")
                .doesNotContain("pa55word");
    }

    @Test
    void effectiveConfigOfTheContractExampleUsesTheYamlKeysAndSpellings() throws Exception {
        ProxyConfig config = loader.load(Path.of("src/test/resources/config/valid/contract-example.yaml"));

        Map<String, Object> tree = ConfigDescriber.effectiveConfig(config);
        Map<?, ?> route = (Map<?, ?>) ((List<?>) tree.get("routes")).get(0);
        Map<?, ?> retry = (Map<?, ?>) route.get("retry");
        Map<?, ?> idempotency = (Map<?, ?>) route.get("idempotency");

        assertThat(tree.keySet()).containsExactly("listen", "shutdown", "admin", "server", "limits", "store", "tasks",
                "retryBudget", "secretHeaders", "secretQueryParams", "routes");
        assertThat(tree.get("shutdown")).isEqualTo(Map.of("grace", "20s"));
        assertThat(retry.get("retryOn")).isEqualTo(List.of("connect-failure", "read-timeout", "reset", "429", "502", "503", "504"));
        assertThat(idempotency.get("maxResponseBody")).isEqualTo("4MiB");
        assertThat(idempotency.get("methods")).isEqualTo(List.of("POST", "PUT", "PATCH", "DELETE"));
        assertThat(((Map<?, ?>) route.get("receipt")).get("url")).isEqualTo("https://tickets.internal:8443/receipts/{callId}");
        assertThat(new ObjectMapper().writeValueAsString(tree)).contains("\"jitter\":\"full\"");
    }
}
