package dev.idemproxy.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idemproxy.core.ProxyConfig;
import dev.idemproxy.core.route.McpPolicy;
import dev.idemproxy.core.route.McpPolicy.Protect;
import dev.idemproxy.core.route.McpPolicy.ToolRule;
import dev.idemproxy.core.route.Route;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code routes[].mcp} keys (docs/configuration.md, docs/mcp.md) onto {@link McpPolicy}. */
class McpConfigTest {
    private final YamlConfigLoader loader = new YamlConfigLoader(Map.<String, String>of()::get);

    private static final String TOOLS_ROUTE = "routes:\n"
            + "  - name: tools\n"
            + "    match: { pathPrefix: /mcp }\n"
            + "    upstream: http://127.0.0.1:3001\n";

    private ProxyConfig parse(String yaml) throws InvalidConfigException {
        return loader.parse(yaml, "test.yaml", Path.of(""));
    }

    private List<String> problems(String yaml) {
        InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class, () -> parse(yaml));
        assertThat(e).as("problems of %s", yaml).isNotNull();
        return e.problems().stream().map(ConfigProblem::toString).toList();
    }

    @Test
    void theContractsMcpRouteLoads() throws Exception {
        Route route = parse(TOOLS_ROUTE
                + "    mcp:\n"
                + "      enabled: true\n"
                + "      protect: unlessReadOnly\n"
                + "      tools: { search_docs: pass, create_ticket: protect }\n"
                + "      window: 10m\n"
                + "    idempotency: { ttl: 24h, scope: [header:Authorization] }\n").routes().get(0);

        assertThat(route.mcp()).isEqualTo(new McpPolicy(true, Protect.UNLESS_READ_ONLY,
                Map.of("search_docs", ToolRule.PASS, "create_ticket", ToolRule.PROTECT), Duration.ofMinutes(10)));
        assertThat(route.isMcp()).isTrue();
        assertThat(route.idempotency().enabled()).as("tools/call protection comes from mcp.enabled").isFalse();
    }

    @Test
    void omittedKeysTakeTheDefaultsAndARouteWithoutMcpIsNoMcpRoute() throws Exception {
        assertThat(parse(TOOLS_ROUTE + "    mcp: { enabled: true }\n").routes().get(0).mcp())
                .isEqualTo(new McpPolicy(true, Protect.UNLESS_READ_ONLY, Map.of(), Duration.ofMinutes(10)));
        Route plain = parse(TOOLS_ROUTE).routes().get(0);
        assertThat(plain.mcp()).isEqualTo(McpPolicy.DISABLED);
        assertThat(plain.isMcp()).isFalse();
        assertThat(parse(TOOLS_ROUTE + "    mcp: { enabled: true, protect: all, tools: {} }\n").routes().get(0).mcp().protect())
                .isEqualTo(Protect.ALL);
    }

    @Test
    void toolNamesMayBeAnyNameTheServerUses() throws Exception {
        McpPolicy p = parse(TOOLS_ROUTE + "    mcp:\n      enabled: true\n      tools:\n        \"files.read/v2\": pass\n        Send-Mail: protect\n")
                .routes().get(0).mcp();

        assertThat(p.tools()).isEqualTo(Map.of("files.read/v2", ToolRule.PASS, "Send-Mail", ToolRule.PROTECT));
    }

    @Test
    void badValuesAreReportedWithTheirPosition() {
        assertThat(problems(TOOLS_ROUTE
                + "    mcp:\n"
                + "      enabled: yes\n"
                + "      protect: readOnly\n"
                + "      tools: { search_docs: skip, create_ticket: [protect], send: ~ }\n"
                + "      window: 0s\n"
                + "      windw: 5m\n"))
                .containsExactly(
                        "test.yaml:6:16: routes[0].mcp.enabled: expected true or false, got 'yes'",
                        "test.yaml:7:16: routes[0].mcp.protect: 'readOnly' (expected one of: unlessReadOnly, all, none)",
                        "test.yaml:8:29: routes[0].mcp.tools.search_docs: 'skip' (expected one of: pass, protect)",
                        "test.yaml:8:50: routes[0].mcp.tools.create_ticket: expected pass or protect, got a list",
                        "test.yaml:8:67: routes[0].mcp.tools.send: expected pass or protect, got nothing",
                        "test.yaml:9:15: routes[0].mcp.window: 0s (expected: > 0)",
                        "test.yaml:10:7: routes[0].mcp.windw: unknown key (expected one of: enabled, protect, tools, window)");
    }

    @Test
    void wrongShapesAreReported() {
        assertThat(problems(TOOLS_ROUTE + "    mcp: true\n"))
                .containsExactly("test.yaml:5:10: routes[0].mcp: expected a map, got a boolean");
        assertThat(problems(TOOLS_ROUTE + "    mcp: { tools: [search_docs] }\n"))
                .containsExactly("test.yaml:5:19: routes[0].mcp.tools: expected a map, got a list");
        assertThat(problems(TOOLS_ROUTE + "    mcp:\n      tools:\n        a: pass\n        a: protect\n"))
                .containsExactly("test.yaml:8:9: routes[0].mcp.tools.a: duplicate key (first at line 7)");
        assertThat(problems(TOOLS_ROUTE + "    mcp:\n      window: ${MCP_WINDOW}\n"))
                .containsExactly("test.yaml:6:15: routes[0].mcp.window: environment variable MCP_WINDOW is not set");
    }

    @Test
    void theEffectiveConfigShowsTheMcpKeys() throws Exception {
        ProxyConfig config = parse(TOOLS_ROUTE + "    mcp: { enabled: true, protect: all, tools: { z: pass, a: protect }, window: 90s }\n");

        Map<?, ?> route = (Map<?, ?>) ((List<?>) ConfigDescriber.effectiveConfig(config).get("routes")).get(0);

        assertThat(route.get("mcp")).isEqualTo(Map.of("enabled", true, "protect", "all",
                "tools", Map.of("a", "protect", "z", "pass"), "window", "1m30s"));
        assertThat(((Map<?, ?>) route.get("mcp")).get("tools").toString()).isEqualTo("{a=protect, z=pass}");
    }

    @Test
    void theRouteTableSaysAnMcpRouteProtectsToolCalls() throws Exception {
        assertThat(ConfigDescriber.routeTable(parse(TOOLS_ROUTE + "    mcp: { enabled: true }\n")))
                .isEqualTo("ROUTE  MATCH       UPSTREAM               PROTECTS    ATTEMPTS  TAGS\n"
                        + "tools  path=/mcp*  http://127.0.0.1:3001  tools/call  1         -");
    }
}
