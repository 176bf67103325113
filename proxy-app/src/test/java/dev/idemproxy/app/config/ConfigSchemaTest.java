package dev.idemproxy.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idemproxy.app.config.SchemaKey.Secret;
import dev.idemproxy.app.config.SchemaKey.Type;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@link ConfigSchema} against the loader: every literal default in the schema (the one the docs
 * show) is the value a config that leaves the key out gets in {@code /config}'s view, and every
 * key of fixed words refuses another word naming the schema's words.
 */
class ConfigSchemaTest {
    /** The brief's minimal config: one route, everything else left to its default. */
    private static final String MINIMAL = "routes:\n  - { name: r, upstream: \"http://127.0.0.1:1\" }\n";
    /**
     * The minimal config plus the two sections it leaves out that have literal defaults inside:
     * {@code forwardProxy} (off unless given) and a route's {@code receipt} (needs its url).
     */
    private static final String WITH_OPTIONAL_SECTIONS = "forwardProxy: {}\nroutes:\n"
            + "  - { name: r, upstream: \"http://127.0.0.1:1\", receipt: { url: \"http://127.0.0.1:1/r/{callId}\" } }\n";

    private final YamlConfigLoader loader = new YamlConfigLoader(name -> null);

    @Test
    void everyLiteralDefaultIsWhatTheLoaderGives() throws Exception {
        Map<String, Object> minimal = ConfigDescriber.effectiveConfig(loader.parse(MINIMAL, "t.yaml", Path.of("")));
        Map<String, Object> optional = ConfigDescriber.effectiveConfig(loader.parse(WITH_OPTIONAL_SECTIONS, "t.yaml", Path.of("")));
        List<String> wrong = new ArrayList<>();
        int compared = 0;

        for (Map.Entry<String, SchemaKey> e : ConfigSchema.keys().entrySet()) {
            String literal = e.getValue().literalDefault();
            if (literal == null || e.getValue().isSection()) {
                continue;
            }
            Object shown = shownAt(minimal, e.getKey());
            if (shown == Absent.VALUE) {
                shown = shownAt(optional, e.getKey());
            }
            compared++;
            if (shown == Absent.VALUE || !same(e.getValue().type(), literal, yaml(shown))) {
                wrong.add(e.getKey() + ": /config shows " + (shown == Absent.VALUE ? "nothing" : "'" + yaml(shown) + "'")
                        + " (expected: the schema's default '" + literal + "')");
            }
        }

        assertThat(wrong).as("ConfigSchema's literal defaults against the loader").isEmpty();
        assertThat(compared).isGreaterThan(60);
    }

    @Test
    void aDivergingDefaultIsCaught() throws Exception {
        Map<String, Object> shown = ConfigDescriber.effectiveConfig(loader.parse(MINIMAL + "shutdown: { grace: 21s }\n",
                "t.yaml", Path.of("")));

        assertThat(same(Type.DURATION, ConfigSchema.keys().get("shutdown.grace").literalDefault(), yaml(shownAt(shown, "shutdown.grace"))))
                .isFalse();
        assertThat(same(Type.DURATION, "60s", "1m")).isTrue();
        assertThat(same(Type.SIZE, "1MiB", "1024KiB")).isTrue();
        assertThat(yaml(shownAt(shown, "routes[].idempotency.methods"))).isEqualTo("[POST, PUT, PATCH, DELETE]");
    }

    @Test
    void everyChoiceKeyRejectsAnotherWordNamingItsChoices() {
        List<String> wrong = new ArrayList<>();
        int checked = 0;

        for (Map.Entry<String, SchemaKey> e : ConfigSchema.keys().entrySet()) {
            SchemaKey key = e.getValue();
            if (!key.type().hasChoices()) {
                continue;
            }
            checked++;
            String value = switch (key.type()) {
                case CHOICES -> "[nope]";
                case TOOL_RULES -> "{ some_tool: nope }";
                default -> "nope";
            };
            String expected = String.join(", ", key.choices());
            List<ConfigProblem> problems = problems(SchemaYaml.setting(e.getKey(), value));
            boolean named = problems.stream().anyMatch(p -> p.path().startsWith(SchemaYaml.problemPath(e.getKey()))
                    && p.message().startsWith("'nope' (expected") && p.message().contains(expected));
            if (!named) {
                wrong.add(e.getKey() + " = " + value + ": " + problems + " (expected: a problem at the key naming " + expected + ")");
            }
        }

        assertThat(wrong).as("choice keys against the loader").isEmpty();
        assertThat(checked).isEqualTo(13);
    }

    @Test
    void everyChoiceKeyTakesEachOfItsWords() {
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, SchemaKey> e : ConfigSchema.keys().entrySet()) {
            SchemaKey key = e.getValue();
            for (String word : key.type().hasChoices() ? key.choices() : List.<String>of()) {
                String value = switch (key.type()) {
                    case CHOICES -> "[" + word + "]";
                    case TOOL_RULES -> "{ some_tool: " + word + " }";
                    default -> word;
                };
                List<ConfigProblem> problems = problems(SchemaYaml.setting(e.getKey(), value)).stream()
                        .filter(p -> p.path().startsWith(SchemaYaml.problemPath(e.getKey()))).toList();
                if (!problems.isEmpty()) {
                    wrong.add(e.getKey() + " = " + value + ": " + problems);
                }
            }
        }

        assertThat(wrong).as("words the schema lists that the loader refuses").isEmpty();
    }

    @Test
    void theSecretKeysAreTheTokenAndTheUrls() {
        Map<String, Secret> secrets = ConfigSchema.keys().entrySet().stream()
                .filter(e -> e.getValue().secret() != Secret.NONE)
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().secret()));

        assertThat(secrets).containsOnly(Map.entry("admin.token", Secret.VALUE), Map.entry("store.redis.uri", Secret.URL),
                Map.entry("routes[].upstream", Secret.URL), Map.entry("routes[].receipt.url", Secret.URL));
    }

    @Test
    void aChoiceTypeIsSpeltByItsWords() {
        assertThat(SchemaKey.choice("jitter", Type.CHOICE, "`full`", "full", "equal").typeText()).isEqualTo("`full` \\| `equal`");
        assertThat(SchemaKey.choice("tags", Type.CHOICES, "`[]`", "idempotent").typeText()).isEqualTo("list of `idempotent`");
        assertThat(SchemaKey.choice("tools", Type.TOOL_RULES, "`{}`", "pass", "protect").typeText())
                .isEqualTo("map of tool name to `pass` \\| `protect`");
        assertThat(SchemaKey.leaf("grace", Type.DURATION, "`20s`").typeText()).isEqualTo("duration");
        assertThatThrownBy(() -> SchemaKey.leaf("tags", Type.CHOICES, "`[]`")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SchemaKey.choice("grace", Type.DURATION, "`20s`", "a")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aLiteralDefaultIsOneValueInBackticksWithAnOptionalRemark() {
        assertThat(SchemaKey.leaf("k", Type.DURATION, "`20s`").literalDefault()).isEqualTo("20s");
        assertThat(SchemaKey.leaf("k", Type.INTEGER, "`1` (no retry)").literalDefault()).isEqualTo("1");
        assertThat(SchemaKey.leaf("k", Type.METHODS, "`[POST, PUT]`").literalDefault()).isEqualTo("[POST, PUT]");
        assertThat(SchemaKey.leaf("k", Type.STRING, "none").literalDefault()).isNull();
        assertThat(SchemaKey.leaf("k", Type.FILE, "`ca.crt` in `store.embedded.path`").literalDefault()).isNull();
        assertThat(SchemaKey.leaf("k", Type.DURATION, "").literalDefault()).isNull();
    }

    /** Whether two spellings are one value: durations and sizes by what they amount to ({@code 60s} is {@code 1m}), the rest as written. */
    private static boolean same(Type type, String literal, String shown) {
        return switch (type) {
            case DURATION -> DurationParser.parse(literal).equals(DurationParser.parse(shown));
            case SIZE -> SizeParser.parse(literal) == SizeParser.parse(shown);
            // the same folder: the loader resolves it against the config file's ("" here) and normalises it
            case DIRECTORY, FILE -> Path.of(literal).normalize().equals(Path.of(shown).normalize());
            default -> literal.equals(shown);
        };
    }

    private List<ConfigProblem> problems(String yaml) {
        try {
            loader.parse(yaml, "t.yaml", Path.of(""));
            return List.of();
        } catch (InvalidConfigException e) {
            return e.problems();
        }
    }

    /** Marks a path the described tree does not reach (a section not given, a key not shown). */
    private enum Absent { VALUE }

    /** The value at a schema path ({@code routes[].retry.maxAttempts}: the first route's) in a described tree. */
    private static Object shownAt(Map<String, Object> tree, String path) {
        Object at = tree;
        for (String name : path.split("\\.")) {
            boolean item = name.endsWith("[]");
            String key = item ? name.substring(0, name.length() - 2) : name;
            if (!(at instanceof Map<?, ?> m) || !m.containsKey(key)) {
                return Absent.VALUE;
            }
            at = m.get(key);
            if (item) {
                at = at instanceof List<?> l && !l.isEmpty() ? l.get(0) : null;
            }
        }
        return at;
    }

    /** A shown value written as the docs write a default: {@code 20s}, {@code [POST, PUT]}, {@code {}}. */
    private static String yaml(Object value) {
        if (value instanceof List<?> l) {
            return l.stream().map(ConfigSchemaTest::yaml).collect(Collectors.joining(", ", "[", "]"));
        }
        if (value instanceof Map<?, ?> m) {
            return m.entrySet().stream().map(e -> e.getKey() + ": " + yaml(e.getValue())).collect(Collectors.joining(", ", "{", "}"));
        }
        return String.valueOf(value);
    }
}
