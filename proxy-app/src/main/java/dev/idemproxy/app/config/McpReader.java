package dev.idemproxy.app.config;

import dev.idemproxy.core.route.McpPolicy;
import dev.idemproxy.core.route.McpPolicy.Protect;
import dev.idemproxy.core.route.McpPolicy.ToolRule;
import java.time.Duration;
import java.util.Map;

/** Maps a route's {@code mcp} section (docs/configuration.md, docs/mcp.md) onto {@link McpPolicy}. */
final class McpReader {
    private McpReader() {}

    static McpPolicy read(MapReader m) {
        McpPolicy d = McpPolicy.DISABLED;
        boolean enabled = m.bool("enabled", d.enabled());
        Protect protect = m.parsed("protect", d.protect(), "unlessReadOnly, all or none",
                t -> Choices.of(Protect.values(), Protect::spelling, t));
        Map<String, ToolRule> tools = m.namedValues("tools", "pass or protect",
                t -> Choices.of(ToolRule.values(), ToolRule::spelling, t));
        if (tools.size() > McpPolicy.MAX_TOOL_RULES) {
            m.problem("tools", tools.size() + " tools (expected: at most " + McpPolicy.MAX_TOOL_RULES + ")");
            tools = Map.of();
        }
        Duration window = m.duration("window", d.window(), false);
        Map<String, ToolRule> rules = tools;
        McpPolicy p = m.reading().problems().build(m.at("enabled"), m.path(), () -> new McpPolicy(enabled, protect, rules, window));
        return p == null ? d : p;
    }
}
