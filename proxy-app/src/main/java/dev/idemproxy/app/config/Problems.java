package dev.idemproxy.app.config;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.secret.Redactor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.nodes.Node;

/** Collects the problems of one load. Not thread-safe: one instance per load. */
final class Problems {
    private static final Comparator<ConfigProblem> DOCUMENT_ORDER =
            Comparator.comparingInt(ConfigProblem::line).thenComparingInt(ConfigProblem::column);

    private final String file;
    private final List<ConfigProblem> found = new ArrayList<>();
    /** What the problem lines redact (CONTRACT §12: validate output): the built-in rules until the config's secret names are read. */
    private Redactor redactor = Redactor.BUILT_IN;

    Problems(String file) {
        this.file = requireNonNull(file, "file");
    }

    String file() {
        return file;
    }

    /** A problem at the start of {@code node}. */
    void add(Node node, String path, String message) {
        add(node.getStartMark(), path, message);
    }

    /** A problem at a SnakeYAML mark (0-based line and column). */
    void add(Mark mark, String path, String message) {
        if (mark == null) {
            found.add(new ConfigProblem(file, 1, 1, path, message));
        } else {
            found.add(new ConfigProblem(file, mark.getLine() + 1, mark.getColumn() + 1, path, message));
        }
    }

    /** A problem with no position, such as an unreadable file. */
    void addUnpositioned(String message) {
        found.add(new ConfigProblem(file, 0, 0, "", message));
    }

    /**
     * Calls a record constructor; an {@link IllegalArgumentException} from its checks becomes a
     * problem at {@code node} and the result is null. The fallback for checks the loader does not repeat.
     */
    <T> T build(Node node, String path, Supplier<T> constructor) {
        try {
            return constructor.get();
        } catch (IllegalArgumentException e) {
            add(node, path, e.getMessage());
            return null;
        }
    }

    /** The redaction rules with the config's own {@code secretHeaders} and {@code secretQueryParams}. */
    void secrets(Redactor configured) {
        this.redactor = requireNonNull(configured, "configured");
    }

    /** The redaction rules in force for this load (the config's own once its secret names are read). */
    Redactor secrets() {
        return redactor;
    }

    boolean isEmpty() {
        return found.isEmpty();
    }

    /**
     * The problems in document order (stable for problems at the same position), each message
     * with the URLs and secret values it quotes redacted, as everything the proxy shows.
     */
    List<ConfigProblem> inDocumentOrder() {
        List<ConfigProblem> sorted = new ArrayList<>(found.size());
        for (ConfigProblem p : found) {
            sorted.add(new ConfigProblem(p.file(), p.line(), p.column(), p.path(), redactor.text(p.message())));
        }
        sorted.sort(DOCUMENT_ORDER);
        return List.copyOf(sorted);
    }
}
