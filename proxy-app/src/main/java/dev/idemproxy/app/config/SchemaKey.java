package dev.idemproxy.app.config;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * One key of {@link ConfigSchema}: its name, what its value is, its default as
 * {@code docs/configuration.md} writes it, and whether its value is a secret. A section has
 * children; a list of sections ({@code routes}) is marked {@code list}. This class is immutable.
 *
 * @param type        what the value is; {@link Type#MAP} for a section
 * @param choices     the words a {@link Type#CHOICE}, {@link Type#CHOICES} or {@link Type#TOOL_RULES}
 *                    value is one of, in the order the loader names them; empty for other types
 * @param defaultText the Default cell of the key's row in {@code docs/configuration.md}, verbatim:
 *                    a literal in backticks ({@code `20s`}), or prose ({@code none}, {@code required})
 * @param secret      how {@code GET /config} shows the value
 */
record SchemaKey(String name, Type type, List<String> choices, String defaultText, Secret secret, boolean list,
        List<SchemaKey> children) {

    /** A default that is one literal value, with an optional remark: {@code `1` (no retry)}. */
    private static final Pattern LITERAL = Pattern.compile("`([^`]+)`(?: \\([^)]*\\))?");

    /** What a value is, spelt as the Type column of {@code docs/configuration.md} starts. */
    enum Type {
        DURATION("duration"), SIZE("size"), INTEGER("integer"), NUMBER("number"), BOOLEAN("boolean"), STRING("string"),
        HOST_PORT("host:port"), HOST_NAME("host name"), PATH("path"), HEADER_NAME("header name"), FILE("file"),
        DIRECTORY("directory"), URI("URI"), URL_TEMPLATE("URL template"), JSON_POINTER("JSON pointer"), MAP("map"),
        HEADER_NAMES("list of header names"), QUERY_PARAM_NAMES("list of query parameter names"),
        HEADER_VALUES("map of header name to value"), METHODS("list of methods"), REQUEST_PARTS("list of request parts"), STATUSES("list of statuses"),
        ROUTES("list of routes"),
        /** One of the key's choices: {@code `wait` \| `reject`}. */
        CHOICE("%s"),
        /** A list of the key's choices. */
        CHOICES("list of %s"),
        /** A map of tool names to one of the key's choices. */
        TOOL_RULES("map of tool name to %s");

        private final String spelling;

        Type(String spelling) {
            this.spelling = spelling;
        }

        boolean hasChoices() {
            return spelling.contains("%s");
        }
    }

    /** How {@code GET /config} shows a value (docs/security.md). */
    enum Secret {
        /** As it is. */
        NONE,
        /** A URL: its user-info and the values of secret query parameters as {@code ***}. */
        URL,
        /** Never: {@code ***} when set (a map's values each, its names shown). */
        VALUE
    }

    SchemaKey {
        requireNonNull(name, "name");
        requireNonNull(type, "type");
        choices = List.copyOf(choices);
        requireNonNull(defaultText, "defaultText");
        requireNonNull(secret, "secret");
        children = List.copyOf(children);
        if (type.hasChoices() == choices.isEmpty()) {
            throw new IllegalArgumentException(name + ": choices " + choices + " with type " + type);
        }
    }

    static SchemaKey leaf(String name, Type type, String defaultText) {
        return new SchemaKey(name, type, List.of(), defaultText, Secret.NONE, false, List.of());
    }

    static SchemaKey secret(String name, Type type, String defaultText, Secret secret) {
        return new SchemaKey(name, type, List.of(), defaultText, secret, false, List.of());
    }

    /** A key whose value is one of {@code words} ({@link Type#CHOICE}), a list or a map of them. */
    static SchemaKey choice(String name, Type type, String defaultText, String... words) {
        return new SchemaKey(name, type, List.of(words), defaultText, Secret.NONE, false, List.of());
    }

    static SchemaKey section(String name, SchemaKey... children) {
        return section(name, "", children);
    }

    static SchemaKey section(String name, String defaultText, SchemaKey... children) {
        return new SchemaKey(name, Type.MAP, List.of(), defaultText, Secret.NONE, false, List.of(children));
    }

    static SchemaKey listOf(String name, SchemaKey item) {
        return new SchemaKey(name, Type.ROUTES, List.of(), "`[]`", Secret.NONE, true, item.children());
    }

    boolean isSection() {
        return !children.isEmpty();
    }

    /** The type as the docs spell it: {@code duration}, {@code list of header names}, {@code `wait` \| `reject`}. */
    String typeText() {
        String words = choices.stream().map(w -> "`" + w + "`").collect(Collectors.joining(" \\| "));
        return String.format(type.spelling, words);
    }

    /** The default's literal value ({@code 20s} of {@code `20s`}); null when the default is prose. */
    String literalDefault() {
        Matcher m = LITERAL.matcher(defaultText);
        return m.matches() ? m.group(1) : null;
    }

    /** The child called {@code name}; throws when there is none (a loader bug, not a user error). */
    SchemaKey child(String childName) {
        for (SchemaKey k : children) {
            if (k.name.equals(childName)) {
                return k;
            }
        }
        throw new IllegalStateException("schema of '" + name + "' has no key '" + childName + "'");
    }

    List<String> childNames() {
        return children.stream().map(SchemaKey::name).toList();
    }
}
