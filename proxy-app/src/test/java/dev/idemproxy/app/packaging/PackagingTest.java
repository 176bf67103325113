package dev.idemproxy.app.packaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.idemproxy.app.config.InvalidConfigException;
import dev.idemproxy.app.config.YamlConfigLoader;
import dev.idemproxy.core.ProxyConfig;
import dev.idemproxy.core.store.StorePolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Checks the deliverables that no build here can run: the Dockerfile, the image's default config,
 * the Helm chart's values against its schema, the rendered examples under examples/k8s (every
 * YAML document: sidecar placement, probes, security, grace, store, secrets, ServiceMonitor) and
 * the Grafana dashboard's metric names.
 */
class PackagingTest {
    private static final Path ROOT = Path.of("..");
    private static final Path CHART = ROOT.resolve("helm/idemproxy");
    private static final Path EXAMPLES = ROOT.resolve("examples/k8s");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final String ADMIN_PORT = "idemproxy-admin";
    private static final String METRICS_PORT = "idemproxy-metrics";
    private static final Map<String, String> ENV = Map.of("REDIS_PASSWORD", "s3cret", "IDEMPROXY_ADMIN_TOKEN", "t0ken");

    @TempDir
    Path tmp;

    // ---------------------------------------------------------------- Dockerfile and image config

    @Test
    void dockerfileBuildsWithMavenAndRunsOnATrimmedJreAsNonRoot() throws IOException {
        List<String> lines = dockerInstructions();

        List<String> froms = lines.stream().filter(l -> l.startsWith("FROM ")).toList();
        assertThat(froms).hasSize(3);
        assertThat(froms.get(0)).contains("maven:").contains("AS build");
        assertThat(froms.get(1)).contains("AS jre");
        assertThat(lines).anyMatch(l -> l.startsWith("RUN ") && l.contains("jlink") && l.contains("--output /jre"));
        assertThat(lines).anyMatch(l -> l.startsWith("RUN ") && l.contains("mvn -B -q -pl proxy-app -am package -DskipTests"));
        assertThat(lines).anyMatch(l -> l.startsWith("COPY --from=build ") && l.contains("idemproxy.jar"));
        assertThat(lines).anyMatch(l -> l.startsWith("COPY --from=jre /jre "));

        List<String> users = lines.stream().filter(l -> l.startsWith("USER ")).toList();
        assertThat(users).isNotEmpty();
        String user = users.get(users.size() - 1).substring(5).trim().split(":")[0];
        assertThat(user).isNotIn("root", "0").matches("[1-9][0-9]*");
        assertThat(lines).anyMatch(l -> l.startsWith("RUN ") && l.contains("useradd") && l.contains("--uid " + user));
    }

    @Test
    void dockerfileExposesPortsChecksHealthAndFitsAReadOnlyRootFs() throws IOException {
        List<String> lines = dockerInstructions();

        assertThat(lines).filteredOn(l -> l.startsWith("EXPOSE ")).singleElement()
                .satisfies(l -> assertThat(l.split("\\s+")).contains("8080", "9901"));
        assertThat(lines).filteredOn(l -> l.startsWith("HEALTHCHECK ")).singleElement()
                .satisfies(l -> assertThat(l).contains("CMD").contains("127.0.0.1:9901/healthz").contains("curl"));
        // curl is installed in the runtime stage, not assumed from the base image.
        int runtime = lastIndexOf(lines, "FROM ");
        assertThat(lines.subList(runtime, lines.size()))
                .anyMatch(l -> l.startsWith("RUN ") && l.contains("apt-get install") && l.contains("curl"));
        assertThat(lines).contains("VOLUME /data");
        // The JVM profile of config/jvm.options, the AOT cache made at build time with the same
        // options the entrypoint uses, and the idemproxy command on PATH.
        assertThat(lines).contains("COPY config/jvm.options /etc/idemproxy/jvm.options");
        assertThat(lines).anyMatch(l -> l.startsWith("RUN java -XX:AOTCacheOutput=/app/idemproxy.aot -XX:+UseCompactObjectHeaders @/etc/idemproxy/jvm.options"));
        assertThat(lines).anyMatch(l -> l.startsWith("ENTRYPOINT [\"java\", \"-XX:AOTCache=/app/idemproxy.aot\", \"-XX:+UseCompactObjectHeaders\"")
                && l.contains("\"@/etc/idemproxy/jvm.options\""));
        assertThat(lines).contains("COPY bin/idemproxy /usr/local/bin/idemproxy");
        assertThat(lines).contains("WORKDIR /app");
        assertThat(lines).contains("COPY config/docker.yaml /etc/idemproxy/idemproxy.yaml");
        assertThat(lines).anyMatch(l -> l.startsWith("ENTRYPOINT [\"java\""));
        assertThat(lines).anyMatch(l -> l.startsWith("CMD [\"run\", \"--config\", \"/etc/idemproxy/idemproxy.yaml\"]"));

        List<String> ignored = Files.readAllLines(ROOT.resolve(".dockerignore"));
        assertThat(ignored).contains("**/target/", ".git");
        assertThat(ignored).doesNotContain("config/", "config", "proxy-app/", "proxy-core/");
    }

    @Test
    void theImageConfigListensEverywhereKeepsAdminOnLoopbackStoresUnderDataAndProtectsItsRoute() throws Exception {
        ProxyConfig config = new YamlConfigLoader(name -> null).load(ROOT.resolve("config/docker.yaml"));

        assertThat(config.listen().host()).isEqualTo("0.0.0.0");
        assertThat(config.listen().port()).isEqualTo(8080);
        assertThat(config.admin().listen().host()).isEqualTo("127.0.0.1");
        assertThat(config.admin().listen().port()).isEqualTo(9901);
        assertThat(config.store().type()).isEqualTo(StorePolicy.Type.EMBEDDED);
        assertThat(config.store().embeddedPath()).isEqualTo(Path.of("/data"));
        assertThat(config.shutdownGrace()).isEqualTo(Duration.ofSeconds(20));
        assertThat(config.routes()).singleElement().satisfies(r -> assertThat(r.idempotency().enabled()).isTrue());
    }

    @Test
    void theImageConfigOpensAdminOnlyWithAToken() throws Exception {
        Path file = ROOT.resolve("config/docker.yaml");
        Map<String, String> open = Map.of("IDEMPROXY_ADMIN_LISTEN", "0.0.0.0:9901", "IDEMPROXY_ADMIN_TOKEN", "t0ken",
                "IDEMPROXY_STORE", "redis", "IDEMPROXY_REDIS_URI", "redis://:pw@redis:6379");
        ProxyConfig config = new YamlConfigLoader(open::get).load(file);
        assertThat(config.admin().listen().host()).isEqualTo("0.0.0.0");
        assertThat(config.store().type()).isEqualTo(StorePolicy.Type.REDIS);

        Map<String, String> noToken = Map.of("IDEMPROXY_ADMIN_LISTEN", "0.0.0.0:9901");
        assertThatThrownBy(() -> new YamlConfigLoader(noToken::get).load(file))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("not a loopback address");
    }

    // ---------------------------------------------------------------- chart values and schema

    @Test
    void theSchemaAcceptsValuesYamlAndTheCiValues() throws IOException {
        MiniJsonSchema schema = schema();
        JsonNode defaults = values();
        assertThat(schema.validate(defaults)).isEmpty();

        try (Stream<Path> ci = Files.list(CHART.resolve("ci"))) {
            List<Path> files = ci.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
            assertThat(files).isNotEmpty();
            for (Path file : files) {
                JsonNode merged = merge(values(), YAML.readTree(file.toFile()));
                assertThat(schema.validate(merged)).as("values.yaml + %s", file.getFileName()).isEmpty();
            }
        }
    }

    @Test
    void theSchemaRejectsWrongValues() throws IOException {
        MiniJsonSchema schema = schema();
        assertThat(schema.validate(with("sidecar", "mode", "sidecar"))).singleElement().asString().contains("$.sidecar.mode");
        assertThat(schema.validate(with("store", "type", "postgres"))).singleElement().asString().contains("$.store.type");
        assertThat(schema.validate(with("admin", "port", 0))).singleElement().asString().contains("minimum");
        assertThat(schema.validate(with("shutdown", "graceSeconds", "20s"))).singleElement().asString().contains("integer");
        assertThat(schema.validate(with("store", "typo", "x"))).singleElement().asString().contains("unknown property");
        ObjectNode missing = (ObjectNode) values();
        missing.remove("image");
        assertThat(schema.validate(missing)).singleElement().asString().contains("'image'");
        ObjectNode badRoute = (ObjectNode) values();
        ((ObjectNode) badRoute.path("config").path("routes").get(0)).remove("upstream");
        assertThat(schema.validate(badRoute)).singleElement().asString().contains("$.config.routes[0]").contains("'upstream'");
        ((ObjectNode) badRoute.path("config").path("routes").get(0).path("match")).put("host", "api.stripe.com");
        assertThat(schema.validate(badRoute)).as("no upstream: forwards to match.host").isEmpty();
        assertThat(schema.validate(with("forwardProxy", "connect", "allow"))).singleElement().asString()
                .contains("$.forwardProxy.connect");
    }

    @Test
    void withForwardProxyTheCaComesFromASecretMountedIntoTheSidecarAlone() throws IOException {
        String sidecar = Files.readString(CHART.resolve("templates/sidecar.yaml"));
        String helpers = Files.readString(CHART.resolve("templates/_helpers.tpl"));
        String deployment = Files.readString(CHART.resolve("templates/deployment.yaml"));

        assertThat(helpers).contains("forwardProxy:", "/etc/idemproxy-ca/%s", "required \"forwardProxy.ca.existingSecret",
                "defaultMode: 0440");
        assertThat(sidecar).contains("mountPath: /etc/idemproxy-ca\n");
        assertThat(deployment).contains("name: HTTPS_PROXY", ".Values.forwardProxy.agentEnv", "mountPath: /etc/idemproxy-ca-public")
                .doesNotContain("mountPath: /etc/idemproxy-ca\n");
        assertThat(values().path("forwardProxy").path("enabled").asBoolean()).as("off by default").isFalse();
        assertThat(values().path("forwardProxy").path("agentEnv").findValuesAsText("name"))
                .contains("NO_PROXY", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE");
    }

    @Test
    void theSchemaAcceptsEnabledForAParentChartsCondition() throws IOException {
        MiniJsonSchema schema = schema();
        for (boolean enabled : new boolean[] {true, false}) {
            ObjectNode root = (ObjectNode) values();
            root.put("enabled", enabled);
            assertThat(schema.validate(root)).isEmpty();
        }
        ObjectNode root = (ObjectNode) values();
        root.put("enabled", "yes");
        assertThat(schema.validate(root)).singleElement().asString().contains("$.enabled").contains("boolean");
    }

    @Test
    void theSchemaDeclaresEveryValueTheTemplatesRead() throws IOException {
        MiniJsonSchema schema = schema();
        Set<String> read = new TreeSet<>();
        try (Stream<Path> files = Files.list(CHART.resolve("templates"))) {
            for (Path file : files.sorted().toList()) {
                read.addAll(TemplateValueRefs.of(Files.readString(file)));
            }
        }
        assertThat(read).contains("sidecar.mode", "metrics.port", "metrics.scrapeAnnotations", "probes.startup.periodSeconds",
                "store.redis.existingSecretKey", "admin.token");
        assertThat(read).allSatisfy(path -> assertThat(schema.declares(TemplateValueRefs.keys(path)))
                .as("values.schema.json declares %s", path).isTrue());
        // ...and the check can fail: an undeclared key under a closed object is refused.
        assertThat(schema.declares(TemplateValueRefs.keys("metrics.typo"))).isFalse();
        assertThat(schema.declares(TemplateValueRefs.keys("securityContext.anything.below"))).isTrue();
    }

    @Test
    void theValueWalkerFollowsWithBlocksAndSkipsCommentsStringsAndRanges() {
        assertThat(TemplateValueRefs.of("""
                {{/* .Values.inComment */}}
                {{- with .Values.probes.startup }}{{ if .enabled }}{{ .periodSeconds }}{{ end }}{{ else }}{{ .Values.other }}{{ end }}
                {{ printf ".Values.inString %s" .Values.a.b | quote }}
                {{- range .Values.list }}{{ .item }}{{ end }}
                {{ include "x" (dict "Values" .Values.sub) }}
                """)).containsExactly("a.b", "list", "other", "probes.startup", "probes.startup.enabled",
                "probes.startup.periodSeconds", "sub");
    }

    @Test
    void theChartTemplatesCarryWhatTheExamplesShow() throws IOException {
        String sidecar = Files.readString(CHART.resolve("templates/sidecar.yaml"));
        String helpers = Files.readString(CHART.resolve("templates/_helpers.tpl"));
        String deployment = Files.readString(CHART.resolve("templates/deployment.yaml"));
        String serviceMonitor = Files.readString(CHART.resolve("templates/servicemonitor.yaml"));

        assertThat(sidecar).contains("{{- define \"idemproxy.sidecar\" -}}", "restartPolicy: Always",
                "path: /healthz, port: " + ADMIN_PORT, "path: /readyz, port: " + ADMIN_PORT, "preStop:",
                "name: IDEMPROXY_ADMIN_TOKEN", "name: REDIS_PASSWORD", "mountPath: /data", "mountPath: /tmp",
                "mountPath: /etc/idemproxy", "toYaml .Values.securityContext", "resources:");
        assertThat(helpers).contains("define \"idemproxy.volumes\"", "define \"idemproxy.config\"",
                "define \"idemproxy.terminationGracePeriodSeconds\"", "${REDIS_PASSWORD}@", "token: ${IDEMPROXY_ADMIN_TOKEN}",
                "path: /data", "emptyDir:");
        assertThat(deployment).contains("example.enabled", "initContainers:", "eq .Values.sidecar.mode \"classic\"",
                "include \"idemproxy.terminationGracePeriodSeconds\"");
        assertThat(serviceMonitor).contains("monitoring.coreos.com/v1", "metrics.serviceMonitor.enabled", "port: " + METRICS_PORT,
                // with metrics.port 0 (no metrics listener) it falls back to the admin port and the token
                "port: " + ADMIN_PORT, "type: Bearer");
        assertThat(sidecar).contains("include \"idemproxy.preStopSeconds\"", "name: " + METRICS_PORT);
        assertThat(helpers).contains("metricsListen:", "prometheus.io/scrape", "eq .Values.sidecar.mode \"classic\"");
        assertThat(Files.readString(CHART.resolve("Chart.yaml"))).contains("apiVersion: v2", "name: idemproxy");
    }

    // ---------------------------------------------------------------- rendered examples

    static Stream<Path> examples() throws IOException {
        try (Stream<Path> files = Files.list(EXAMPLES)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".yaml")).sorted().toList().stream();
        }
    }

    @Test
    void thereIsANativeAndAClassicExample() throws IOException {
        Set<String> modes = new TreeSet<>();
        for (Path file : examples().toList()) {
            Example example = Example.read(file);
            modes.add(example.pod().path("initContainers").findValues("name").stream()
                    .anyMatch(n -> n.asText().equals("idemproxy")) ? "native" : "classic");
        }
        assertThat(modes).containsExactly("classic", "native");
        assertThat(Example.read(EXAMPLES.resolve("native-sidecar.yaml")).store()).isEqualTo(StorePolicy.Type.EMBEDDED);
        assertThat(Example.read(EXAMPLES.resolve("classic-redis.yaml")).store()).isEqualTo(StorePolicy.Type.REDIS);
    }

    @ParameterizedTest
    @MethodSource("examples")
    void everyDocumentParsesAndIsAKnownKind(Path file) throws IOException {
        List<JsonNode> docs = Example.documents(file);
        assertThat(docs).isNotEmpty();
        for (JsonNode doc : docs) {
            assertThat(doc.path("apiVersion").asText()).isNotEmpty();
            assertThat(doc.path("kind").asText()).isIn("ConfigMap", "Secret", "Deployment", "Service", "ServiceMonitor");
            assertThat(doc.path("metadata").path("name").asText()).startsWith("demo-idemproxy");
            assertThat(doc.path("metadata").path("labels").path("app.kubernetes.io/instance").asText()).isEqualTo("demo");
        }
    }

    @ParameterizedTest
    @MethodSource("examples")
    void theSidecarIsPlacedByModeAndTheAppIsAnOrdinaryContainer(Path file) throws IOException {
        Example ex = Example.read(file);
        JsonNode pod = ex.pod();
        JsonNode sidecar = ex.sidecar();
        if (ex.isNative()) {
            assertThat(sidecar.path("restartPolicy").asText()).isEqualTo("Always");
            assertThat(names(pod.path("containers"))).doesNotContain("idemproxy").contains("app");
        } else {
            assertThat(sidecar.has("restartPolicy")).isFalse();
            assertThat(names(pod.path("containers"))).contains("idemproxy", "app");
            assertThat(names(pod.path("initContainers"))).doesNotContain("idemproxy");
        }
        assertThat(sidecar.path("image").asText()).startsWith("idemproxy:");
        assertThat(textList(sidecar.path("args"))).containsExactly("run", "--config", "/etc/idemproxy/idemproxy.yaml");
    }

    @ParameterizedTest
    @MethodSource("examples")
    void probesHitHealthzAndReadyzOnTheAdminPort(Path file) throws Exception {
        Example ex = Example.read(file);
        JsonNode sidecar = ex.sidecar();
        int adminPort = containerPort(sidecar, ADMIN_PORT);
        assertThat(adminPort).isEqualTo(ex.config().admin().listen().port());
        assertThat(ex.config().admin().listen().host()).as("kubelet probes reach a non-loopback admin").isEqualTo("0.0.0.0");
        assertThat(containerPort(sidecar, "idemproxy")).isEqualTo(ex.config().listen().port());

        assertProbe(sidecar.path("startupProbe"), "/healthz");
        assertProbe(sidecar.path("livenessProbe"), "/healthz");
        assertProbe(sidecar.path("readinessProbe"), "/readyz");
    }

    @ParameterizedTest
    @MethodSource("examples")
    void theSidecarIsLockedDown(Path file) throws IOException {
        JsonNode sc = Example.read(file).sidecar().path("securityContext");
        assertThat(sc.path("runAsNonRoot").asBoolean()).isTrue();
        assertThat(sc.path("runAsUser").asInt()).isPositive();
        assertThat(sc.path("readOnlyRootFilesystem").asBoolean()).isTrue();
        assertThat(sc.path("allowPrivilegeEscalation").isBoolean()).isTrue();
        assertThat(sc.path("allowPrivilegeEscalation").asBoolean()).isFalse();
        assertThat(textList(sc.path("capabilities").path("drop"))).containsExactly("ALL");
        assertThat(sc.path("capabilities").has("add")).isFalse();
        assertThat(sc.path("seccompProfile").path("type").asText()).isEqualTo("RuntimeDefault");
    }

    @ParameterizedTest
    @MethodSource("examples")
    void resourcesAreSet(Path file) throws IOException {
        JsonNode resources = Example.read(file).sidecar().path("resources");
        assertThat(resources.path("requests").path("cpu").asText()).isNotEmpty();
        assertThat(resources.path("requests").path("memory").asText()).isNotEmpty();
        assertThat(resources.path("limits").path("memory").asText()).isNotEmpty();
    }

    @ParameterizedTest
    @MethodSource("examples")
    void graceCoversThePreStopSleepAndShutdownGrace(Path file) throws Exception {
        Example ex = Example.read(file);
        long sleep = 0;
        if (ex.isNative()) {
            // Kubernetes stops a native sidecar after the app: a sleep would only delay the pod's end.
            assertThat(ex.sidecar().path("lifecycle").has("preStop")).as("preStop of a native sidecar").isFalse();
        } else {
            // A classic sidecar gets SIGTERM with the app: the sleep keeps it serving the app's last calls.
            List<String> preStop = textList(ex.sidecar().path("lifecycle").path("preStop").path("exec").path("command"));
            assertThat(preStop).hasSize(2).first().isEqualTo("sleep");
            sleep = Long.parseLong(preStop.get(1));
            assertThat(sleep).isPositive();
        }

        long grace = ex.config().shutdownGrace().toSeconds();
        assertThat(grace).isPositive();
        assertThat(ex.pod().path("terminationGracePeriodSeconds").asLong()).isGreaterThanOrEqualTo(sleep + grace);
    }

    @ParameterizedTest
    @MethodSource("examples")
    void volumesGiveConfigDataAndTmp(Path file) throws Exception {
        Example ex = Example.read(file);
        JsonNode sidecar = ex.sidecar();
        JsonNode config = volume(ex, mountedAt(sidecar, "/etc/idemproxy"));
        assertThat(config.path("configMap").path("name").asText()).isEqualTo(ex.configMap().path("metadata").path("name").asText());
        assertThat(volume(ex, mountedAt(sidecar, "/data")).has("emptyDir")).isTrue();
        assertThat(volume(ex, mountedAt(sidecar, "/tmp")).has("emptyDir")).isTrue();
        if (ex.store() == StorePolicy.Type.EMBEDDED) {
            assertThat(ex.config().store().embeddedPath()).isEqualTo(Path.of("/data"));
        }
    }

    @ParameterizedTest
    @MethodSource("examples")
    void theConfigMapLoadsAndItsSecretsComeFromTheSecret(Path file) throws Exception {
        Example ex = Example.read(file);
        ProxyConfig config = ex.config();
        assertThat(config.routes()).isNotEmpty();
        assertThat(config.admin().token()).isEqualTo("t0ken");

        JsonNode env = ex.sidecar().path("env");
        assertSecretRef(ex, env, "IDEMPROXY_ADMIN_TOKEN");
        if (ex.store() == StorePolicy.Type.REDIS) {
            assertThat(config.store().redis().uri()).contains(":s3cret@");
            assertSecretRef(ex, env, "REDIS_PASSWORD");
        } else {
            assertThat(findEnv(env, "REDIS_PASSWORD")).isNull();
        }
        // Without the variables the file does not load: no secret is baked into the ConfigMap.
        assertThatThrownBy(() -> new YamlConfigLoader(name -> null).load(ex.configFile(tmp)))
                .isInstanceOf(InvalidConfigException.class).hasMessageContaining("is not set");
    }

    @ParameterizedTest
    @MethodSource("examples")
    void theServiceMonitorScrapesTheMetricsListenerWithoutTheToken(Path file) throws Exception {
        Example ex = Example.read(file);
        JsonNode monitor = ex.single("ServiceMonitor");
        assertThat(monitor.path("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(monitor.path("spec").path("endpoints")).hasSize(1);
        JsonNode endpoint = monitor.path("spec").path("endpoints").get(0);
        assertThat(endpoint.path("port").asText()).isEqualTo(METRICS_PORT);
        assertThat(endpoint.path("path").asText()).isEqualTo("/metrics");
        assertThat(endpoint.has("authorization")).as("the metrics listener needs no token").isFalse();
        assertThat(endpoint.has("bearerTokenSecret")).isFalse();

        ProxyConfig config = ex.config();
        assertThat(config.admin().hasMetricsListener()).isTrue();
        assertThat(config.admin().metricsListen().host()).as("Prometheus reaches it from outside the pod").isEqualTo("0.0.0.0");
        assertThat(containerPort(ex.sidecar(), METRICS_PORT)).isEqualTo(config.admin().metricsListen().port());
        assertThat(config.admin().hasToken()).as("the admin API keeps its token").isTrue();

        JsonNode service = ex.single("Service");
        assertThat(labelsMatch(monitor.path("spec").path("selector").path("matchLabels"), service.path("metadata").path("labels"))).isTrue();
        assertThat(labelsMatch(service.path("spec").path("selector"), ex.deployment().path("spec").path("template").path("metadata").path("labels"))).isTrue();
        assertThat(service.path("spec").path("ports").findValuesAsText("targetPort")).containsExactly(METRICS_PORT);
    }

    // ---------------------------------------------------------------- Grafana dashboard

    /** docs/metrics.md names, plus the JVM and process families of docs/metrics.md. */
    private static final Set<String> ALLOWED_METRICS = Set.of(
            "idemproxy_requests_total", "idemproxy_replays_total", "idemproxy_key_conflicts_total",
            "idemproxy_upstream_attempts_total", "idemproxy_retries_total", "idemproxy_retry_budget_exhausted_total",
            "idemproxy_dlq_entries", "idemproxy_upstream_duration_seconds", "idemproxy_store_duration_seconds",
            "idemproxy_store_errors_total", "idemproxy_config_reload_failures_total", "idemproxy_in_flight",
            "idemproxy_build_info", "idemproxy_front_rejections_total",
            "jvm_memory_used_bytes", "jvm_memory_committed_bytes", "jvm_memory_max_bytes", "jvm_gc_pause_seconds",
            "jvm_threads_live_threads", "process_cpu_usage", "process_uptime_seconds");
    private static final Set<String> HISTOGRAMS = Set.of(
            "idemproxy_upstream_duration_seconds", "idemproxy_store_duration_seconds", "jvm_gc_pause_seconds");
    private static final Pattern SELECTED = Pattern.compile("([A-Za-z_:][A-Za-z0-9_:]*)\\s*[{\\[]");
    private static final Pattern PREFIXED = Pattern.compile("\\b((?:idemproxy|jvm|process|netty|system)_[A-Za-z0-9_:]+)");
    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\(\\s*([A-Za-z_:][A-Za-z0-9_:]*)");

    @Test
    void theDashboardQueriesOnlyContractMetrics() throws IOException {
        JsonNode dashboard = JSON.readTree(CHART.resolve("dashboards/idemproxy.json").toFile());
        assertThat(dashboard.path("title").asText()).isEqualTo("idemproxy");
        List<String> queries = new ArrayList<>();
        dashboard.findValues("expr").forEach(e -> queries.add(e.asText()));
        dashboard.path("templating").path("list").findValues("definition").forEach(e -> queries.add(e.asText()));
        assertThat(queries).hasSizeGreaterThan(10);

        Set<String> used = new TreeSet<>();
        for (String query : queries) {
            for (Pattern p : List.of(SELECTED, PREFIXED, LABEL_VALUES)) {
                Matcher m = p.matcher(query);
                while (m.find()) {
                    String name = m.group(1);
                    if (!name.startsWith("$") && !name.equals("by") && !name.equals("without")) {
                        used.add(name);
                    }
                }
            }
        }
        assertThat(used).isNotEmpty().allSatisfy(name -> assertThat(allowed(name)).as("metric %s", name).isTrue());
        assertThat(used).contains("idemproxy_requests_total", "idemproxy_replays_total", "idemproxy_key_conflicts_total",
                "idemproxy_retries_total", "idemproxy_retry_budget_exhausted_total", "idemproxy_dlq_entries",
                "idemproxy_upstream_duration_seconds_bucket", "idemproxy_store_duration_seconds_bucket",
                "idemproxy_store_errors_total");
        assertThat(queries).anyMatch(q -> q.contains("histogram_quantile(0.5,") && q.contains("idemproxy_upstream_duration_seconds_bucket"));
        assertThat(queries).anyMatch(q -> q.contains("histogram_quantile(0.99,") && q.contains("idemproxy_upstream_duration_seconds_bucket"));
    }

    /** The matchers every metric selector of the dashboard carries, so each panel follows the job, namespace and pod chosen. */
    private static final List<String> SCOPE = List.of("job=~\"$job\"", "namespace=~\"$namespace\"", "pod=~\"$pod\"");
    private static final Pattern METRIC_REF = Pattern.compile("\\b((?:idemproxy|jvm|process|netty|system)_[A-Za-z0-9_:]+)(\\{[^}]*})?");

    @Test
    void theDashboardFiltersEveryQueryByJobNamespaceAndPod() throws IOException {
        JsonNode dashboard = JSON.readTree(CHART.resolve("dashboards/idemproxy.json").toFile());
        List<String> variables = new ArrayList<>();
        dashboard.path("templating").path("list").forEach(v -> variables.add(v.path("name").asText()));
        assertThat(variables).containsSubsequence("job", "namespace", "pod", "route");
        for (JsonNode v : dashboard.path("templating").path("list")) {
            if (List.of("job", "namespace", "pod", "route").contains(v.path("name").asText())) {
                assertThat(v.path("type").asText()).isEqualTo("query");
                assertThat(v.path("includeAll").asBoolean()).isTrue();
                assertThat(v.path("allValue").asText()).isEqualTo(".*");
            }
        }
        // Each variable's choices follow the ones before it.
        assertThat(variable(dashboard, "namespace")).contains("job=~\"$job\"");
        assertThat(variable(dashboard, "pod")).contains("job=~\"$job\"", "namespace=~\"$namespace\"");
        assertThat(variable(dashboard, "route")).contains(SCOPE);

        List<JsonNode> targets = dashboard.findValues("targets").stream().flatMap(t -> {
            List<JsonNode> list = new ArrayList<>();
            t.forEach(list::add);
            return list.stream();
        }).toList();
        assertThat(targets).hasSizeGreaterThan(15);
        for (JsonNode target : targets) {
            String expr = target.path("expr").asText();
            Matcher m = METRIC_REF.matcher(expr);
            int refs = 0;
            while (m.find()) {
                refs++;
                assertThat(m.group(2)).as("selector of %s in %s", m.group(1), expr).isNotNull().contains(SCOPE);
            }
            assertThat(refs).as(expr).isPositive();
        }
    }

    @Test
    void theDashboardAggregatesEachGaugeAsItMeansAndShowsTheNewFamilies() throws IOException {
        JsonNode dashboard = JSON.readTree(CHART.resolve("dashboards/idemproxy.json").toFile());
        List<String> exprs = dashboard.findValues("expr").stream().map(JsonNode::asText).toList();
        // One store's count, repeated by every proxy that shares it: max, never sum.
        assertThat(exprs).filteredOn(e -> e.contains("idemproxy_dlq_entries")).isNotEmpty()
                .allSatisfy(e -> assertThat(e).startsWith("max").doesNotContain("sum"));
        // Calls in flight add up across pods.
        assertThat(exprs).filteredOn(e -> e.contains("idemproxy_in_flight")).singleElement().asString().startsWith("sum by (route)");
        assertThat(exprs).anyMatch(e -> e.contains("idemproxy_front_rejections_total") && e.contains("by (reason)"));
        assertThat(exprs).anyMatch(e -> e.contains("idemproxy_build_info") && e.contains("by (version)"));
    }

    private static String variable(JsonNode dashboard, String name) {
        for (JsonNode v : dashboard.path("templating").path("list")) {
            if (v.path("name").asText().equals(name)) {
                return v.path("definition").asText();
            }
        }
        throw new AssertionError("no variable " + name);
    }

    private static boolean allowed(String name) {
        if (ALLOWED_METRICS.contains(name)) {
            return true;
        }
        for (String suffix : List.of("_bucket", "_count", "_sum", "_max")) {
            if (name.endsWith(suffix) && HISTOGRAMS.contains(name.substring(0, name.length() - suffix.length()))) {
                return true;
            }
        }
        return name.startsWith("netty_allocator_");
    }

    // ---------------------------------------------------------------- docs

    @Test
    void theDeploymentGuideIsLinkedAndNamesTheCommands() throws IOException {
        String guide = Files.readString(ROOT.resolve("docs/deployment.md"));
        assertThat(guide).contains("docker build", "docker run --read-only", "helm template", "helm install",
                "include \"idemproxy.sidecar\"", "values.schema.json", "examples/k8s");
        assertThat(Files.readString(ROOT.resolve("README.md"))).contains("(docs/deployment.md)");
    }

    // ---------------------------------------------------------------- helpers

    /** One rendered example file: its documents, the workload with the sidecar, the ConfigMap's config. */
    private record Example(Path file, List<JsonNode> docs) {
        static Example read(Path file) throws IOException {
            return new Example(file, documents(file));
        }

        static List<JsonNode> documents(Path file) throws IOException {
            List<JsonNode> docs = new ArrayList<>();
            try (var parser = new YAMLFactory().createParser(file.toFile())) {
                Iterator<JsonNode> it = YAML.readValues(parser, JsonNode.class);
                while (it.hasNext()) {
                    JsonNode doc = it.next();
                    if (doc != null && !doc.isNull() && !doc.isMissingNode()) {
                        docs.add(doc);
                    }
                }
            }
            return docs;
        }

        JsonNode single(String kind) {
            List<JsonNode> found = docs.stream().filter(d -> d.path("kind").asText().equals(kind)).toList();
            assertThat(found).as("%s in %s", kind, file.getFileName()).hasSize(1);
            return found.get(0);
        }

        JsonNode deployment() {
            return single("Deployment");
        }

        JsonNode configMap() {
            return single("ConfigMap");
        }

        JsonNode pod() {
            return deployment().path("spec").path("template").path("spec");
        }

        boolean isNative() {
            return names(pod().path("initContainers")).contains("idemproxy");
        }

        JsonNode sidecar() {
            JsonNode list = isNative() ? pod().path("initContainers") : pod().path("containers");
            for (JsonNode c : list) {
                if (c.path("name").asText().equals("idemproxy")) {
                    return c;
                }
            }
            throw new AssertionError("no idemproxy container in " + file);
        }

        Path configFile(Path dir) throws IOException {
            String text = configMap().path("data").path("idemproxy.yaml").asText();
            assertThat(text).as("ConfigMap data idemproxy.yaml").isNotBlank();
            Path out = dir.resolve(file.getFileName() + ".idemproxy.yaml");
            Files.writeString(out, text);
            return out;
        }

        ProxyConfig config() throws IOException {
            Path dir = Files.createTempDirectory("packaging");
            Path config = configFile(dir);
            try {
                return new YamlConfigLoader(ENV::get).load(config);
            } catch (InvalidConfigException e) {
                throw new AssertionError(file.getFileName() + ": " + e.getMessage(), e);
            } finally {
                Files.deleteIfExists(config);
                Files.deleteIfExists(dir);
            }
        }

        StorePolicy.Type store() throws IOException {
            return config().store().type();
        }

        Set<String> secretKeys(String name) {
            Set<String> keys = new TreeSet<>();
            for (JsonNode d : docs) {
                if (d.path("kind").asText().equals("Secret") && d.path("metadata").path("name").asText().equals(name)) {
                    d.path("data").fieldNames().forEachRemaining(k -> {
                        assertThat(Base64.getDecoder().decode(d.path("data").path(k).asText())).isNotEmpty();
                        keys.add(k);
                    });
                }
            }
            return keys;
        }
    }

    private static List<String> dockerInstructions() throws IOException {
        // Joins continuation lines and drops comments: one string per instruction.
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String raw : Files.readAllLines(ROOT.resolve("Dockerfile"))) {
            String line = raw.strip();
            if (line.startsWith("#") || (line.isEmpty() && current.length() == 0)) {
                continue;
            }
            boolean continued = line.endsWith("\\");
            current.append(continued ? line.substring(0, line.length() - 1).strip() : line).append(continued ? " " : "");
            if (!continued) {
                out.add(current.toString().strip());
                current.setLength(0);
            }
        }
        return out;
    }

    private static int lastIndexOf(List<String> lines, String prefix) {
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        return -1;
    }

    private static MiniJsonSchema schema() throws IOException {
        JsonNode schema = JSON.readTree(CHART.resolve("values.schema.json").toFile());
        assertThat(schema.path("$schema").asText()).isEqualTo("http://json-schema.org/draft-07/schema#");
        return new MiniJsonSchema(schema);
    }

    private static JsonNode values() throws IOException {
        return YAML.readTree(CHART.resolve("values.yaml").toFile());
    }

    private static JsonNode with(String section, String key, Object value) throws IOException {
        ObjectNode root = (ObjectNode) values();
        ((ObjectNode) root.path(section)).set(key, JSON.valueToTree(value));
        return root;
    }

    /** Helm's merge of a -f file over values.yaml: maps merge key by key, anything else replaces. */
    private static JsonNode merge(JsonNode base, JsonNode over) {
        if (!base.isObject() || !over.isObject()) {
            return over;
        }
        ObjectNode out = ((ObjectNode) base).deepCopy();
        over.fields().forEachRemaining(e -> out.set(e.getKey(), out.has(e.getKey()) ? merge(out.get(e.getKey()), e.getValue()) : e.getValue()));
        return out;
    }

    private static List<String> names(JsonNode list) {
        return list.findValuesAsText("name").stream().toList();
    }

    private static List<String> textList(JsonNode list) {
        List<String> out = new ArrayList<>();
        list.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static int containerPort(JsonNode container, String name) {
        for (JsonNode port : container.path("ports")) {
            if (port.path("name").asText().equals(name)) {
                return port.path("containerPort").asInt();
            }
        }
        throw new AssertionError("no port named " + name);
    }

    private static void assertProbe(JsonNode probe, String path) {
        assertThat(probe.isObject()).as("probe for %s", path).isTrue();
        assertThat(probe.path("httpGet").path("path").asText()).isEqualTo(path);
        assertThat(probe.path("httpGet").path("port").asText()).isEqualTo(ADMIN_PORT);
        assertThat(probe.path("httpGet").has("httpHeaders")).as("%s never needs the token", path).isFalse();
    }

    private static String mountedAt(JsonNode container, String path) {
        for (JsonNode mount : container.path("volumeMounts")) {
            if (mount.path("mountPath").asText().equals(path)) {
                return mount.path("name").asText();
            }
        }
        throw new AssertionError("nothing mounted at " + path);
    }

    private static JsonNode volume(Example ex, String name) {
        for (JsonNode v : ex.pod().path("volumes")) {
            if (v.path("name").asText().equals(name)) {
                return v;
            }
        }
        throw new AssertionError("no volume " + name);
    }

    private static JsonNode findEnv(JsonNode env, String name) {
        for (JsonNode e : env) {
            if (e.path("name").asText().equals(name)) {
                return e;
            }
        }
        return null;
    }

    private static void assertSecretRef(Example ex, JsonNode env, String name) {
        JsonNode var = findEnv(env, name);
        assertThat(var).as("env %s", name).isNotNull();
        assertThat(var.has("value")).as("%s comes from a Secret, not a literal", name).isFalse();
        JsonNode ref = var.path("valueFrom").path("secretKeyRef");
        assertThat(ex.secretKeys(ref.path("name").asText())).as("Secret %s", ref.path("name").asText())
                .contains(ref.path("key").asText());
    }

    private static boolean labelsMatch(JsonNode selector, JsonNode labels) {
        assertThat(selector.size()).isPositive();
        boolean all = true;
        for (Iterator<Map.Entry<String, JsonNode>> it = selector.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            all &= labels.path(e.getKey()).asText().equals(e.getValue().asText());
        }
        return all;
    }
}
