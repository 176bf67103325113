package dev.idemproxy.app.config;

import dev.idemproxy.app.config.Reading.Scalar;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * One YAML mapping read against its schema {@link SchemaKey}. Unknown and duplicate keys are reported
 * when it is opened; each getter reports a missing, mistyped or impossible value and returns the
 * default instead, so one pass finds every problem. Not thread-safe: one instance per load.
 */
final class MapReader {
    private final Reading reading;
    private final String path;
    private final Node node;
    private final SchemaKey schema;
    private final Map<String, Node> values = new LinkedHashMap<>();

    /** @param node the mapping, or (for an absent section) the node problems are reported at */
    private MapReader(Reading reading, String path, Node node, SchemaKey schema, boolean present) {
        this.reading = reading;
        this.path = path;
        this.node = node;
        this.schema = schema;
        if (present) {
            index();
        }
    }

    static MapReader root(Reading reading, Node node) {
        return new MapReader(reading, "", node, ConfigSchema.ROOT, !Reading.isNullNode(node));
    }

    Reading reading() {
        return reading;
    }

    String path() {
        return path;
    }

    /** The full path of a key of this map, e.g. {@code routes[0].retry}. */
    String path(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    /** The value node of {@code key}, or this map's node when the key is absent: where problems point. */
    Node at(String key) {
        Node v = values.get(key);
        return v != null ? v : node;
    }

    /** True when {@code key} is present with a non-null value. */
    boolean has(String key) {
        return !Reading.isNullNode(value(key));
    }

    void problem(String key, String message) {
        reading.problems().add(at(key), path(key), message);
    }

    /** Reports {@code key} as required and absent. */
    void requireKey(String key) {
        if (!has(key)) {
            reading.problems().add(node, path(key), "missing required key");
        }
    }

    /** The sub-section {@code key}; an empty reader (all defaults) when absent or mistyped. */
    MapReader map(String key) {
        SchemaKey child = schema.child(key);
        Node v = value(key);
        if (Reading.isNullNode(v) || !expectMap(v, path(key))) {
            return new MapReader(reading, path(key), at(key), child, false);
        }
        return new MapReader(reading, path(key), v, child, true);
    }

    /** The list of sections {@code key}, such as {@code routes}; empty when absent or mistyped. */
    List<MapReader> items(String key) {
        SchemaKey child = schema.child(key);
        SequenceNode seq = sequence(key);
        List<MapReader> out = new ArrayList<>();
        if (seq == null) {
            return out;
        }
        for (int i = 0; i < seq.getValue().size(); i++) {
            Node item = seq.getValue().get(i);
            String itemPath = path(key) + "[" + i + "]";
            if (expectMap(item, itemPath)) {
                out.add(new MapReader(reading, itemPath, item, child, true));
            }
        }
        return out;
    }

    /** Any scalar as text: strings, and numbers or booleans as written. */
    String string(String key, String def) {
        Scalar s = scalar(key, "a string");
        return s == null ? def : s.text();
    }

    long integer(String key, long def, long min, long max) {
        return parsed(key, def, "an integer", text -> checkedInteger(text, min, max));
    }

    double number(String key, double def, double min, double max) {
        return parsed(key, def, "a number", text -> checkedNumber(text, min, max));
    }

    boolean bool(String key, boolean def) {
        return parsed(key, def, "true or false", text -> {
            if (!Reading.BOOLEAN.matcher(text).matches()) {
                throw new IllegalArgumentException("expected true or false, got '" + text + "'");
            }
            return Boolean.parseBoolean(text.toLowerCase(Locale.ROOT));
        });
    }

    /** A duration; positive unless {@code allowZero}. */
    Duration duration(String key, Duration def, boolean allowZero) {
        return parsed(key, def, "a duration", text -> {
            Duration d = DurationParser.parse(text);
            if (d.isZero() && !allowZero) {
                throw new IllegalArgumentException(text + " (expected: > 0)");
            }
            return d;
        });
    }

    long size(String key, long def, long min, long max) {
        return parsed(key, def, "a size", text -> {
            long n = SizeParser.parse(text);
            if (n < min) {
                throw new IllegalArgumentException(text + " (expected: >= " + SizeParser.format(min) + ")");
            }
            if (n > max) {
                throw new IllegalArgumentException(text + " (expected: <= " + SizeParser.format(max) + ")");
            }
            return n;
        });
    }

    /** A scalar run through {@code parser}, whose {@link IllegalArgumentException} message becomes the problem. */
    <T> T parsed(String key, T def, String expected, Function<String, T> parser) {
        Scalar s = scalar(key, expected);
        if (s == null) {
            return def;
        }
        try {
            return parser.apply(s.text());
        } catch (IllegalArgumentException e) {
            reading.problems().add(s.node(), path(key), e.getMessage());
            return def;
        }
    }

    /** A list of scalars, each run through {@code parser}; bad items are reported and left out. */
    <T> List<T> list(String key, List<T> def, Function<String, T> parser) {
        SequenceNode seq = sequence(key);
        if (seq == null) {
            return def;
        }
        List<T> out = new ArrayList<>();
        for (int i = 0; i < seq.getValue().size(); i++) {
            Node item = seq.getValue().get(i);
            String itemPath = path(key) + "[" + i + "]";
            if (!(item instanceof ScalarNode sn)) {
                reading.problems().add(item, itemPath, "expected a single value, got " + Reading.describe(item));
                continue;
            }
            Scalar s = reading.scalar(sn, itemPath);
            if (s == null) {
                continue;
            }
            if (s.isNull()) {
                reading.problems().add(item, itemPath, "expected a single value, got nothing");
                continue;
            }
            try {
                T value = parser.apply(s.text());
                int first = out.indexOf(value);
                if (first >= 0) {
                    // Every list here is a set of choices (methods, failure classes, key parts, tags...):
                    // a second mention changes nothing, so it is most likely a typo for another value.
                    reading.problems().add(item, itemPath, "'" + s.text() + "' is listed twice (expected: each item once)");
                    continue;
                }
                out.add(value);
            } catch (IllegalArgumentException e) {
                reading.problems().add(item, itemPath, e.getMessage());
            }
        }
        return out;
    }

    /**
     * A map whose keys are names the user chooses (such as tool names) and whose values are
     * scalars run through {@code parser}; problems are reported at {@code key.NAME}. Empty when
     * absent or mistyped (reported).
     */
    <T> Map<String, T> namedValues(String key, String expected, Function<String, T> parser) {
        Node v = value(key);
        Map<String, T> out = new LinkedHashMap<>();
        if (Reading.isNullNode(v) || !expectMap(v, path(key))) {
            return out;
        }
        Map<String, Node> seen = new LinkedHashMap<>();
        for (NodeTuple t : ((MappingNode) v).getValue()) {
            if (!(t.getKeyNode() instanceof ScalarNode ks) || ks.getValue().isEmpty()) {
                reading.problems().add(t.getKeyNode(), path(key), "expected a name, got " + Reading.describe(t.getKeyNode()));
                continue;
            }
            String name = ks.getValue();
            String itemPath = path(key) + "." + name;
            if (seen.containsKey(name)) {
                int first = seen.get(name).getStartMark().getLine() + 1;
                reading.problems().add(ks, itemPath, "duplicate key (first at line " + first + ")");
                continue;
            }
            seen.put(name, ks);
            Node item = t.getValueNode();
            if (!(item instanceof ScalarNode sn) || Reading.isNullNode(item)) {
                reading.problems().add(item, itemPath, "expected " + expected + ", got " + Reading.describe(item));
                continue;
            }
            Scalar s = reading.scalar(sn, itemPath);
            if (s == null) {
                continue;
            }
            try {
                out.put(name, parser.apply(s.text()));
            } catch (IllegalArgumentException e) {
                reading.problems().add(item, itemPath, e.getMessage());
            }
        }
        return out;
    }

    private void index() {
        if (!expectMap(node, path)) {
            return;
        }
        Map<String, Node> keys = new LinkedHashMap<>();
        List<String> known = schema.childNames();
        for (NodeTuple t : ((MappingNode) node).getValue()) {
            Node k = t.getKeyNode();
            if (!(k instanceof ScalarNode ks)) {
                reading.problems().add(k, path, "expected a key name, got " + Reading.describe(k));
                continue;
            }
            String name = ks.getValue();
            if (keys.containsKey(name)) {
                int first = keys.get(name).getStartMark().getLine() + 1;
                reading.problems().add(k, path(name), "duplicate key (first at line " + first + ")");
            } else if (!known.contains(name)) {
                reading.problems().add(k, path(name), "unknown key (expected one of: " + String.join(", ", known) + ")");
            } else {
                values.put(name, t.getValueNode());
            }
            keys.putIfAbsent(name, k);
        }
    }

    private Node value(String key) {
        schema.child(key);
        return values.get(key);
    }

    private boolean expectMap(Node n, String at) {
        if (n instanceof MappingNode) {
            return true;
        }
        reading.problems().add(n, at, "expected a map, got " + Reading.describe(n));
        return false;
    }

    private SequenceNode sequence(String key) {
        Node v = value(key);
        if (Reading.isNullNode(v)) {
            return null;
        }
        if (v instanceof SequenceNode seq) {
            return seq;
        }
        reading.problems().add(v, path(key), "expected a list, got " + Reading.describe(v));
        return null;
    }

    /** The expanded scalar of {@code key}; null when absent, null-valued or wrong (reported). */
    private Scalar scalar(String key, String expected) {
        Node v = value(key);
        if (Reading.isNullNode(v)) {
            return null;
        }
        if (!(v instanceof ScalarNode sn)) {
            reading.problems().add(v, path(key), "expected " + expected + ", got " + Reading.describe(v));
            return null;
        }
        Scalar s = reading.scalar(sn, path(key));
        return s == null || s.isNull() ? null : s;
    }

    private static long checkedInteger(String text, long min, long max) {
        if (!Reading.INTEGER.matcher(text).matches()) {
            throw new IllegalArgumentException("expected an integer, got '" + text + "'");
        }
        BigInteger n = new BigInteger(text.startsWith("+") ? text.substring(1) : text);
        if (n.compareTo(BigInteger.valueOf(min)) < 0) {
            throw new IllegalArgumentException(text + " (expected: >= " + min + ")");
        }
        if (n.compareTo(BigInteger.valueOf(max)) > 0) {
            throw new IllegalArgumentException(text + " (expected: <= " + max + ")");
        }
        return n.longValueExact();
    }

    private static double checkedNumber(String text, double min, double max) {
        if (!Reading.NUMBER.matcher(text).matches()) {
            throw new IllegalArgumentException("expected a number, got '" + text + "'");
        }
        double d = Double.parseDouble(text);
        if (d < min) {
            throw new IllegalArgumentException(text + " (expected: >= " + min + ")");
        }
        if (d > max) {
            throw new IllegalArgumentException(text + " (expected: <= " + max + ")");
        }
        return d;
    }
}
