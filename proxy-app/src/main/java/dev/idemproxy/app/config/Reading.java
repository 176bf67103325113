package dev.idemproxy.app.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * What every reader of one load shares: the problem sink, the environment expander and the
 * directory relative file names are resolved against. Not thread-safe: one instance per load.
 */
record Reading(Problems problems, EnvExpander env, Path baseDir) {
    private static final Set<String> NULLS = Set.of("", "~", "null", "Null", "NULL");
    static final Pattern INTEGER = Pattern.compile("[-+]?[0-9]+");
    static final Pattern NUMBER = Pattern.compile("[-+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?");
    static final Pattern BOOLEAN = Pattern.compile("true|True|TRUE|false|False|FALSE");
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    Reading {
        requireNonNull(problems, "problems");
        requireNonNull(env, "env");
        requireNonNull(baseDir, "baseDir");
    }

    /** A scalar after environment expansion. */
    record Scalar(ScalarNode node, String text, boolean isNull) {}

    /**
     * Expands {@code node}'s text; null (with a problem recorded) when a variable cannot be
     * expanded. A plain {@code ~}, {@code null} or empty value, or one that expands to nothing, is null.
     */
    Scalar scalar(ScalarNode node, String path) {
        String text = node.getValue();
        boolean plain = node.isPlain();
        if (EnvExpander.mentionsVariables(text)) {
            EnvExpander.Expansion e = env.expand(text);
            if (!e.ok()) {
                problems.add(node, path, e.error());
                return null;
            }
            return new Scalar(node, e.text(), e.text().isEmpty() || plain && NULLS.contains(e.text()));
        }
        return new Scalar(node, text, plain && NULLS.contains(text));
    }

    /** True when {@code node} is absent or an explicit YAML null, before expansion. */
    static boolean isNullNode(Node node) {
        return node == null
                || node instanceof ScalarNode s && s.isPlain() && NULLS.contains(s.getValue());
    }

    /** "a map", "a list", "a string": for {@code expected X, got Y} messages. */
    static String describe(Node node) {
        if (node instanceof MappingNode) {
            return "a map";
        }
        if (node instanceof SequenceNode) {
            return "a list";
        }
        if (isNullNode(node)) {
            return "nothing";
        }
        String text = ((ScalarNode) node).getValue();
        if (((ScalarNode) node).isPlain() && NUMBER.matcher(text).matches()) {
            return "a number";
        }
        return ((ScalarNode) node).isPlain() && BOOLEAN.matcher(text).matches() ? "a boolean" : "a string";
    }

    /**
     * Checks a query parameter name as {@code secretQueryParams} lists it: as the name reads
     * decoded, 1-128 characters, none of them white space, a control character or one of
     * {@code & = ; ? #} (which would end it in a query); throws with an {@code (expected: …)} message.
     */
    static String queryParamName(String text) {
        boolean ok = !text.isEmpty() && text.length() <= 128;
        for (int i = 0; ok && i < text.length(); i++) {
            char c = text.charAt(i);
            ok = c > 0x20 && c != 0x7f && "&=;?#".indexOf(c) < 0 && !Character.isWhitespace(c) && !Character.isISOControl(c);
        }
        if (!ok) {
            throw new IllegalArgumentException("'" + text + "' (expected: a query parameter name: 1-128 characters,"
                    + " no white space and none of & = ; ? #)");
        }
        return text;
    }

    /** Checks an HTTP header name; throws with an {@code (expected: …)} message. */
    static String headerName(String text) {
        if (!HEADER_NAME.matcher(text).matches()) {
            throw new IllegalArgumentException("'" + text + "' (expected: a header name)");
        }
        return text;
    }
}
