package dev.idemproxy.app.config;

import dev.idemproxy.core.secret.Redactor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Shows a described config (the tree {@link ConfigDescriber#effectiveConfig} builds, keyed as in
 * the YAML) as its {@link ConfigSchema} secret markings allow: a key marked {@link SchemaKey.Secret#URL}
 * through {@link Redactor#url}, one marked {@link SchemaKey.Secret#VALUE} as {@value Redactor#MASK}
 * when set. A key the schema does not know is a describer bug and throws. This class is stateless.
 */
final class SchemaRedaction {
    private SchemaRedaction() {}

    /** A copy of {@code tree}, the mapping of section {@code schema}, with every secret-marked value redacted. */
    static Map<String, Object> redact(Map<String, ?> tree, SchemaKey schema, Redactor redactor) {
        Map<String, Object> out = new LinkedHashMap<>();
        tree.forEach((name, value) -> out.put(name, redactValue(schema.child(name), value, redactor)));
        return out;
    }

    /** {@code value} of {@code key} as it may be shown: a leaf's own value by its marking, a section's or list's walked. */
    @SuppressWarnings("unchecked")
    private static Object redactValue(SchemaKey key, Object value, Redactor redactor) {
        if (key.isSection() && key.list() && value instanceof List<?> items) {
            List<Object> out = new ArrayList<>(items.size());
            for (Object item : items) {
                out.add(item instanceof Map<?, ?> m ? redact((Map<String, ?>) m, key, redactor) : item);
            }
            return out;
        }
        if (key.isSection() && value instanceof Map<?, ?> m) {
            return redact((Map<String, ?>) m, key, redactor);
        }
        return show(key, value, redactor);
    }

    /** A leaf's value as it may be shown: null and an empty value stay as they are (nothing set, nothing to hide). */
    static Object show(SchemaKey key, Object value, Redactor redactor) {
        if (value == null || value.toString().isEmpty() || value instanceof Map<?, ?> m && m.isEmpty()) {
            return value;
        }
        return switch (key.secret()) {
            case NONE -> value;
            case URL -> redactor.url(value.toString());
            case VALUE -> value instanceof Map<?, ?> m ? masked(m) : Redactor.MASK;
        };
    }

    /** A map of secrets (header names to values) with its names shown and every value as {@value Redactor#MASK}. */
    private static Map<String, Object> masked(Map<?, ?> secrets) {
        Map<String, Object> out = new LinkedHashMap<>();
        secrets.keySet().forEach(name -> out.put(String.valueOf(name), Redactor.MASK));
        return out;
    }
}
