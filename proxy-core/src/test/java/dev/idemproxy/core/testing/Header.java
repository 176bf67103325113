package dev.idemproxy.core.testing;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;

/**
 * One header line as seen on the wire: the name keeps the casing it arrived with.
 * This record is immutable.
 */
public record Header(String name, String value) {

    public Header {
        requireNonNull(name, "name");
        requireNonNull(value, "value");
    }

    /** The first value of {@code name} (case-insensitive) in {@code headers}, or {@code null}. */
    static String first(List<Header> headers, String name) {
        for (Header h : headers) {
            if (h.name.equalsIgnoreCase(name)) {
                return h.value;
            }
        }
        return null;
    }

    /** Every value of {@code name} (case-insensitive) in {@code headers}, in arrival order. */
    static List<String> all(List<Header> headers, String name) {
        List<String> values = new ArrayList<>();
        for (Header h : headers) {
            if (h.name.equalsIgnoreCase(name)) {
                values.add(h.value);
            }
        }
        return List.copyOf(values);
    }

    @Override
    public String toString() {
        return name + ": " + value;
    }
}
