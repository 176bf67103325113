package dev.idemproxy.app.config;

import static java.util.Objects.requireNonNull;

import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Expands {@code ${NAME}} and {@code ${NAME:-default}} in config scalars; {@code $${} writes a
 * literal {@code ${}. The default applies when the variable is unset or empty; an unset variable
 * without a default is an error. This class is immutable.
 */
final class EnvExpander {
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final String SYNTAX = "(expected: ${NAME} or ${NAME:-default})";

    private final Function<String, String> env;

    /** @param env looks a variable up; returns null when it is unset */
    EnvExpander(Function<String, String> env) {
        this.env = requireNonNull(env, "env");
    }

    /** The outcome of expanding one scalar: its text, or why it could not be expanded. */
    record Expansion(String text, String error) {
        boolean ok() {
            return error == null;
        }
    }

    /** True when {@code text} has anything to expand or unescape. */
    static boolean mentionsVariables(String text) {
        return text.contains("${");
    }

    Expansion expand(String text) {
        StringBuilder out = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            int dollar = text.indexOf('$', i);
            if (dollar < 0) {
                out.append(text, i, text.length());
                break;
            }
            out.append(text, i, dollar);
            if (text.startsWith("$${", dollar)) {
                out.append("${");
                i = dollar + 3;
            } else if (text.startsWith("${", dollar)) {
                int close = text.indexOf('}', dollar);
                if (close < 0) {
                    return new Expansion(null, "unclosed ${ in '" + text + "' " + SYNTAX);
                }
                String error = substitute(text.substring(dollar + 2, close), out);
                if (error != null) {
                    return new Expansion(null, error);
                }
                i = close + 1;
            } else {
                out.append('$');
                i = dollar + 1;
            }
        }
        return new Expansion(out.toString(), null);
    }

    /** Appends the value of one {@code NAME} or {@code NAME:-default}; returns an error or null. */
    private String substitute(String reference, StringBuilder out) {
        int sep = reference.indexOf(":-");
        String name = sep < 0 ? reference : reference.substring(0, sep);
        if (!NAME.matcher(name).matches()) {
            return "'${" + reference + "}' is not a variable reference " + SYNTAX;
        }
        String value = env.apply(name);
        if (sep >= 0 && (value == null || value.isEmpty())) {
            value = reference.substring(sep + 2);
        }
        if (value == null) {
            return "environment variable " + name + " is not set";
        }
        out.append(value);
        return null;
    }
}
