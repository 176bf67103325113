package dev.idemproxy.core.store;

import static dev.idemproxy.core.util.Checks.positive;
import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * A receipt to write together with a record's claim or completion, kept for {@code ttl}: one
 * store operation instead of two, and on the backends that can (memory, embedded, Redis
 * standalone and Sentinel) in the same atomic write. This class is immutable.
 */
public record ReceiptPut(Receipt receipt, Duration ttl) {
    public ReceiptPut {
        requireNonNull(receipt, "receipt");
        positive(ttl, "ttl");
    }
}
