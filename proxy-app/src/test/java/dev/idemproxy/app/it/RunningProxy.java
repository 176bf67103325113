package dev.idemproxy.app.it;

import dev.idemproxy.app.config.YamlConfigLoader;
import dev.idemproxy.app.wiring.Assembly;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The real app, started in this JVM through the same loader and {@link Assembly} as
 * {@code idemproxy run}, on free loopback ports, from YAML written to a temp file.
 */
final class RunningProxy implements AutoCloseable {
    static final String MEMORY_STORE = "store: { type: memory }\n";

    final Path dir;
    final Path configFile;
    final Assembly assembly;
    /** The listen, admin and store lines every write of the config file starts with. */
    private final String header;

    private RunningProxy(Path dir, Path configFile, Assembly assembly, String header) {
        this.dir = dir;
        this.configFile = configFile;
        this.assembly = assembly;
        this.header = header;
    }

    /** {@code yamlBody} is everything after the listen/admin lines (routes, server, …); the store is memory. */
    static RunningProxy start(String yamlBody) throws Exception {
        return start(MEMORY_STORE, yamlBody);
    }

    /** {@code storeYaml} is the {@code store:} block (ending in a newline); {@code yamlBody} what follows. */
    static RunningProxy start(String storeYaml, String yamlBody) throws Exception {
        return startWithHeader(header(storeYaml), yamlBody);
    }

    /** As {@link #start(String, String)}, the admin listener asking for {@code adminToken} (a YAML scalar as written). */
    static RunningProxy startWithAdminToken(String adminToken, String storeYaml, String yamlBody) throws Exception {
        return startWithHeader("listen: 127.0.0.1:0\nadmin: { listen: 127.0.0.1:0, token: " + adminToken + " }\n" + storeYaml,
                yamlBody);
    }

    private static RunningProxy startWithHeader(String header, String yamlBody) throws Exception {
        Path dir = Files.createTempDirectory("idemproxy-it");
        Path file = dir.resolve("idemproxy.yaml");
        Files.writeString(file, header + yamlBody, StandardCharsets.UTF_8);
        Assembly a = Assembly.start(new YamlConfigLoader().load(file), file, new YamlConfigLoader());
        return new RunningProxy(dir, file, a, header);
    }

    static String header(String storeYaml) {
        return "listen: 127.0.0.1:0\nadmin: { listen: 127.0.0.1:0 }\n" + storeYaml;
    }

    void rewrite(String yamlBody) {
        try {
            Files.writeString(configFile, header + yamlBody, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int port() {
        return assembly.proxyAddress().getPort();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port() + path);
    }

    URI admin(String path) {
        return URI.create("http://127.0.0.1:" + assembly.adminAddress().getPort() + path);
    }

    /** Stops the proxy and deletes the temp directory with its config file. */
    @Override
    public void close() {
        assembly.stop(Duration.ofSeconds(2));
        deleteFiles();
    }

    /** Deletes the temp directory with its config file (for a test that stopped the proxy itself). */
    void deleteFiles() {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
