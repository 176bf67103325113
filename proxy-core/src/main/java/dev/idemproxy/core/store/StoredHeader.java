package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

/** One header line as stored: name as received (case kept), value. This class is immutable. */
public record StoredHeader(String name, String value) {

    public StoredHeader {
        requireNonNull(name, "name");
        requireNonNull(value, "value");
    }
}
