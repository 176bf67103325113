package dev.idemproxy.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Keeps docs/configuration.md and the loader's schema in step. A key table row reads
 * {@code | `path` | Type | Default | Example | Meaning |}; its Type cell is the schema's type as
 * {@link SchemaKey#typeText()} spells it, alone or followed by a space or a comma and a remark
 * ({@code integer 1..100}, {@code size, up to 1GiB}), and its Default cell is the schema's default verbatim.
 */
class ConfigurationDocTest {
    private static final Path DOC = Path.of("..", "docs", "configuration.md");
    private static final Pattern DOCUMENTED_KEY = Pattern.compile("^\\| `([A-Za-z\\[\\].]+)` \\|", Pattern.MULTILINE);
    /** A table cell boundary: a {@code |} that is not written {@code \|}. */
    private static final Pattern CELL = Pattern.compile("(?<!\\\\)\\|");
    /** The remark of a number, integer or size Type cell: {@code 0..256}, {@code >= 1}, {@code , up to 1GiB}. */
    private static final Pattern RANGE = Pattern.compile(",? (?:(\\S+)\\.\\.(\\S+)|>= (\\S+)|up to (\\S+))");

    @Test
    void everyKeyTheLoaderKnowsIsDocumented() throws Exception {
        String doc = Files.readString(DOC);

        assertThat(YamlConfigLoader.knownKeyPaths())
                .isNotEmpty()
                .allSatisfy(path -> assertThat(doc).as("docs/configuration.md mentions `%s`", path).contains("`" + path + "`"));
    }

    @Test
    void everyKeyTheDocsDescribeIsOneTheLoaderKnows() throws Exception {
        Matcher m = DOCUMENTED_KEY.matcher(Files.readString(DOC));
        List<String> known = YamlConfigLoader.knownKeyPaths();

        int rows = 0;
        while (m.find()) {
            rows++;
            assertThat(known).as("key table row `%s` in docs/configuration.md", m.group(1)).contains(m.group(1));
        }
        assertThat(rows).isGreaterThan(50);
    }

    @Test
    void everyValueKeyHasARowWhoseTypeAndDefaultAreTheSchemas() throws Exception {
        Map<String, List<String>> rows = keyRows(Files.readString(DOC));
        List<String> wrong = new ArrayList<>();

        ConfigSchema.keys().forEach((path, key) -> {
            List<String> row = rows.get(path);
            if (row == null) {
                if (!key.isSection()) {
                    wrong.add(path + ": no key table row");
                }
                return;
            }
            String type = row.get(1);
            String spelt = key.typeText();
            if (!type.equals(spelt) && !type.startsWith(spelt + " ") && !type.startsWith(spelt + ",")) {
                wrong.add(path + ": Type '" + type + "' (expected: '" + spelt + "', then optionally a space or comma and a remark)");
            }
            if (!row.get(2).equals(key.defaultText())) {
                wrong.add(path + ": Default '" + row.get(2) + "' (expected: '" + key.defaultText() + "')");
            }
        });

        assertThat(wrong).as("docs/configuration.md against ConfigSchema").isEmpty();
        assertThat(rows).hasSizeGreaterThan(90);
    }

    /**
     * The bounds a number, integer or size row's Type cell states are the loader's, and one that
     * states none has none; a duration is {@code 0s} exactly where its row says it may be.
     */
    @Test
    void everyDocumentedRangeIsTheLoaders() throws Exception {
        Map<String, List<String>> rows = keyRows(Files.readString(DOC));
        YamlConfigLoader loader = new YamlConfigLoader(name -> null);
        List<String> wrong = new ArrayList<>();
        int bounds = 0;

        for (Map.Entry<String, SchemaKey> e : ConfigSchema.keys().entrySet()) {
            SchemaKey key = e.getValue();
            List<String> row = rows.get(e.getKey());
            if (row != null && key.type() == SchemaKey.Type.DURATION) {
                bounds++;
                expect(loader, e.getKey(), "0s", row.get(1).contains("may be `0s`"), wrong);
                continue;
            }
            if (row == null || !List.of(SchemaKey.Type.INTEGER, SchemaKey.Type.SIZE, SchemaKey.Type.NUMBER).contains(key.type())
                    || row.get(1).equals(key.typeText())) {
                continue;
            }
            Matcher range = RANGE.matcher(row.get(1).substring(key.typeText().length()));
            if (!range.matches()) {
                wrong.add(e.getKey() + ": '" + row.get(1) + "' (expected: a range such as 1..100, >= 1 or up to 1GiB)");
                continue;
            }
            String min = range.group(1) != null ? range.group(1) : range.group(3);
            String max = range.group(1) != null ? range.group(2) : range.group(4);
            if (min != null) {
                bounds++;
                expect(loader, e.getKey(), min, true, wrong);
                expect(loader, e.getKey(), step(key.type(), min, -1), false, wrong);
            }
            if (max != null) {
                bounds++;
                expect(loader, e.getKey(), max, true, wrong);
                expect(loader, e.getKey(), step(key.type(), max, +1), false, wrong);
            } else {
                expect(loader, e.getKey(), Long.toString(Long.MAX_VALUE), true, wrong);  // no bound documented: none there
            }
        }

        assertThat(wrong).as("docs/configuration.md's ranges against the loader").isEmpty();
        assertThat(bounds).isGreaterThan(50);
    }

    /** Records in {@code wrong} when the loader does not accept (or reject) {@code value} for the key at {@code path}. */
    private static void expect(YamlConfigLoader loader, String path, String value, boolean accepted, List<String> wrong) {
        List<ConfigProblem> problems = List.of();
        try {
            loader.parse(SchemaYaml.setting(path, value), "t.yaml", Path.of(""));
        } catch (InvalidConfigException e) {
            problems = e.problems();
        }
        boolean rejected = problems.stream().anyMatch(p -> p.path().equals(SchemaYaml.problemPath(path)));
        if (rejected == accepted) {
            wrong.add(path + ": " + value + (accepted ? " is rejected: " + problems : " is accepted"));
        }
    }

    /** The value just past a documented bound: one more or less (a byte for sizes, 0.001 for numbers). */
    private static String step(SchemaKey.Type type, String bound, int direction) {
        return switch (type) {
            case SIZE -> Long.toString(SizeParser.parse(bound) + direction);
            case NUMBER -> new BigDecimal(bound).add(new BigDecimal("0.001").multiply(BigDecimal.valueOf(direction))).toPlainString();
            default -> new BigInteger(bound).add(BigInteger.valueOf(direction)).toString();
        };
    }

    @Test
    void aRowIsReadCellByCellWithEscapedBarsKept() {
        Map<String, List<String>> rows = keyRows("| Key | Type | Default | Example | Meaning |\n|---|---|---|---|---|\n"
                + "| `a.b` | `x` \\| `y` | | `x` | Say `x` \\| `y`. |\n");

        assertThat(rows).containsExactly(Map.entry("a.b", List.of("`a.b`", "`x` \\| `y`", "", "`x`", "Say `x` \\| `y`.")));
    }

    @Test
    void theDocumentedExampleLoads() throws Exception {
        String doc = Files.readString(DOC);
        int start = doc.indexOf("```yaml\n", doc.indexOf("## A complete example")) + "```yaml\n".length();
        String yaml = doc.substring(start, doc.indexOf("```", start));

        assertThat(new YamlConfigLoader(name -> null).parse(yaml, "configuration.md", Path.of("")).routes()).hasSize(1);
    }

    /** Every key table row by its key path: its cells, trimmed, the key cell first. */
    private static Map<String, List<String>> keyRows(String doc) {
        Map<String, List<String>> rows = new LinkedHashMap<>();
        for (String line : doc.split("\n")) {
            Matcher m = DOCUMENTED_KEY.matcher(line);
            if (m.lookingAt()) {
                String[] cells = CELL.split(line, -1);
                List<String> row = Arrays.stream(cells, 1, cells.length - 1).map(String::trim).toList();
                assertThat(row).as(line).hasSize(5);
                assertThat(rows.put(m.group(1), row)).as("a second row for `%s`", m.group(1)).isNull();
            }
        }
        return rows;
    }
}
