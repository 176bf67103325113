package dev.idemproxy.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idemproxy.core.AdminPolicy;
import dev.idemproxy.core.HostPort;
import dev.idemproxy.core.ProxyConfig;
import dev.idemproxy.core.ServerPolicy;
import dev.idemproxy.core.Transport;
import dev.idemproxy.core.dlq.DeadLetterPolicy;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.idempotency.KeyPolicy;
import dev.idemproxy.core.idempotency.RequestPart;
import dev.idemproxy.core.receipt.IdsPolicy;
import dev.idemproxy.core.receipt.ReceiptPolicy;
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
import dev.idemproxy.core.store.memory.MemoryIdempotencyStore;
import dev.idemproxy.core.upstream.PoolPolicy;
import dev.idemproxy.core.upstream.TlsPolicy;
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
                new StorePolicy(StorePolicy.Type.EMBEDDED, Path.of("./idemproxy-data"), 1_000_000,
                        MemoryIdempotencyStore.defaultMaxBytes(),
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
                TlsPolicy.DEFAULT, PoolPolicy.DEFAULT);
    }

    @Test
    void omittedKeysTakeTheRecordDefaults() throws Exception {
        ProxyConfig config = parse("routes:\n  - name: echo\n    upstream: http://127.0.0.1:8081\n");

        assertThat(config).isEqualTo(ProxyConfig.empty().withRoutes(List.of(
                Route.passThrough("echo", RouteMatch.ANY, URI.create("http://127.0.0.1:8081")))));
        assertThat(config.routes().get(0).idempotency().fingerprint()).isEmpty();
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
        String yaml = "server: { ioThreads: 2, clientIdle: 90s, maxHeaderSize: 32KiB, maxInitialLine: 4096 }\n"
                + "secretHeaders: [X-Api-Key]\n"
                + "routes:\n"
                + "  - name: secure\n"
                + "    upstream: https://api.internal\n"
                + "    tls: { caFile: certs/ca.pem, serverName: api.example.com }\n"
                + "    pool: { maxIdle: 8, idleTimeout: 1m30s }\n";

        ProxyConfig config = loader.parse(yaml, "test.yaml", dir);

        assertThat(config.server()).isEqualTo(new ServerPolicy(2, Duration.ofSeconds(90), 32 * 1024, 4096));
        assertThat(config.secretHeaders()).containsExactly("X-Api-Key");
        Route route = config.routes().get(0);
        assertThat(route.tls()).isEqualTo(new TlsPolicy(dir.resolve("certs/ca.pem"), "api.example.com"));
        assertThat(route.pool()).isEqualTo(new PoolPolicy(8, Duration.ofSeconds(90)));
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
                .isEqualTo(MemoryIdempotencyStore.defaultMaxBytes());
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
        assertThat(redis.redactedUri()).isEqualTo("rediss://<redacted>@cache:6380");
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
                        + "store, tasks, retryBudget, secretHeaders, forwardProxy, routes)",
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
                .containsExactly("test.yaml:2:17: store.redis.uri: 'redis://<redacted>@127.0.0.1:notaport': port 'notaport' of"
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
                f + ":7:17: store.redis.uri: 'http://<redacted>@redis:6379' (expected: a redis://, rediss:// or redis-sentinel:// URI)",
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
    void aMissingFileIsOneLine() {
        assertThat(problems("no-such-file.yaml")).containsExactly(INVALID + "no-such-file.yaml: cannot read: no such file");
    }

    @Test
    void knownKeyPathsCoverTheContract() {
        assertThat(YamlConfigLoader.knownKeyPaths()).contains("listen", "shutdown.grace", "store.redis.keyPrefix",
                "routes[].idempotency.key.derive", "routes[].retry.backoff.jitter", "routes[].deadLetter.keepHeaders",
                "server.maxInitialLine", "routes[].tls.caFile", "store.redis.tls.caFile", "routes[].pool.idleTimeout", "secretHeaders");
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
