package dev.idemproxy.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.FreePorts;
import dev.idemproxy.core.testing.SystemPackages;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/mcp.md "Try it", run as a user runs it: its shell block in one shell from the clone's root,
 * through bin/idemproxy and examples/mcp/server.mjs, with the three ports it names (8090, 9990,
 * 3001) moved to free ones and examples/mcp/idemproxy.yaml copied with them. The second,
 * identical tools/call is replayed and the tool runs once.
 */
class McpTryItIT {
    static final Path DOC = DocBlocks.ROOT.resolve("docs/mcp.md");
    static final Path CONFIG = DocBlocks.ROOT.resolve("examples/mcp/idemproxy.yaml");

    @TempDir
    Path dir;

    @Test
    void theTryItBlockRunsAndTheRetriedToolCallIsReplayed() throws Exception {
        SystemPackages.require(List.of("curl", "--version"), "curl");
        SystemPackages.require(List.of("node", "--version"), "nodejs");
        DocBlocks.Block block = DocBlocks.of(DOC).stream().filter(b -> b.heading().equals("Try it") && b.language().equals("sh"))
                .findFirst().orElseThrow(() -> new AssertionError("docs/mcp.md has no sh block under 'Try it'"));
        String proxy = Integer.toString(FreePorts.pick());
        String admin = Integer.toString(FreePorts.pick());
        String server = Integer.toString(FreePorts.pick());
        Path config = dir.resolve("idemproxy.yaml");
        Files.writeString(config, replaceAll(Files.readString(CONFIG), "127.0.0.1:8090", "127.0.0.1:" + proxy,
                "127.0.0.1:9990", "127.0.0.1:" + admin, "127.0.0.1:3001", "127.0.0.1:" + server));

        String script = script(block, proxy, admin, server, config);
        try (ChildProxy shell = ChildProxy.command(List.of("sh", "-c", script), DocBlocks.ROOT,
                Map.of("JAVA_HOME", System.getProperty("java.home")))) {
            assertThat(shell.waitFor(Duration.ofSeconds(120))).as(shell.transcript()).isZero();
            shell.awaitStreamsClosed(Duration.ofSeconds(30));
            String out = String.join("\n", shell.stdout());
            assertThat(out).as(shell.transcript()).contains("\"serverInfo\"").contains("\"search_docs\"");
            assertThat(shell.count("^created ticket T-0001 \\(1 in all\\): \"printer on fire\"$")).as("the tool ran once").isEqualTo(1);
            assertThat(shell.count("^created ticket")).isEqualTo(1);
            assertThat(shell.count("^Idempotent-Replayed: true")).as(shell.transcript()).isEqualTo(1);
            assertThat(shell.count("^\\{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":.*\"ticketId\":\"T-0001\"")).isEqualTo(1);
            assertThat(shell.count("^\\{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":.*\"ticketId\":\"T-0001\"")).isEqualTo(1);
        }
    }

    /**
     * The block as one script: continuation lines joined, the ports moved, the server told its port,
     * the proxy given the copied config, every background job's pid kept, and those stopped at the end.
     */
    static String script(DocBlocks.Block block, String proxy, String admin, String server, Path config) {
        List<String> lines = new ArrayList<>();
        StringBuilder pending = new StringBuilder();
        for (String raw : block.lines()) {
            if (raw.endsWith("\\")) {
                pending.append(raw, 0, raw.length() - 1);
                continue;
            }
            lines.add(pending.append(raw).toString());
            pending.setLength(0);
        }
        StringBuilder sh = new StringBuilder("pids=\n");
        boolean serverSeen = false;
        boolean proxySeen = false;
        for (String line : lines) {
            String l = line.replace("127.0.0.1:8090", "127.0.0.1:" + proxy).replace("127.0.0.1:9990", "127.0.0.1:" + admin);
            if (l.contains("node examples/mcp/server.mjs")) {
                l = l.replace("node examples/mcp/server.mjs", "node examples/mcp/server.mjs --port " + server);
                serverSeen = true;
            }
            if (l.contains("--config examples/mcp/idemproxy.yaml")) {
                l = l.replace("--config examples/mcp/idemproxy.yaml", "--config '" + config + "'");
                proxySeen = true;
            }
            sh.append(l).append('\n');
            if (l.replaceAll("\\s+#.*$", "").strip().endsWith("&")) {
                sh.append("pids=\"$pids $!\"\n");
            }
        }
        assertThat(serverSeen).as("the block starts examples/mcp/server.mjs").isTrue();
        assertThat(proxySeen).as("the block runs the proxy with examples/mcp/idemproxy.yaml").isTrue();
        return sh.append("kill $pids\nwait\n").toString();
    }

    static String replaceAll(String text, String... pairs) {
        String s = text;
        for (int i = 0; i < pairs.length; i += 2) {
            assertThat(s).as("the text to change").contains(pairs[i]);
            s = s.replace(pairs[i], pairs[i + 1]);
        }
        return s;
    }
}
