package dev.idemproxy.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Keeps docs/configuration.md and the loader's schema in step. */
class ConfigurationDocTest {
    private static final Path DOC = Path.of("..", "docs", "configuration.md");
    private static final Pattern DOCUMENTED_KEY = Pattern.compile("^\\| `([A-Za-z\\[\\].]+)` \\|", Pattern.MULTILINE);

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
    void theDocumentedExampleLoads() throws Exception {
        String doc = Files.readString(DOC);
        int start = doc.indexOf("```yaml\n", doc.indexOf("## A complete example")) + "```yaml\n".length();
        String yaml = doc.substring(start, doc.indexOf("```", start));

        assertThat(new YamlConfigLoader(name -> null).parse(yaml, "configuration.md", Path.of("")).routes()).hasSize(1);
    }
}
