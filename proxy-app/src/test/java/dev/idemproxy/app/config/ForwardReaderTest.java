package dev.idemproxy.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idemproxy.core.ProxyConfig;
import dev.idemproxy.core.forward.ForwardProxyPolicy;
import dev.idemproxy.core.forward.ForwardProxyPolicy.ConnectMode;
import dev.idemproxy.core.forward.LocalCa;
import dev.idemproxy.core.route.Route;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code forwardProxy}, {@code routes[].intercept} and routes without upstream, as the loader reads and checks them. */
class ForwardReaderTest {
    private final YamlConfigLoader loader = new YamlConfigLoader(Map.<String, String>of()::get);

    @TempDir
    Path dir;

    private ProxyConfig parse(String yaml) throws InvalidConfigException {
        return loader.parse(yaml, "test.yaml", dir);
    }

    private List<String> problems(String yaml) {
        InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class, () -> parse(yaml));
        assertThat(e).as("problems of %s", yaml).isNotNull();
        return e.problems().stream().map(ConfigProblem::toString).toList();
    }

    @Test
    void withoutTheSectionThereIsNoForwardProxy() throws Exception {
        assertThat(parse("routes: []\n").forwardProxy()).isNull();
    }

    @Test
    void anEmptySectionTunnelsWithTheCaInTheDataDirectory() throws Exception {
        ForwardProxyPolicy p = parse("store: { embedded: { path: /var/lib/idemproxy } }\nforwardProxy: {}\n").forwardProxy();

        assertThat(p).isEqualTo(new ForwardProxyPolicy(ConnectMode.TUNNEL, Path.of("/var/lib/idemproxy/ca.crt"),
                Path.of("/var/lib/idemproxy/ca.key"), Duration.ofMinutes(5), Duration.ofSeconds(10)));
    }

    @Test
    void everyKeyIsRead() throws Exception {
        ForwardProxyPolicy p = parse("forwardProxy:\n  connect: refuse\n  ca: { cert: " + dir.resolve("c.crt") + ", key: "
                + dir.resolve("c.key") + " }\n  tunnelIdleTimeout: 30m\n  tunnelConnectTimeout: 3s\n").forwardProxy();

        assertThat(p).isEqualTo(new ForwardProxyPolicy(ConnectMode.REFUSE, dir.resolve("c.crt"), dir.resolve("c.key"),
                Duration.ofMinutes(30), Duration.ofSeconds(3)));
    }

    @Test
    void badValuesAreReportedWhereTheyAre() {
        assertThat(problems("forwardProxy:\n  connect: allow\n  tunnelIdleTimeout: 0s\n  sni: on\n"))
                .containsExactly(
                        "test.yaml:2:12: forwardProxy.connect: 'allow' (expected one of: tunnel, refuse)",
                        "test.yaml:3:22: forwardProxy.tunnelIdleTimeout: 0s (expected: > 0)",
                        "test.yaml:4:3: forwardProxy.sni: unknown key (expected one of: connect, ca, tunnelIdleTimeout,"
                                + " tunnelConnectTimeout)");
        assertThat(problems("forwardProxy:\n  ca: { cert: x.crt, key: x.crt }\n"))
                .containsExactly("test.yaml:2:7: forwardProxy.ca: ca.cert and ca.key are the same file " + dir.resolve("x.crt")
                        + " (expected: two files)");
    }

    @Test
    void aCaFileWithoutTheOtherIsReportedAtTheMissingOne() throws Exception {
        Files.writeString(dir.resolve("ca.crt"), "x");

        assertThat(problems("forwardProxy:\n  ca:\n    cert: " + dir.resolve("ca.crt") + "\n    key: " + dir.resolve("ca.key") + "\n"))
                .containsExactly("test.yaml:4:10: forwardProxy.ca.key: " + dir.resolve("ca.key") + " does not exist but "
                        + dir.resolve("ca.crt") + " does (expected: both files, or neither and a new CA is generated at start)");
    }

    @Test
    void unusableCaFilesAreReportedWithTheReason() throws Exception {
        LocalCa.loadOrCreate(dir.resolve("a/ca.crt"), dir.resolve("a/ca.key"), Clock.systemUTC(), new SecureRandom());
        LocalCa.loadOrCreate(dir.resolve("b/ca.crt"), dir.resolve("b/ca.key"), Clock.systemUTC(), new SecureRandom());

        assertThat(problems("forwardProxy:\n  ca:\n    cert: " + dir.resolve("a/ca.crt") + "\n    key: " + dir.resolve("b/ca.key") + "\n"))
                .containsExactly("test.yaml:4:10: forwardProxy.ca.key: " + dir.resolve("b/ca.key") + " is not the key of "
                        + dir.resolve("a/ca.crt") + " (expected: the CA certificate's private key, EC or RSA)");
        assertThat(parse("forwardProxy:\n  ca:\n    cert: " + dir.resolve("a/ca.crt") + "\n    key: " + dir.resolve("a/ca.key") + "\n")
                .forwardProxy()).isNotNull();
    }

    @Test
    void aRouteWithoutUpstreamMustNameAHost() throws Exception {
        assertThat(problems("routes:\n  - name: any\n    match: { pathPrefix: /v1/ }\n"))
                .containsExactly("test.yaml:2:5: routes[0].upstream: missing (expected: an upstream URI, or a match.host: a route"
                        + " without upstream forwards to the host the client asked for)");
        assertThat(problems("routes:\n  - name: odd\n    match: { host: under_score.example }\n"))
                .containsExactly("test.yaml:2:11: routes[0]: route odd has no upstream, and its match.host 'under_score.example'"
                        + " cannot be connected to (expected: a DNS name or IPv4 address, without '_')");

        Route r = parse("routes:\n  - name: stripe\n    match: { host: api.stripe.com }\n").routes().get(0);
        assertThat(r.upstream()).isNull();
        assertThat(r.forwardsToTarget()).isTrue();
        assertThat(r.intercept()).isFalse();
    }

    @Test
    void interceptNeedsForwardProxyAndAHost() throws Exception {
        assertThat(problems("routes:\n  - name: stripe\n    match: { host: api.stripe.com }\n    intercept: true\n"))
                .containsExactly("test.yaml:4:16: routes[0].intercept: true without a forwardProxy section (expected:"
                        + " forwardProxy, which makes the proxy answer CONNECT)");
        assertThat(problems("forwardProxy: {}\nroutes:\n  - name: all\n    upstream: http://127.0.0.1:1\n    intercept: true\n"))
                .containsExactly("test.yaml:5:16: routes[0].intercept: true without match.host (expected: a match.host, the"
                        + " host whose CONNECTs are intercepted)");
        assertThat(problems("forwardProxy: {}\nroutes:\n  - name: s\n    match: { host: a.example }\n    intercept: yes\n"))
                .containsExactly("test.yaml:5:16: routes[0].intercept: expected true or false, got 'yes'");

        Route r = parse("forwardProxy: {}\nroutes:\n  - name: s\n    match: { host: a.example }\n    intercept: true\n").routes().get(0);
        assertThat(r.intercept()).isTrue();
    }

    @Test
    void validateAndConfigShowWhereATargetRouteGoesAndTheCaByFileNameOnly() throws Exception {
        ProxyConfig c = parse("forwardProxy: { ca: { cert: " + dir.resolve("ca.crt") + ", key: " + dir.resolve("ca.key") + " } }\n"
                + "routes:\n  - name: stripe\n    match: { host: api.stripe.com }\n    intercept: true\n"
                + "  - name: github\n    match: { host: api.github.com }\n");

        assertThat(ConfigDescriber.routeTable(c)).contains("stripe  host=api.stripe.com  (target, intercepted)")
                .contains("github  host=api.github.com  (target)");
        Map<String, Object> tree = ConfigDescriber.effectiveConfig(c);
        assertThat(tree.get("forwardProxy")).isEqualTo(Map.of("connect", "tunnel",
                "ca", Map.of("cert", dir.resolve("ca.crt").toString(), "key", dir.resolve("ca.key").toString()),
                "tunnelIdleTimeout", "5m", "tunnelConnectTimeout", "10s"));
        Map<?, ?> stripe = (Map<?, ?>) ((List<?>) tree.get("routes")).get(0);
        assertThat(stripe.get("upstream")).isNull();
        assertThat(stripe.get("intercept")).isEqualTo(true);
        assertThat(ConfigDescriber.effectiveConfig(parse("routes: []\n"))).doesNotContainKey("forwardProxy");
    }
}
