package dev.idemproxy.app.packaging;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The subset of JSON Schema draft-07 that the chart's values.schema.json uses: {@code type},
 * {@code properties}, {@code required}, {@code additionalProperties} (boolean), {@code enum},
 * {@code items}, {@code minimum}, {@code maximum}, {@code minLength}, {@code pattern}, {@code anyOf}
 * and local {@code $ref}s ({@code #/definitions/NAME}). Any other keyword fails loudly, so the schema cannot
 * grow a keyword this checker would silently ignore.
 */
final class MiniJsonSchema {
    private static final Set<String> KNOWN = Set.of(
            "$schema", "$ref", "title", "description", "definitions", "type", "properties", "required",
            "additionalProperties", "enum", "items", "minimum", "maximum", "minLength", "pattern", "anyOf");

    private final JsonNode root;

    MiniJsonSchema(JsonNode root) {
        this.root = root;
    }

    /** Every violation of {@code value}, as {@code path: what is wrong}; empty when it is valid. */
    List<String> validate(JsonNode value) {
        List<String> errors = new ArrayList<>();
        check(root, value, "$", errors);
        return errors;
    }

    /**
     * True when a value at {@code keys} (from the root) is one the schema admits by name: each key
     * a declared property, or anything under an object left open (no {@code properties}, and
     * {@code additionalProperties} not false).
     */
    boolean declares(List<String> keys) {
        JsonNode schema = root;
        for (String key : keys) {
            schema = schema.has("$ref") ? resolve(schema.get("$ref").asText()) : schema;
            if (schema.path("properties").has(key)) {
                schema = schema.path("properties").get(key);
                continue;
            }
            boolean closed = schema.has("additionalProperties") && !schema.get("additionalProperties").asBoolean(true);
            return !closed && !schema.has("properties") && schema.path("type").asText().equals("object");
        }
        return true;
    }

    private void check(JsonNode schema, JsonNode value, String path, List<String> errors) {
        for (Iterator<String> it = schema.fieldNames(); it.hasNext(); ) {
            String keyword = it.next();
            if (!KNOWN.contains(keyword)) {
                throw new IllegalArgumentException("unsupported schema keyword '" + keyword + "' at " + path);
            }
        }
        if (schema.has("$ref")) {
            check(resolve(schema.get("$ref").asText()), value, path, errors);
        }
        if (schema.has("type") && !hasType(value, schema.get("type").asText())) {
            errors.add(path + ": expected " + schema.get("type").asText() + ", got " + value.getNodeType());
            return;
        }
        if (schema.has("anyOf")) {
            List<String> failures = new java.util.ArrayList<>();
            for (JsonNode option : schema.get("anyOf")) {
                List<String> optionErrors = new java.util.ArrayList<>();
                check(option, value, path, optionErrors);
                if (optionErrors.isEmpty()) {
                    failures.clear();
                    break;
                }
                failures.add(String.join("; ", optionErrors));
            }
            if (!failures.isEmpty()) {
                errors.add(path + ": matches none of anyOf: " + String.join(" | ", failures));
            }
        }
        if (schema.has("enum")) {
            boolean found = false;
            for (JsonNode option : schema.get("enum")) {
                found |= sameValue(option, value);
            }
            if (!found) {
                errors.add(path + ": " + value + " is not one of " + schema.get("enum"));
            }
        }
        if (value.isNumber()) {
            if (schema.has("minimum") && value.decimalValue().compareTo(schema.get("minimum").decimalValue()) < 0) {
                errors.add(path + ": " + value + " is below the minimum " + schema.get("minimum"));
            }
            if (schema.has("maximum") && value.decimalValue().compareTo(schema.get("maximum").decimalValue()) > 0) {
                errors.add(path + ": " + value + " is above the maximum " + schema.get("maximum"));
            }
        }
        if (value.isTextual()) {
            String text = value.asText();
            if (schema.has("minLength") && text.codePointCount(0, text.length()) < schema.get("minLength").asInt()) {
                errors.add(path + ": shorter than " + schema.get("minLength"));
            }
            if (schema.has("pattern") && !Pattern.compile(schema.get("pattern").asText()).matcher(text).find()) {
                errors.add(path + ": '" + text + "' does not match " + schema.get("pattern").asText());
            }
        }
        if (value.isObject()) {
            JsonNode properties = schema.path("properties");
            for (JsonNode required : schema.path("required")) {
                if (!value.has(required.asText())) {
                    errors.add(path + ": missing required property '" + required.asText() + "'");
                }
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                String childPath = path + "." + field.getKey();
                if (properties.has(field.getKey())) {
                    check(properties.get(field.getKey()), field.getValue(), childPath, errors);
                } else if (schema.has("additionalProperties") && !schema.get("additionalProperties").asBoolean(true)) {
                    errors.add(childPath + ": unknown property (expected one of " + fieldNames(properties) + ")");
                }
            }
        }
        if (value.isArray() && schema.has("items")) {
            for (int i = 0; i < value.size(); i++) {
                check(schema.get("items"), value.get(i), path + "[" + i + "]", errors);
            }
        }
    }

    private JsonNode resolve(String ref) {
        if (!ref.startsWith("#/definitions/")) {
            throw new IllegalArgumentException("unsupported $ref " + ref);
        }
        JsonNode target = root.path("definitions").path(ref.substring("#/definitions/".length()));
        if (target.isMissingNode()) {
            throw new IllegalArgumentException("dangling $ref " + ref);
        }
        return target;
    }

    private static boolean hasType(JsonNode value, String type) {
        return switch (type) {
            case "object" -> value.isObject();
            case "array" -> value.isArray();
            case "string" -> value.isTextual();
            case "boolean" -> value.isBoolean();
            case "null" -> value.isNull();
            case "number" -> value.isNumber();
            // draft-07: 2.0 is an integer too.
            case "integer" -> value.isIntegralNumber()
                    || (value.isNumber() && value.decimalValue().stripTrailingZeros().scale() <= 0);
            default -> throw new IllegalArgumentException("unsupported type " + type);
        };
    }

    private static boolean sameValue(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue()) == 0;
        }
        return a.equals(b);
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
