package dev.idemproxy.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idemproxy.core.AdminPolicy;
import dev.idemproxy.core.HostPort;
import dev.idemproxy.core.pipeline.LimitsPolicy;
import dev.idemproxy.core.pipeline.LimitsPolicy.UnderscoreHeaders;
import dev.idemproxy.core.ProxyConfig;
import dev.idemproxy.core.pipeline.ServerPolicy;
import dev.idemproxy.core.net.Transport;
import dev.idemproxy.core.dlq.DeadLetterPolicy;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.idempotency.KeyPolicy;
import dev.idemproxy.core.idempotency.RequestPart;
import dev.idemproxy.core.route.IdsPolicy;
import dev.idemproxy.core.route.ReceiptPolicy;
import dev.idemproxy.core.idempotency.ScopePolicy;
import dev.idemproxy.core.route.IdsPolicy;
import dev.idemproxy.core.route.ReceiptPolicy;
import dev.idemproxy.core.retry.BackoffPolicy;
import dev.idemproxy.core.retry.Jitter;
import dev.idemproxy.core.retry.RetryBudgetPolicy;
import dev.idemproxy.core.retry.RetryPolicy;
import dev.idemproxy.core.retry.TaskPolicy;
import dev.idemproxy.core.route.LogPolicy;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.route.Timeouts;
import dev.idemproxy.core.store.StorePolicy;
import dev.idemproxy.core.route.PoolPolicy;
import dev.idemproxy.core.route.TlsPolicy;
import dev.idemproxy.core.store.memory.MemoryStore;
import dev.idemproxy.core.route.PoolPolicy;
import dev.idemproxy.core.route.TlsPolicy;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class YamlConfigLoaderTest {
    private static final String VALID = "src/test/resources/config/valid/";
    private static final String INVALID = "src/test/resources/config/invalid/";

    private final YamlConfigLoader loader = new YamlConfigLoader(Map.<String, String>of()::get);

    @Test
    void contractExampleLoadsOntoTheCoreRecords() throws Exception {
        ProxyConfig config = loader.load(Path.of(VALID + "contract-example.yaml"));

        assertThat(config).isEqualTo(new ProxyConfig(
                new HostPort("127.0.0.1", 8080),
                Duration.ofSeconds(20),
                new AdminPolicy(new HostPort("127.0.0.1", 9901), ""),
                ServerPolicy.DEFAULT,
                new StorePolicy(StorePolicy.Type.EMBEDDED, Path.of(VALID + "idemproxy-data"), 1_000_000,
                        MemoryStore.defaultMaxBytes(),
                        new StorePolicy.RedisPolicy("redis://127.0.0.1:6379", "standalone", "idemproxy:"),
                        StorePolicy.OnUnavailable.REJECT, StorePolicy.NearCachePolicy.ENABLED),
                new TaskPolicy("X-Task-Id", 20, Duration.ofHours(1)),
                new RetryBudgetPolicy(0.2, 10, Duration.ofSeconds(10)),
                List.of(),
                List.of(ticketsRoute())));
    }

    private static Route ticketsRoute() {
        IdempotencyPolicy idempotency = new IdempotencyPolicy(true, Set.of("POST", "PATCH", "PUT", "DELETE"),
                new KeyPolicy("Idempotency-Key",
                        parts("method", "path", "header:X-Task-Id", "body:/userId", "body:/faultType"),
                        Duration.ofMinutes(10), false),
                parts("header:Authorization"), parts("body"), Duration.ofHours(24), Duration.ofSeconds(30),
                IdempotencyPolicy.OnConcurrent.WAIT, Duration.ofSeconds(30), 1024 * 1024, 4 * 1024 * 1024);
        RetryPolicy retry = new RetryPolicy(4, Set.of("connect-failure", "read-timeout", "reset", "429", "502", "503", "504"),
                new BackoffPolicy(Duration.ofMillis(200), Duration.ofSeconds(10), 2.0, Jitter.FULL), Duration.ofSeconds(60));
        return new Route("tickets",
                new RouteMatch("tickets.internal", "/api/tickets", Set.of("POST", "GET")),
                URI.create("https://tickets.internal:8443"),
                Set.of("idempotent"),
                new Timeouts(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60)),
                idempotency, retry,
                new IdsPolicy(parts("header:X-Biz-Id", "body:/orderId")),
                new ReceiptPolicy("https://tickets.internal:8443/receipts/{callId}", "/status", "/result"),
                new DeadLetterPolicy(true, List.of()),
                TlsPolicy.DEFAULT, PoolPolicy.DEFAULT, LogPolicy.DEFAULT, Set.of(503, 529));
    }

    @Test
    void omittedKeysTakeTheRecordDefaults() throws Exception {
        ProxyConfig config = parse("routes:\n  - name: echo\n    upstream: http://127.0.0.1:8081\n");

        assertThat(config.routes()).containsExactly(Route.passThrough("echo", RouteMatch.ANY, URI.create("http://127.0.0.1:8081")));
        ProxyConfig empty = ProxyConfig.empty();
        StorePolicy d = StorePolicy.DEFAULT;
        assertThat(config).as("all else as the empty config, the store's folder resolved against the file's (here '')")
                .isEqualTo(new ProxyConfig(empty.listen(), empty.shutdownGrace(), empty.admin(), empty.server(),
                        new StorePolicy(d.type(), Path.of("idemproxy-data"), d.memoryMaxEntries(), d.memoryMaxBytes(), d.redis(),
                                d.onUnavailable(), d.nearCache()),
                        empty.tasks(), empty.retryBudget(), empty.secretHeaders(), empty.secretQueryParams(), config.routes(),
                        empty.forwardProxy()));
        assertThat(config.routes().get(0).idempotency().fingerprint()).isEmpty();
    }

    @Test
    void relativePathsResolveAgainstTheConfigFilesFolder(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("conf/idemproxy.yaml");
        Files.createDirectories(file.getParent().resolve("certs"));
        Files.writeString(file.getParent().resolve("certs/ca.pem"), "x");
        Files.writeString(file, "store: { embedded: { path: ./data } }\n"
                + "forwardProxy: { ca: { cert: ca/ca.crt, key: ../keys/ca.key } }\n"
                + "routes:\n  - name: a\n    upstream: https://a.internal\n    tls: { caFile: certs/ca.pem }\n");

        ProxyConfig config = loader.load(file);

        assertThat(config.store().embeddedPath()).isEqualTo(dir.resolve("conf/data"));
        assertThat(config.forwardProxy().caCert()).isEqualTo(dir.resolve("conf/ca/ca.crt"));
        assertThat(config.forwardProxy().caKey()).isEqualTo(dir.resolve("keys/ca.key"));
        assertThat(config.routes().get(0).tls().caFile()).isEqualTo(dir.resolve("conf/certs/ca.pem"));
    }

    @Test
    void theDefaultDataFolderAndTheCaInItAreBesideTheConfigFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("conf/idemproxy.yaml");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "forwardProxy: {}\n");

        ProxyConfig config = loader.load(file);

        assertThat(config.store().embeddedPath()).isEqualTo(dir.resolve("conf/idemproxy-data"));
        assertThat(config.forwardProxy().caCert()).isEqualTo(dir.resolve("conf/idemproxy-data/ca.crt"));
    }

    @Test
    void emptyAndCommentOnlyFilesAreTheEmptyConfig() throws Exception {
        assertThat(parse("")).isEqualTo(ProxyConfig.empty());
        assertThat(parse("# nothing here yet\n\n   # still nothing\n")).isEqualTo(ProxyConfig.empty());
        assertThat(parse("---\n")).isEqualTo(ProxyConfig.empty());
    }

    @Test
    void extraKeysMapOntoServerTlsAndPoolPolicies(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("certs"));
        Files.writeString(dir.resolve("certs/ca.pem"), "-----BEGIN CERTIFICATE-----\n");
        String yaml = "server: { ioThreads: 2, maxHeaderSize: 32KiB, maxInitialLine: 4096 }\n"
                + "secretHeaders: [X-Api-Key]\n"
                + "routes:\n"
                + "  - name: secure\n"
                + "    upstream: https://api.internal\n"
                + "    tls: { caFile: certs/ca.pem, serverName: api.example.com }\n"
                + "    pool: { maxIdle: 8, idleTimeout: 1m30s }\n";

        ProxyConfig config = loader.parse(yaml, "test.yaml", dir);

        assertThat(config.server()).isEqualTo(new ServerPolicy(2, 32 * 1024, 4096));
        assertThat(config.secretHeaders()).containsExactly("X-Api-Key");
        Route route = config.routes().get(0);
        assertThat(route.tls()).isEqualTo(new TlsPolicy(dir.resolve("certs/ca.pem"), "api.example.com"));
        assertThat(route.pool()).isEqualTo(new PoolPolicy(8, Duration.ofSeconds(90)));
    }

    @Test
    void theFrontsLimitsHaveTheContractsDefaultsAndMapOntoTheServerPolicy() throws Exception {
        assertThat(parse("listen: 127.0.0.1:8080\n").server().limits()).isEqualTo(new LimitsPolicy(4096,
                Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofSeconds(120), UnderscoreHeaders.DROP));
        ProxyConfig config = parse("limits: { maxConnections: 64, headTimeout: 300ms, bodyTimeout: 5m, idleTimeout: 2s, "
                + "underscoreHeaders: reject }\n");
        assertThat(config.server().limits()).isEqualTo(new LimitsPolicy(64, Duration.ofMillis(300), Duration.ofMinutes(5),
                Duration.ofSeconds(2), UnderscoreHeaders.REJECT));
        assertThat(ConfigDescriber.effectiveConfig(config).get("limits")).isEqualTo(Map.of("maxConnections", 64,
                "headTimeout", "300ms", "bodyTimeout", "5m", "idleTimeout", "2s", "underscoreHeaders", "reject"));
        for (UnderscoreHeaders u : UnderscoreHeaders.values()) {
            assertThat(parse("limits: { underscoreHeaders: " + u.spelling() + " }\n").server().limits().underscoreHeaders())
                    .isEqualTo(u);
        }
    }

    @Test
    void serverClientIdleIsStillReadAsLimitsIdleTimeoutButNotBesideIt() throws Exception {
        assertThat(parse("server: { clientIdle: 45s }\n").server().limits().idleTimeout()).isEqualTo(Duration.ofSeconds(45));
        assertThat(ConfigDescriber.effectiveConfig(parse("server: { clientIdle: 45s }\n")).get("limits").toString())
                .contains("idleTimeout=45s");
        assertThat(problems("bad-limits.yaml")).containsExactly(
                INVALID + "bad-limits.yaml:1:23: server.clientIdle: given with limits.idleTimeout, its new name "
                        + "(expected: limits.idleTimeout alone)",
                INVALID + "bad-limits.yaml:3:19: limits.maxConnections: 0 (expected: >= 1)",
                INVALID + "bad-limits.yaml:4:16: limits.headTimeout: 0s (expected: > 0)",
                INVALID + "bad-limits.yaml:5:16: limits.bodyTimeout: expected a duration such as 250ms, 10s, 5m, 24h, got '1'",
                INVALID + "bad-limits.yaml:7:22: limits.underscoreHeaders: 'strip' (expected one of: drop, forward, reject)");
    }

    @Test
    void passThroughCallLinesAreOnByDefaultAndARouteCanPutThemAtDebug() throws Exception {
        String yaml = "routes:\n"
                + "  - name: loud\n"
                + "    upstream: http://127.0.0.1:8081\n"
                + "  - name: quiet\n"
                + "    upstream: http://127.0.0.1:8082\n"
                + "    log: { passThrough: false }\n";

        List<Route> routes = parse(yaml).routes();

        assertThat(routes.get(0).log()).isEqualTo(LogPolicy.DEFAULT);
        assertThat(routes.get(0).log().passThrough()).isTrue();
        assertThat(routes.get(1).log()).isEqualTo(new LogPolicy(false));
        assertThat(parseProblems("routes:\n  - name: r\n    upstream: http://127.0.0.1:8081\n    log: { passThrough: sometimes, level: debug }\n"))
                .containsExactly(
                        "test.yaml:4:25: routes[0].log.passThrough: expected true or false, got 'sometimes'",
                        "test.yaml:4:36: routes[0].log.level: unknown key (expected one of: passThrough)");
    }

    @Test
    void withoutKeyDeriveKeysAreDerivedFromMethodPathAndBodyAndAnEmptyListTurnsThatOff() throws Exception {
        String yaml = "routes:\n"
                + "  - name: default\n"
                + "    upstream: http://127.0.0.1:8081\n"
                + "    idempotency: { enabled: true, key: { header: X-Request-Key } }\n"
                + "  - name: off\n"
                + "    upstream: http://127.0.0.1:8081\n"
                + "    idempotency: { enabled: true, key: { derive: [] } }\n";

        List<Route> routes = parse(yaml).routes();

        assertThat(routes.get(0).idempotency().key()).isEqualTo(new KeyPolicy("X-Request-Key", parts("method", "path", "body"),
                Duration.ofMinutes(10), false));
        assertThat(routes.get(1).idempotency().key().derive()).isEmpty();
    }

    @Test
    void withoutAScopeKeysAreScopedByTheCredentialHeadersAndSecretHeaders() throws Exception {
        String yaml = "secretHeaders: [X-Auth-Token]\n"
                + "routes:\n"
                + "  - name: default\n"
                + "    upstream: http://127.0.0.1:8081\n"
                + "    idempotency: { enabled: true }\n"
                + "  - name: named\n"
                + "    upstream: http://127.0.0.1:8081\n"
                + "    idempotency: { enabled: true, scope: [header:X-Tenant] }\n"
                + "  - name: shared\n"
                + "    upstream: http://127.0.0.1:8081\n"
                + "    idempotency: { enabled: true, scope: [] }\n"
                + "  - name: unset\n"
                + "    upstream: http://127.0.0.1:8081\n"
                + "    idempotency: { enabled: true, scope: ~ }\n";

        ProxyConfig config = parse(yaml);

        List<Route> routes = config.routes();
        assertThat(routes.get(0).idempotency().scope()).isEqualTo(ScopePolicy.credentials(List.of("X-Auth-Token")));
        assertThat(routes.get(0).idempotency().scope().credentialHeaders())
                .containsExactly("Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "Api-Key", "X-Auth-Token");
        assertThat(routes.get(1).idempotency().scope()).isEqualTo(ScopePolicy.of(parts("header:X-Tenant")));
        assertThat(routes.get(2).idempotency().scope()).isEqualTo(ScopePolicy.of(List.of()));
        assertThat(routes.get(3).idempotency().scope()).isEqualTo(routes.get(0).idempotency().scope());
        assertThat(ConfigDescriber.effectiveConfig(config).get("routes").toString())
                .contains("scope={credentialHeaders=[Authorization, Proxy-Authorization, Cookie, X-Api-Key, Api-Key, X-Auth-Token]}")
                .contains("scope=[header:X-Tenant]")
                .contains("scope=[]");
        assertThat(parse("routes:\n  - name: r\n    upstream: http://a\n").routes().get(0).idempotency().scope())
                .isEqualTo(ScopePolicy.CREDENTIALS);
    }

    @Test
    void notExecutedOnIsAListOfStatusesEmptyByDefault() throws Exception {
        String yaml = "routes:\n"
                + "  - name: plain\n"
                + "    upstream: http://127.0.0.1:8081\n"
                + "  - name: overloaded\n"
                + "    upstream: http://127.0.0.1:8082\n"
                + "    notExecutedOn: [503, 529]\n";

        List<Route> routes = parse(yaml).routes();

        assertThat(routes.get(0).notExecutedOn()).isEmpty();
        assertThat(routes.get(1).notExecutedOn()).containsExactlyInAnyOrder(503, 529);
        assertThat(ConfigDescriber.effectiveConfig(parse(yaml)).get("routes").toString()).contains("notExecutedOn=[503, 529]");
        String expected = " (expected: a status 100..599)";
        assertThat(parseProblems("routes:\n  - name: r\n    upstream: http://127.0.0.1:8081\n"
                + "    notExecutedOn: [99, 600, unavailable, 5030, 503, 503]\n"))
                .containsExactly(
                        "test.yaml:4:21: routes[0].notExecutedOn[0]: '99'" + expected,
                        "test.yaml:4:25: routes[0].notExecutedOn[1]: '600'" + expected,
                        "test.yaml:4:30: routes[0].notExecutedOn[2]: 'unavailable'" + expected,
                        "test.yaml:4:43: routes[0].notExecutedOn[3]: '5030'" + expected,
                        "test.yaml:4:54: routes[0].notExecutedOn[5]: '503' is listed twice (expected: each item once)");
        assertThat(parseProblems("routes:\n  - name: r\n    upstream: http://127.0.0.1:8081\n    notExecutedOn: 503\n"))
                .containsExactly("test.yaml:4:20: routes[0].notExecutedOn: expected a list, got a number");
    }

    @Test
    void theTransportIsAutoByDefaultAndOtherwiseOneOfTheFourSpellings(@TempDir Path dir) throws Exception {
        assertThat(loader.parse("listen: 127.0.0.1:8080\n", "t.yaml", dir).server().transport()).isEqualTo(Transport.Choice.AUTO);
        for (Transport.Choice c : Transport.Choice.values()) {
            ProxyConfig config = loader.parse("server: { transport: " + c.spelling() + " }\n", "t.yaml", dir);
            assertThat(config.server().transport()).isEqualTo(c);
            assertThat(ConfigDescriber.effectiveConfig(config).get("server").toString()).contains("transport=" + c.spelling());
        }
        assertThatThrownBy(() -> loader.parse("server:\n  transport: uring\n", "t.yaml", dir))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("t.yaml:2:14: server.transport: 'uring' (expected one of: auto, io_uring, epoll, nio)");
    }

    @Test
    void theNearCacheIsOnByDefaultOnlyForTheEmbeddedStoreAndEitherWayCanBeSwitched(@TempDir Path dir) throws Exception {
        StorePolicy.NearCachePolicy on = StorePolicy.NearCachePolicy.ENABLED;
        StorePolicy.NearCachePolicy off = StorePolicy.NearCachePolicy.DISABLED;

        assertThat(loader.parse("", "test.yaml", dir).store().nearCache()).isEqualTo(on);
        assertThat(loader.parse("store: { type: embedded }\n", "test.yaml", dir).store().nearCache()).isEqualTo(on);
        assertThat(loader.parse("store: { type: redis }\n", "test.yaml", dir).store().nearCache()).isEqualTo(off);
        assertThat(loader.parse("store: { type: memory }\n", "test.yaml", dir).store().nearCache()).isEqualTo(off);
        assertThat(loader.parse("store: { type: embedded, nearCache: { enabled: false } }\n", "test.yaml", dir)
                .store().nearCache()).isEqualTo(off);
        assertThat(loader.parse("store: { type: redis, nearCache: { enabled: true, ttl: 5s } }\n", "test.yaml", dir)
                .store().nearCache()).isEqualTo(new StorePolicy.NearCachePolicy(true, 10_000, 64L * 1024 * 1024,
                        Duration.ofSeconds(5)));
        assertThat(loader.parse("store: { nearCache: { maxEntries: 50 } }\n", "test.yaml", dir).store().nearCache())
                .isEqualTo(new StorePolicy.NearCachePolicy(true, 50, 64L * 1024 * 1024, Duration.ofSeconds(30)));
    }

    @Test
    void theMemoryStoresByteBoundIsASizeOfAtLeastOneMebibyteDefaultingToAQuarterOfTheHeap(@TempDir Path dir)
            throws Exception {
        assertThat(loader.parse("store: { type: memory }\n", "test.yaml", dir).store().memoryMaxBytes())
                .isEqualTo(MemoryStore.defaultMaxBytes());
        assertThat(loader.parse("store: { type: memory, memory: { maxEntries: 5000, maxBytes: 64MiB } }\n", "test.yaml", dir)
                .store()).satisfies(s -> {
                    assertThat(s.memoryMaxEntries()).isEqualTo(5000);
                    assertThat(s.memoryMaxBytes()).isEqualTo(64L * 1024 * 1024);
                });
        assertThat(parseProblems("store:\n  memory: { maxBytes: 512KiB }\n"))
                .containsExactly("test.yaml:2:23: store.memory.maxBytes: 512KiB (expected: >= 1MiB)");
        assertThat(ConfigDescriber.effectiveConfig(loader.parse("store: { memory: { maxBytes: 3GiB } }\n", "t.yaml", dir))
                .get("store").toString()).contains("memory={maxEntries=1000000, maxBytes=3GiB}");
    }

    @Test
    void redisTlsCaFileIsResolvedAgainstTheConfigDirectoryAndThePasswordComesFromTheEnvironment(@TempDir Path dir)
            throws Exception {
        Files.createDirectories(dir.resolve("certs"));
        Files.writeString(dir.resolve("certs/redis-ca.pem"), "-----BEGIN CERTIFICATE-----\n");
        YamlConfigLoader withEnv = new YamlConfigLoader(Map.of("REDIS_PASSWORD", "s3cret")::get);
        String yaml = "store:\n"
                + "  type: redis\n"
                + "  redis: { uri: \"rediss://:${REDIS_PASSWORD}@cache:6380\", tls: { caFile: certs/redis-ca.pem } }\n";

        StorePolicy.RedisPolicy redis = withEnv.parse(yaml, "test.yaml", dir).store().redis();

        assertThat(redis).isEqualTo(new StorePolicy.RedisPolicy("rediss://:s3cret@cache:6380", "standalone", "idemproxy:",
                dir.resolve("certs/redis-ca.pem")));
        assertThat(redis.redactedUri()).isEqualTo("rediss://***@cache:6380");
    }

    @Test
    void aRedisCaFileIsReportedWhenUnreadableOrWithoutRediss() {
        assertThat(parseProblems("store:\n  redis: { uri: \"rediss://cache:6380\", tls: { caFile: missing.pem } }\n"))
                .containsExactly("test.yaml:2:55: store.redis.tls.caFile: 'missing.pem' cannot be read (expected: a readable"
                        + " PEM file, relative to the config file's directory)");
        assertThat(parseProblems("store:\n  redis: { uri: \"redis://cache:6379\", tls: { caFile: pom.xml } }\n"))
                .containsExactly("test.yaml:2:54: store.redis.tls.caFile: given with a redis:// URI (expected: a"
                        + " rediss:// store.redis.uri)");
    }

    @Test
    void variablesAreExpandedInValuesOfEveryType() throws Exception {
        YamlConfigLoader withEnv = new YamlConfigLoader(Map.of("PORT", "9090", "TOKEN", "s3cret", "ATTEMPTS", "3")::get);
        String yaml = "listen: 127.0.0.1:${PORT}\n"
                + "admin: { token: \"${TOKEN}\" }\n"
                + "routes:\n"
                + "  - name: echo\n"
                + "    upstream: ${UPSTREAM:-http://127.0.0.1:8081}\n"
                + "    retry: { maxAttempts: \"${ATTEMPTS}\", maxRetryAfter: \"${WAIT:-5s}\" }\n";

        ProxyConfig config = withEnv.parse(yaml, "test.yaml", Path.of(""));

        assertThat(config.listen()).isEqualTo(new HostPort("127.0.0.1", 9090));
        assertThat(config.admin().token()).isEqualTo("s3cret");
        assertThat(config.routes().get(0).upstream()).isEqualTo(URI.create("http://127.0.0.1:8081"));
        assertThat(config.routes().get(0).retry().maxAttempts()).isEqualTo(3);
        assertThat(config.routes().get(0).retry().maxRetryAfter()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void nonLoopbackAdminListenerIsAcceptedWithAToken() throws Exception {
        ProxyConfig config = parse("admin: { listen: 0.0.0.0:9901, token: abc }\n");

        assertThat(config.admin().hasToken()).isTrue();
    }

    @Test
    void unknownKeysAreReportedWhereTheyAre() {
        assertThat(problems("unknown-key.yaml")).containsExactly(
                INVALID + "unknown-key.yaml:3:1: lissten: unknown key (expected one of: listen, shutdown, admin, server, "
                        + "limits, store, tasks, retryBudget, secretHeaders, secretQueryParams, forwardProxy, routes)",
                INVALID + "unknown-key.yaml:8:7: routes[0].retry.maxAttempt: unknown key (expected one of: maxAttempts, "
                        + "retryOn, backoff, maxRetryAfter)",
                INVALID + "unknown-key.yaml:9:5: routes[0].upstream: duplicate key (first at line 6)");
    }

    @Test
    void wrongTypesAreReported() {
        assertThat(problems("wrong-type.yaml")).containsExactly(
                INVALID + "wrong-type.yaml:6:16: routes[0].match.methods: expected a list, got a string",
                INVALID + "wrong-type.yaml:8:20: routes[0].retry.maxAttempts: expected an integer, got a list",
                INVALID + "wrong-type.yaml:9:11: routes[0].tags: expected a list, got a map");
    }

    @Test
    void zeroMaxAttemptsIsReported() {
        assertThat(problems("max-attempts-zero.yaml")).containsExactly(
                INVALID + "max-attempts-zero.yaml:5:20: routes[0].retry.maxAttempts: 0 (expected: >= 1)");
    }

    @Test
    void badDurationsAreReported() {
        assertThat(problems("bad-duration.yaml")).containsExactly(
                INVALID + "bad-duration.yaml:2:10: shutdown.grace: expected a duration such as 250ms, 10s, 5m, 24h, got 'abc'",
                INVALID + "bad-duration.yaml:6:26: routes[0].timeouts.connect: expected a duration such as 250ms, 10s, 5m, 24h, "
                        + "got '10'",
                INVALID + "bad-duration.yaml:6:38: routes[0].timeouts.perTry: 0s (expected: > 0)");
    }

    @Test
    void badSizesAreReported() {
        assertThat(problems("bad-size.yaml")).containsExactly(
                INVALID + "bad-size.yaml:2:18: server.maxHeaderSize: 512 (expected: >= 1KiB)",
                INVALID + "bad-size.yaml:7:23: routes[0].idempotency.maxRequestBody: expected a size such as 1024, 512KiB, "
                        + "4MiB, 1GiB, got '4MB'");
    }

    @Test
    void badBackoffAndJitterAreReported() {
        assertThat(problems("bad-jitter.yaml")).containsExactly(
                INVALID + "bad-jitter.yaml:5:36: routes[0].retry.backoff.max: 1s is below backoff.initial 2s (expected: >= initial)",
                INVALID + "bad-jitter.yaml:5:48: routes[0].retry.backoff.jitter: 'half' (expected: full, equal, none or "
                        + "a fraction 0.0..1.0)");
    }

    @Test
    void badRetryOnEntriesAreReported() {
        String expected = " (expected: connect-failure, read-timeout, idle-timeout, reset or a status 400..599)";
        assertThat(problems("bad-retry-on.yaml")).containsExactly(
                INVALID + "bad-retry-on.yaml:5:34: routes[0].retry.retryOn[1]: 'timeout'" + expected,
                INVALID + "bad-retry-on.yaml:5:43: routes[0].retry.retryOn[2]: '200'" + expected);
    }

    @Test
    void anItemListedTwiceIsReportedAtItsSecondMention() {
        String twice = " is listed twice (expected: each item once)";
        assertThat(problems("duplicate-items.yaml")).containsExactly(
                INVALID + "duplicate-items.yaml:3:53: routes[0].match.methods[2]: 'GET'" + twice,
                INVALID + "duplicate-items.yaml:5:46: routes[0].retry.retryOn[2]: '503'" + twice,
                INVALID + "duplicate-items.yaml:6:51: routes[0].idempotency.methods[1]: 'POST'" + twice);
    }

    @Test
    void missingRequiredKeysAreReportedAtTheirRoute() {
        assertThat(problems("missing-upstream.yaml")).containsExactly(
                INVALID + "missing-upstream.yaml:2:5: routes[0].upstream: missing (expected: an upstream URI, or a match.host: "
                        + "a route without upstream forwards to the host the client asked for)",
                INVALID + "missing-upstream.yaml:4:5: routes[1].name: missing required key");
    }

    @Test
    void duplicateRouteNamesAreReported() {
        assertThat(problems("duplicate-name.yaml")).containsExactly(
                INVALID + "duplicate-name.yaml:4:11: routes[1].name: 'echo' is already used by routes[0] (expected: a unique name)");
    }

    @Test
    void yamlSyntaxErrorsCarryTheirPosition() {
        assertThat(problems("syntax-error.yaml")).containsExactly(
                INVALID + "syntax-error.yaml:5:34: YAML syntax error: expected ',' or ']', but got } "
                        + "(while parsing a flow sequence at 5:23)");
    }

    @Test
    void badRequestPartsAreReported() {
        String expected = " (expected: method, path, body, header:NAME, query:NAME or body:/json/pointer)";
        assertThat(problems("bad-part.yaml")).containsExactly(
                INVALID + "bad-part.yaml:7:26: routes[0].idempotency.key.derive[1]: 'header:' has no valid header name" + expected,
                INVALID + "bad-part.yaml:7:37: routes[0].idempotency.key.derive[2]: 'cookie:session' is not a request part"
                        + expected,
                INVALID + "bad-part.yaml:8:21: routes[0].idempotency.fingerprint[0]: 'body:userId' is not a JSON pointer" + expected);
    }

    /**
     * A Redis URI that can never connect is a config error (exit 2), not an outage the proxy would
     * wait out in the background; a host name is not resolved (one that does not resolve yet may later).
     */
    @Test
    void aRedisUriWithoutAUsableAddressIsAConfigError() throws Exception {
        assertThat(parseProblems("store:\n  redis: { uri: \"redis://:pw@127.0.0.1:notaport\" }\n"))
                .containsExactly("test.yaml:2:17: store.redis.uri: 'redis://***@127.0.0.1:notaport': port 'notaport' of"
                        + " '127.0.0.1' is not a number from 1 to 65535 (expected: host:port[,host:port], ports 1-65535)");
        assertThat(parseProblems("store:\n  redis: { uri: \"redis://h1:7000,:7001\", mode: cluster }\n"))
                .containsExactly("test.yaml:2:17: store.redis.uri: 'redis://h1:7000,:7001': an address without a host"
                        + " (expected: host:port[,host:port], ports 1-65535)");
        assertThat(parseProblems("store:\n  redis: { uri: \"redis://\" }\n")).hasSize(1);
        for (String fine : new String[] {"redis://not-resolvable.invalid:6379", "rediss://[::1]:6380/0",
                "redis-sentinel://:pw@s1:26379,s2/0#mymaster", "redis://cache?timeout=5s"}) {
            String mode = fine.startsWith("redis-sentinel") ? "sentinel" : "standalone";
            assertThat(parse("store:\n  redis: { uri: \"" + fine + "\", mode: " + mode + " }\n").store().redis().uri())
                    .isEqualTo(fine);
        }
    }

    @Test
    void everyProblemOfAFileIsReportedTogetherInDocumentOrder() {
        String f = INVALID + "many-problems.yaml";
        assertThat(problems("many-problems.yaml")).containsExactly(
                f + ":2:9: listen: 'localhost' has no port (expected: host:port)",
                f + ":4:11: admin.listen: 0.0.0.0:9901 is not a loopback address (expected: a loopback address, or set admin.token)",
                f + ":6:9: store.type: 'mysql' (expected one of: embedded, memory, redis)",
                f + ":7:17: store.redis.uri: 'http://***@redis:6379' (expected: a redis://, rediss:// or redis-sentinel:// URI)",
                f + ":10:20: routes[0].match.host: 'tickets.internal:8443' (expected: a host name without port or scheme)",
                f + ":10:57: routes[0].match.pathPrefix: 'api' (expected: a path starting with /)",
                f + ":10:72: routes[0].match.methods[0]: 'post' (expected: an upper-case HTTP method such as GET or POST)",
                f + ":11:15: routes[0].upstream: 'ftp://tickets.internal' (expected: an http:// or https:// URI)",
                f + ":12:24: routes[0].tags[1]: 'safe' (expected one of: idempotent)",
                f + ":14:16: routes[0].idempotency.enabled: expected true or false, got 'yes'",
                f + ":15:21: routes[0].idempotency.onConcurrent: 'queue' (expected one of: wait, reject)",
                f + ":17:12: routes[0].receipt.url: unknown placeholder {orderId} (expected: {callId}, {key} or {bizId})",
                f + ":18:22: routes[0].receipt.statusPointer: 'status' (expected: a JSON pointer such as /status)",
                f + ":20:15: routes[0].tls.caFile: 'missing-ca.pem' cannot be read (expected: a readable PEM file, "
                        + "relative to the config file's directory)");
    }

    @Test
    void unsetVariablesWithoutDefaultAreReportedAtTheirKey() {
        assertThat(problems("unset-env.yaml")).containsExactly(
                INVALID + "unset-env.yaml:2:10: admin.token: environment variable IDEMPROXY_TEST_ADMIN_TOKEN is not set",
                INVALID + "unset-env.yaml:7:20: routes[0].retry.maxAttempts: unclosed ${ in '${IDEMPROXY_TEST_ATTEMPTS' "
                        + "(expected: ${NAME} or ${NAME:-default})");
    }

    @Test
    void aDocumentThatIsNotAMapIsReported() {
        assertThat(parseProblems("- listen: 127.0.0.1:8080\n"))
                .containsExactly("test.yaml:1:1: expected a map, got a list");
    }

    @Test
    void aRouteListItemThatIsNotAMapIsReported() {
        assertThat(parseProblems("routes:\n  - echo\n"))
                .containsExactly("test.yaml:2:5: routes[0]: expected a map, got a string");
    }

    @Test
    void aBadRouteNameIsReportedOnce() {
        assertThat(parseProblems("routes:\n  - name: ${UNSET_NAME}\n    upstream: http://a\n  - name: [x]\n    upstream: http://b\n"))
                .containsExactly(
                        "test.yaml:2:11: routes[0].name: environment variable UNSET_NAME is not set",
                        "test.yaml:4:11: routes[1].name: expected a route name, got a list");
    }

    @Test
    void theMetricsListenerIsOptionalAndNeedsNoToken() throws Exception {
        assertThat(parse("listen: 127.0.0.1:8080\n").admin().hasMetricsListener()).isFalse();
        ProxyConfig c = parse("admin: { listen: 127.0.0.1:9901, metricsListen: 0.0.0.0:9902 }\n");
        assertThat(c.admin().metricsListen()).isEqualTo(new dev.idemproxy.core.HostPort("0.0.0.0", 9902));
        assertThat(c.admin().hasToken()).isFalse();
    }

    @Test
    void aMetricsListenerOnABadAddressOrATakenPortIsReportedAtItsKey() {
        assertThat(parseProblems("admin:\n  metricsListen: 9902\n")).containsExactly(
                "test.yaml:2:18: admin.metricsListen: '9902' has no port (expected: host:port)");
        assertThat(parseProblems("admin:\n  listen: 127.0.0.1:9901\n  metricsListen: 0.0.0.0:9901\n")).containsExactly(
                "test.yaml:3:18: admin.metricsListen: 0.0.0.0:9901 takes admin.listen's port (expected: a port of its own)");
        assertThat(parseProblems("listen: 0.0.0.0:8080\nadmin:\n  metricsListen: 127.0.0.1:8080\n")).containsExactly(
                "test.yaml:3:18: admin.metricsListen: 127.0.0.1:8080 takes listen's port (expected: a port of its own)");
        assertThat(parseProblems("admin:\n  metricsListen: [a]\n")).singleElement().asString()
                .startsWith("test.yaml:2:18: admin.metricsListen: expected host:port");
    }

    @Test
    void aMetricsListenerOnAnotherHostsPortOrAFreePortIsFine() throws Exception {
        assertThat(parse("listen: 127.0.0.1:9902\nadmin: { metricsListen: 127.0.0.2:9902 }\n").admin().metricsListen().port())
                .isEqualTo(9902);
        assertThat(parse("listen: 127.0.0.1:0\nadmin: { listen: 127.0.0.1:0, metricsListen: 127.0.0.1:0 }\n").admin()
                .metricsListen().port()).isZero();
    }

    @Test
    void secretQueryParamsAreReadAndABadNameIsReported() throws Exception {
        assertThat(parse("secretQueryParams: [sig, X-Amz-Signature]\n").secretQueryParams()).containsExactly("sig", "X-Amz-Signature");
        assertThat(parse("listen: 127.0.0.1:8080\n").secretQueryParams()).isEmpty();
        assertThat(parseProblems("secretQueryParams: [\"a b\", \"x=y\", \"\"]\n")).containsExactly(
                "test.yaml:1:21: secretQueryParams[0]: 'a b' (expected: a query parameter name: 1-128 characters,"
                        + " no white space and none of & = ; ? #)",
                "test.yaml:1:28: secretQueryParams[1]: 'x=y' (expected: a query parameter name: 1-128 characters,"
                        + " no white space and none of & = ; ? #)",
                "test.yaml:1:35: secretQueryParams[2]: '' (expected: a query parameter name: 1-128 characters,"
                        + " no white space and none of & = ; ? #)");
    }

    /** A business id is logged, kept in receipts and shown: it can never be read from a credential. */
    @Test
    void aBusinessIdFromACredentialHeaderOrSecretQueryParameterIsAProblem() {
        String expected = " holds a secret (expected: a part that does not: a business id is logged, kept in receipts and shown"
                + " by the admin API)";
        assertThat(parseProblems("secretHeaders: [X-Auth-Token]\nsecretQueryParams: [sig]\nroutes:\n  - name: a\n"
                + "    upstream: http://127.0.0.1:8081\n"
                + "    ids: { bizId: [header:x-auth-token, header:Authorization, query:SIG, query:token, header:X-Biz-Id] }\n"))
                .containsExactly(
                        "test.yaml:6:20: routes[0].ids.bizId[0]: 'header:x-auth-token'" + expected,
                        "test.yaml:6:41: routes[0].ids.bizId[1]: 'header:Authorization'" + expected,
                        "test.yaml:6:63: routes[0].ids.bizId[2]: 'query:SIG'" + expected,
                        "test.yaml:6:74: routes[0].ids.bizId[3]: 'query:token'" + expected);
    }

    /** docs/security.md: validate output never shows a secret, not even in a problem about the value that holds it. */
    @Test
    void problemLinesShowNoUserInfoNorSecretQueryValues() {
        assertThat(parseProblems("secretQueryParams: [sig]\nroutes:\n  - name: a\n"
                + "    upstream: \"ftp://bob:hunter2@h/x\"\n"
                + "    receipt: { url: \"ftp://h/r?sig=s1g&token=t0k\" }\n"))
                .allSatisfy(line -> assertThat(line).doesNotContain("hunter2").doesNotContain("s1g").doesNotContain("t0k"))
                .anySatisfy(line -> assertThat(line).contains("ftp://***@h/x"))
                .anySatisfy(line -> assertThat(line).contains("ftp://h/r?sig=***&token=***"));
    }

    @Test
    void aMissingFileIsOneLine() {
        assertThat(problems("no-such-file.yaml")).containsExactly(INVALID + "no-such-file.yaml: cannot read: no such file");
    }

    @Test
    void knownKeyPathsCoverTheContract() {
        assertThat(YamlConfigLoader.knownKeyPaths()).contains("listen", "shutdown.grace", "store.redis.keyPrefix",
                "routes[].idempotency.key.derive", "routes[].retry.backoff.jitter", "routes[].deadLetter.keepHeaders",
                "server.maxInitialLine", "limits.headTimeout", "limits.underscoreHeaders", "routes[].tls.caFile",
                "store.redis.tls.caFile", "routes[].pool.idleTimeout", "secretHeaders", "secretQueryParams");
    }

    private ProxyConfig parse(String yaml) throws InvalidConfigException {
        return loader.parse(yaml, "test.yaml", Path.of(""));
    }

    private List<String> parseProblems(String yaml) {
        InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class, () -> parse(yaml));
        assertThat(e).as("problems of %s", yaml).isNotNull();
        return e.problems().stream().map(ConfigProblem::toString).toList();
    }

    private List<String> problems(String file) {
        InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class,
                () -> loader.load(Path.of(INVALID + file)));
        assertThat(e).as("problems of %s", file).isNotNull();
        return e.problems().stream().map(ConfigProblem::toString).toList();
    }

    private static List<RequestPart> parts(String... texts) {
        return List.of(texts).stream().map(RequestPart::parse).toList();
    }
}
