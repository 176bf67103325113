package dev.idemproxy.app.admin;

import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A route path such as {@code /receipts/{callId}}: literal segments and {@code {name}} variables,
 * each variable matching exactly one non-empty path segment. This class is immutable.
 */
final class PathPattern {
    private final String text;
    private final List<String> segments;
    private final List<Boolean> variable;
    private final int literals;

    PathPattern(String text) {
        requireNonNull(text, "pattern");
        requireArgument(text.startsWith("/"), "admin route '" + text + "' (expected: a path starting with /)");
        this.text = text;
        List<String> segs = new ArrayList<>();
        List<Boolean> vars = new ArrayList<>();
        Set<String> names = new HashSet<>();
        int lits = 0;
        for (String s : split(text)) {
            boolean isVar = s.length() > 2 && s.startsWith("{") && s.endsWith("}");
            String name = isVar ? s.substring(1, s.length() - 1) : s;
            requireArgument(name.indexOf('{') < 0 && name.indexOf('}') < 0,
                    "admin route '" + text + "' segment '" + s + "' (expected: a literal or {name})");
            requireArgument(!isVar || names.add(name), "admin route '" + text + "' repeats {" + name + "}");
            segs.add(name);
            vars.add(isVar);
            lits += isVar ? 0 : 1;
        }
        this.segments = List.copyOf(segs);
        this.variable = List.copyOf(vars);
        this.literals = lits;
    }

    /** Path variables when {@code pathSegments} (already percent-decoded) match, else null. */
    Map<String, String> match(List<String> pathSegments) {
        if (pathSegments.size() != segments.size()) {
            return null;
        }
        Map<String, String> params = new LinkedHashMap<>();
        for (int i = 0; i < segments.size(); i++) {
            String actual = pathSegments.get(i);
            if (variable.get(i)) {
                if (actual.isEmpty()) {
                    return null;
                }
                params.put(segments.get(i), actual);
            } else if (!segments.get(i).equals(actual)) {
                return null;
            }
        }
        return params;
    }

    /** How many literal segments; the more, the more specific when two patterns match. */
    int literals() {
        return literals;
    }

    /** Splits {@code /a/b} into {@code [a, b]}; {@code /} is one empty segment. */
    static List<String> split(String path) {
        return List.of(path.substring(1).split("/", -1));
    }

    /** Equal when both match the same paths: variable names do not matter. */
    @Override
    public boolean equals(Object o) {
        return o instanceof PathPattern p && p.shape().equals(shape());
    }

    @Override
    public int hashCode() {
        return shape().hashCode();
    }

    /** Literals as they are, every variable as {@code {}}. */
    private List<String> shape() {
        List<String> shape = new ArrayList<>(segments.size());
        for (int i = 0; i < segments.size(); i++) {
            shape.add(variable.get(i) ? "{}" : segments.get(i));
        }
        return shape;
    }

    @Override
    public String toString() {
        return text;
    }
}
