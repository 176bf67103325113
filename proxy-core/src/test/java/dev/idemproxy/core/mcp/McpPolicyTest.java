package dev.idemproxy.core.mcp;

import dev.idemproxy.core.route.McpPolicy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idemproxy.core.route.McpPolicy.Protect;
import dev.idemproxy.core.route.McpPolicy.ToolRule;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class McpPolicyTest {
    private static final Duration W = Duration.ofMinutes(10);

    private static ToolCatalogue listing(ToolInfo... tools) {
        ToolCatalogue c = new ToolCatalogue();
        c.apply(null, new ToolsListPage(List.of(tools), null));
        return c;
    }

    @Test
    void unlessReadOnlyProtectsEveryToolBeforeAnyList() {
        McpPolicy p = new McpPolicy(true, Protect.UNLESS_READ_ONLY, Map.of(), W);

        assertThat(p.protects("search_docs", new ToolCatalogue()::isReadOnly)).isTrue();
    }

    @Test
    void unlessReadOnlyPassesToolsTheLatestListMarksReadOnly() {
        McpPolicy p = new McpPolicy(true, Protect.UNLESS_READ_ONLY, Map.of(), W);
        ToolCatalogue c = listing(new ToolInfo("search_docs", true, false), new ToolInfo("create_ticket", false, false));

        assertThat(p.protects("search_docs", c::isReadOnly)).isFalse();
        assertThat(p.protects("create_ticket", c::isReadOnly)).isTrue();
        assertThat(p.protects("not_listed", c::isReadOnly)).isTrue();
    }

    @Test
    void allAndNoneIgnoreAnnotations() {
        ToolCatalogue c = listing(new ToolInfo("search_docs", true, false), new ToolInfo("create_ticket", false, false));

        assertThat(new McpPolicy(true, Protect.ALL, Map.of(), W).protects("search_docs", c::isReadOnly)).isTrue();
        assertThat(new McpPolicy(true, Protect.NONE, Map.of(), W).protects("create_ticket", c::isReadOnly)).isFalse();
    }

    @Test
    void perToolOverridesWin() {
        ToolCatalogue c = listing(new ToolInfo("search_docs", true, false), new ToolInfo("create_ticket", false, false));
        Map<String, ToolRule> tools = Map.of("search_docs", ToolRule.PROTECT, "create_ticket", ToolRule.PASS);

        assertThat(new McpPolicy(true, Protect.UNLESS_READ_ONLY, tools, W).protects("search_docs", c::isReadOnly)).isTrue();
        assertThat(new McpPolicy(true, Protect.ALL, tools, W).protects("create_ticket", c::isReadOnly)).isFalse();
        assertThat(new McpPolicy(true, Protect.NONE, tools, W).protects("search_docs", c::isReadOnly)).isTrue();
    }

    @Test
    void aDisabledPolicyProtectsNothing() {
        assertThat(McpPolicy.DISABLED.protects("create_ticket", new ToolCatalogue()::isReadOnly)).isFalse();
        assertThat(new McpPolicy(false, Protect.ALL, Map.of("x", ToolRule.PROTECT), W).protects("x", new ToolCatalogue()::isReadOnly)).isFalse();
    }

    @Test
    void impossibleValuesAreRejected() {
        assertThatThrownBy(() -> new McpPolicy(true, Protect.ALL, Map.of(), Duration.ZERO))
                .hasMessage("window: PT0S (expected: > 0)");
        assertThatThrownBy(() -> new McpPolicy(true, Protect.ALL, Map.of("", ToolRule.PASS), W))
                .hasMessageContaining("empty tool name");
        Map<String, ToolRule> many = new HashMap<>();
        for (int i = 0; i <= McpPolicy.MAX_TOOL_RULES; i++) {
            many.put("t" + i, ToolRule.PASS);
        }
        assertThatThrownBy(() -> new McpPolicy(true, Protect.ALL, many, W)).hasMessageContaining("(expected: at most 1000)");
    }

    @Test
    void spellingsAreTheContracts() {
        assertThat(List.of(Protect.values())).extracting(Protect::spelling).containsExactly("unlessReadOnly", "all", "none");
        assertThat(List.of(ToolRule.values())).extracting(ToolRule::spelling).containsExactly("pass", "protect");
    }
}
