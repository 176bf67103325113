package dev.idemproxy.core.route;

import static dev.idemproxy.core.util.Checks.positive;
import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Map;

/**
 * A route's MCP settings (docs/configuration.md {@code routes[].mcp}, §10) and the decision of which
 * {@code tools/call} requests are protected. This class is immutable.
 *
 * @param enabled true: the route carries MCP's Streamable HTTP transport and protects tool calls
 * @param protect which tools are protected when {@code tools} does not name them
 * @param tools   per-tool overrides by exact tool name
 * @param window  derived keys: the same tool and arguments within this long of the first call are duplicates
 */
public record McpPolicy(boolean enabled, Protect protect, Map<String, ToolRule> tools, Duration window) implements DialectPolicy {
    /** The most per-tool overrides a route may name. */
    public static final int MAX_TOOL_RULES = 1000;

    public static final McpPolicy DISABLED = new McpPolicy(false, Protect.UNLESS_READ_ONLY, Map.of(), Duration.ofMinutes(10));

    @Override
    public String name() {
        return "mcp";
    }

    /** Which tools a route protects by default (docs/configuration.md {@code mcp.protect}). */
    public enum Protect {
        /** Every tool except those the server's latest {@code tools/list} marks {@code readOnlyHint: true}. */
        UNLESS_READ_ONLY("unlessReadOnly"),
        /** Every tool. */
        ALL("all"),
        /** No tool (only {@code tools: {name: protect}} overrides are protected). */
        NONE("none");

        private final String spelling;

        Protect(String spelling) {
            this.spelling = spelling;
        }

        public String spelling() {
            return spelling;
        }
    }

    /** A per-tool override (docs/configuration.md {@code mcp.tools}). */
    public enum ToolRule {
        /** Never protected: passes through, never stored. */
        PASS("pass"),
        /** Always protected, whatever its annotations. */
        PROTECT("protect");

        private final String spelling;

        ToolRule(String spelling) {
            this.spelling = spelling;
        }

        public String spelling() {
            return spelling;
        }
    }

    public McpPolicy {
        requireNonNull(protect, "protect");
        tools = Map.copyOf(requireNonNull(tools, "tools"));
        requireArgument(tools.size() <= MAX_TOOL_RULES,
                "tools names " + tools.size() + " tools (expected: at most " + MAX_TOOL_RULES + ")");
        for (String name : tools.keySet()) {
            requireArgument(!name.isEmpty(), "tools has an empty tool name (expected: a tool name)");
        }
        positive(window, "window");
    }

    /**
     * Whether a {@code tools/call} of {@code tool} is protected: its override if {@code tools}
     * names it; else {@code all} protects, {@code none} does not, and {@code unlessReadOnly}
     * protects unless {@code readOnly} says the tool is (the MCP route's tool catalogue: what the
     * server's latest {@code tools/list} marks read-only; a tool it does not know is protected).
     */
    public boolean protects(String tool, java.util.function.Predicate<String> readOnly) {
        requireNonNull(tool, "tool");
        requireNonNull(readOnly, "readOnly");
        if (!enabled) {
            return false;
        }
        ToolRule rule = tools.get(tool);
        if (rule != null) {
            return rule == ToolRule.PROTECT;
        }
        switch (protect) {
            case ALL: return true;
            case NONE: return false;
            default: return !readOnly.test(tool);
        }
    }
}
