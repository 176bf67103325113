package dev.idemproxy.core.route;

/**
 * Which dialect a route's calls speak, with the dialect's settings: plain HTTP ({@link #HTTP}), or
 * an MCP route's {@link McpPolicy}. The engine maps a policy to its dialect through a registry
 * ({@code call.Dialects}), so a third dialect is a policy type here and an entry there.
 * Implementations are immutable.
 */
public interface DialectPolicy {
    /** Plain HTTP: the route's own settings are all there is. */
    DialectPolicy HTTP = () -> "http";

    /** The dialect's name, as the config and logs spell it. */
    String name();
}
