package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;

/**
 * Where one idempotency record lives: (route, scope hash, key). The scope's values are never
 * stored, only their hash. This class is immutable. (A class, not a record, so that its
 * {@link #id()} is built once: the stores ask for it several times per call.)
 */
public final class RecordKey {
    private final String route;
    private final String scopeHash;
    private final String key;
    private final String id;

    /**
     * @param route     the route's name
     * @param scopeHash a hash of the scope values (empty when the route has no scope)
     * @param key       the idempotency key as the client sent it or the proxy derived it
     */
    public RecordKey(String route, String scopeHash, String key) {
        this.route = requireNonNull(route, "route");
        this.scopeHash = requireNonNull(scopeHash, "scopeHash");
        this.key = requireNonNull(key, "key");
        this.id = route.length() + ":" + route + scopeHash.length() + ":" + scopeHash + key;
    }

    public String route() {
        return route;
    }

    public String scopeHash() {
        return scopeHash;
    }

    public String key() {
        return key;
    }

    /**
     * One string naming this record without ambiguity, whatever characters the parts hold:
     * {@code <len(route)>:<route><len(scopeHash)>:<scopeHash><key>}. Backends use it as their storage key.
     */
    public String id() {
        return id;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RecordKey && ((RecordKey) o).id.equals(id);  // the id is unambiguous
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return "RecordKey[route=" + route + ", scopeHash=" + scopeHash + ", key=" + key + "]";
    }

    /** Parses {@link #id()}; for backends that list their records. */
    public static RecordKey parse(String id) {
        int colon = id.indexOf(':');
        int routeLen = Integer.parseInt(id.substring(0, colon));
        int pos = colon + 1;
        String route = id.substring(pos, pos + routeLen);
        pos += routeLen;
        int colon2 = id.indexOf(':', pos);
        int scopeLen = Integer.parseInt(id.substring(pos, colon2));
        pos = colon2 + 1;
        String scope = id.substring(pos, pos + scopeLen);
        return new RecordKey(route, scope, id.substring(pos + scopeLen));
    }

    /** {@link #id()} as UTF-8 bytes. */
    byte[] idBytes() {
        return id().getBytes(StandardCharsets.UTF_8);
    }
}
