package dev.idemproxy.app.it;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The Node.js side of the MCP fixtures ({@code src/test/mcp-fixture}: an MCP server and a client
 * driver on the official TypeScript SDKs, pinned by its {@code package-lock.json}), installed as
 * a {@link NodeProject} into {@code target/mcp-fixture}. Thread-safe.
 */
final class McpNodeFixture {
    private static final NodeProject PROJECT = new NodeProject("mcp-fixture",
            List.of("package.json", "package-lock.json", "server.mjs", "tools.mjs", "client.mjs"), "the MCP fixtures");

    private McpNodeFixture() {}

    /** The directory with the fixture's scripts and their {@code node_modules}, installed if need be. */
    static Path directory() throws IOException, InterruptedException {
        return PROJECT.directory();
    }
}
