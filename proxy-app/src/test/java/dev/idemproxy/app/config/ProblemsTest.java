package dev.idemproxy.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.retry.RetryPolicy;
import java.io.StringReader;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.Node;

class ProblemsTest {

    @Test
    void aRecordConstructorsRejectionBecomesAProblemAtTheOwningNode() {
        Problems problems = new Problems("f.yaml");
        Node node = new Yaml(new LoaderOptions()).compose(new StringReader("\n  retry: { maxAttempts: 0 }\n"));

        RetryPolicy built = problems.build(node, "routes[0].retry",
                () -> new RetryPolicy(0, Set.of(), RetryPolicy.DEFAULT.backoff(), Duration.ofSeconds(1)));

        assertThat(built).isNull();
        assertThat(problems.inDocumentOrder()).extracting(ConfigProblem::toString)
                .containsExactly("f.yaml:2:3: routes[0].retry: maxAttempts 0 (expected: 1..100)");
    }

    @Test
    void problemsComeOutInDocumentOrder() {
        Problems problems = new Problems("f.yaml");
        Node root = new Yaml(new LoaderOptions()).compose(new StringReader("a: 1\nb: 2\n"));

        problems.add(root, "late", "second");
        problems.addUnpositioned("first");

        assertThat(problems.inDocumentOrder()).extracting(ConfigProblem::toString)
                .containsExactly("f.yaml: first", "f.yaml:1:1: late: second");
    }
}
