package dev.idemproxy.core.tries;

import static java.util.Objects.requireNonNull;

/** One header line of a kept (redacted) head. This class is immutable. */
public record HeadField(String name, String value) {
    public HeadField {
        requireNonNull(name, "name");
        requireNonNull(value, "value");
    }
}
