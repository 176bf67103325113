package dev.idemproxy.app.it;

import dev.idemproxy.app.it.McpServerFixture.Answers;
import dev.idemproxy.app.it.McpServerFixture.Era;
import java.net.URI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the MCP end-to-end tests share: the SDK fixture server ({@link McpServerFixture}) for the
 * class, reset before each test, and a real proxy per test with one MCP route in front of it.
 */
abstract class McpRouteFixture {
    static McpServerFixture server;
    RunningProxy proxy;

    @BeforeAll
    static void startServer() throws Exception {
        server = McpServerFixture.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void resetServer() throws Exception {
        server.reset();
    }

    @AfterEach
    void stopProxy() {
        if (proxy != null) {
            proxy.close();
        }
    }

    /** The MCP route in front of the fixture; {@code extra} is more of the route's YAML, indented by four. */
    static String routes(McpServerFixture server, String extra) {
        return "routes:\n"
                + "  - name: tools\n"
                + "    match: { pathPrefix: / }\n"
                + "    upstream: http://127.0.0.1:" + server.port() + "\n"
                + "    mcp: { enabled: true }\n"
                + "    timeouts: { perTry: 10s, total: 30s }\n"
                + extra;
    }

    void startProxy(String extra) throws Exception {
        proxy = RunningProxy.start(routes(server, extra));
    }

    URI via(Era era, Answers answers) {
        return proxy.uri(server.endpoint(era, answers).getPath());
    }
}
