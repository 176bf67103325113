package dev.idemproxy.core.idempotency;

import static java.util.Objects.requireNonNull;

/**
 * An idempotency key as the store keeps it: its origin as a one-letter prefix, so that no client
 * value can collide with a derived or generated key — {@code c:<the client's key>},
 * {@code d:<hex>} (derived from the request), {@code g:<uuid>} (generated for one call). The one
 * place that writes and reads those prefixes. Stateless.
 */
public final class StoredKey {
    /** Where a key came from, with its prefix. */
    public enum Origin {
        /** The client's own key ({@code key.header}), stored unquoted. */
        CLIENT("c:"),
        /** Derived from the request's parts (or an MCP call's tool and arguments) within a window. */
        DERIVED("d:"),
        /** Minted for one call: nothing to derive from, and no key required. */
        GENERATED("g:");

        private final String prefix;

        Origin(String prefix) {
            this.prefix = prefix;
        }

        /** {@code value} as the store keeps a key of this origin. */
        public String stored(String value) {
            return prefix.concat(requireNonNull(value, "value"));
        }
    }

    private StoredKey() {
    }

    /** The origin of a stored key (one the proxy wrote: it has one of the three prefixes). */
    public static Origin origin(String stored) {
        if (stored.length() >= 2 && stored.charAt(1) == ':') {
            switch (stored.charAt(0)) {
                case 'c': return Origin.CLIENT;
                case 'd': return Origin.DERIVED;
                case 'g': return Origin.GENERATED;
                default: break;
            }
        }
        throw new IllegalArgumentException("stored key without its origin prefix (expected: c:, d: or g:)");
    }

    /**
     * The key as a person or the upstream reads it: a client's key as it sent it (unquoted), a
     * derived or generated key as stored (its prefix is part of it, sent upstream as it is). A
     * key without a prefix (a call that had no record, whose dead letter keeps the key it sent) is
     * shown as it is.
     */
    public static String shown(String stored) {
        return stored.startsWith(Origin.CLIENT.prefix) ? stored.substring(Origin.CLIENT.prefix.length()) : stored;
    }
}
