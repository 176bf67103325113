package dev.idemproxy.core.idempotency;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.problem.Problem;
import java.util.Optional;

/**
 * The outcome of {@link KeyResolver#resolve}: a key and where it came from, or why there is none.
 * This class is immutable.
 *
 * @param kind        where the key came from, or {@code BAD} / {@code MISSING}
 * @param key         the key's value: a client key unquoted, {@code d:<hex>}, {@code g:<uuid>}; null without a key
 * @param headerValue what goes upstream in the key header: the client's value unchanged, or the key itself; null without a key
 * @param detail      for {@code BAD} and {@code MISSING}, a sentence for the problem body; else null
 */
public record KeyResolution(Kind kind, String key, String headerValue, String detail) {
    public enum Kind {
        /** The client sent a valid key. */
        CLIENT,
        /** Derived from the configured parts: duplicates within {@code key.window} share it. */
        DERIVED,
        /** Minted for this call (no client key, nothing to derive, not required). */
        GENERATED,
        /** The client's key is malformed: 400 {@code bad-request}. */
        BAD,
        /** No key and {@code required: true}: 400 {@code missing-idempotency-key}. */
        MISSING
    }

    public KeyResolution {
        requireNonNull(kind, "kind");
        if (kind == Kind.BAD || kind == Kind.MISSING) {
            requireNonNull(detail, "detail");
        } else {
            requireNonNull(key, "key");
            requireNonNull(headerValue, "headerValue");
        }
    }

    public boolean hasKey() {
        return key != null;
    }

    /** True for a derived key: its record counts only within {@code key.window} of its creation. */
    public boolean derived() {
        return kind == Kind.DERIVED;
    }

    /**
     * The key as stored: client keys get a {@code c:} prefix so no client value can collide with
     * a derived ({@code d:}) or generated ({@code g:}) key; the others are stored as they are.
     */
    public String storeKey() {
        requireNonNull(key, "no key (expected: a CLIENT, DERIVED or GENERATED resolution)");
        return kind == Kind.CLIENT ? StoredKey.Origin.CLIENT.stored(key) : key;
    }

    /** The problem to answer when there is no key. */
    public Optional<Problem> problem() {
        switch (kind) {
            case BAD: return Optional.of(Problem.BAD_REQUEST);
            case MISSING: return Optional.of(Problem.MISSING_IDEMPOTENCY_KEY);
            default: return Optional.empty();
        }
    }
}
