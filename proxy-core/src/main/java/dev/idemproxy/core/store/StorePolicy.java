package dev.idemproxy.core.store;

import static dev.idemproxy.core.util.Checks.positive;
import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.secret.Redactor;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Where idempotency records, receipts and dead letters live (docs/configuration.md {@code store}).
 * This class is immutable.
 *
 * @param memoryMaxEntries the memory store's most records (and receipts, and dead letters)
 * @param memoryMaxBytes   about how much heap the memory store may hold in all (see
 *                         {@code store.memory.MemoryStore})
 */
public record StorePolicy(Type type, Path embeddedPath, long memoryMaxEntries, long memoryMaxBytes, RedisPolicy redis,
        OnUnavailable onUnavailable, NearCachePolicy nearCache, EmbeddedSync embeddedSync) {
    /** The memory store's least byte bound. */
    public static final long MEMORY_MIN_BYTES = 1024 * 1024;

    /** A quarter of the JVM's maximum heap ({@code -Xmx}) in whole MiB, and at least {@link #MEMORY_MIN_BYTES}. */
    public static long defaultMemoryMaxBytes() {
        return Math.max(MEMORY_MIN_BYTES, Runtime.getRuntime().maxMemory() / 4 / MEMORY_MIN_BYTES * MEMORY_MIN_BYTES);
    }


    public enum Type {
        EMBEDDED("embedded"), MEMORY("memory"), REDIS("redis");

        private final String spelling;

        Type(String spelling) {
            this.spelling = spelling;
        }

        public String spelling() {
            return spelling;
        }
    }

    /**
     * When the embedded store forces its log to disk ({@code store.embedded.sync}). Every mode keeps
     * what was acknowledged across a crash of the process ({@code kill -9}): a write reaches the
     * operating system before its answer. They differ on a crash of the machine (power loss).
     */
    public enum EmbeddedSync {
        /** Never forced by the store: the operating system writes it back (Linux: within about 30 s). */
        NONE("none"),
        /** Forced once a second: a power loss loses at most about the last second. */
        INTERVAL("interval"),
        /** Forced before every answer that promises durability (one force per group of concurrent writes). */
        ALWAYS("always");

        private final String spelling;

        EmbeddedSync(String spelling) {
            this.spelling = spelling;
        }

        public String spelling() {
            return spelling;
        }
    }

    public enum OnUnavailable {
        REJECT("reject"), PASSTHROUGH("passthrough");

        private final String spelling;

        OnUnavailable(String spelling) {
            this.spelling = spelling;
        }

        public String spelling() {
            return spelling;
        }
    }

    /**
     * @param uri       redis:// or rediss:// URI (a list of seeds for a cluster), or a
     *                  redis-sentinel:// URI; may carry a password
     * @param mode      standalone | sentinel | cluster
     * @param keyPrefix prefix of every key the proxy writes
     * @param tlsCaFile PEM file of the certificates a rediss:// server's certificate is verified
     *                  against, or null for the JVM's trust store; only with a rediss:// URI
     */
    public record RedisPolicy(String uri, String mode, String keyPrefix, Path tlsCaFile) {
        public static final RedisPolicy DEFAULT = new RedisPolicy("redis://127.0.0.1:6379", "standalone", "idemproxy:");

        public RedisPolicy {
            requireNonNull(uri, "uri");
            requireArgument(mode.equals("standalone") || mode.equals("sentinel") || mode.equals("cluster"),
                    "mode '" + mode + "' (expected: standalone, sentinel or cluster)");
            requireArgument(mode.equals("sentinel") == uri.startsWith("redis-sentinel://"),
                    "mode " + mode + " with URI '" + redactedUriOf(uri) + "' (expected: mode sentinel exactly with a"
                            + " redis-sentinel://host:port[,host:port]/db#master URI)");
            requireNonNull(keyPrefix, "keyPrefix");
            requireArgument(tlsCaFile == null || uri.startsWith("rediss://"),
                    "tls.caFile with URI '" + redactedUriOf(uri) + "' (expected: a rediss:// URI)");
        }

        /** Without a CA file: a rediss:// server is verified against the JVM's trust store. */
        public RedisPolicy(String uri, String mode, String keyPrefix) {
            this(uri, mode, keyPrefix, null);
        }

        /**
         * What is wrong with the addresses of a redis://, rediss:// or redis-sentinel:// URI, or null
         * when every one is a {@code host} or {@code host:port} (an IPv6 host in brackets) with a port
         * from 1 to 65535: a URI that can never connect is a config error, not an outage to wait out.
         * Host names are not resolved (a name that does not resolve yet may later).
         */
        public static String addressProblem(String uri) {
            int schemeEnd = uri.indexOf("://");
            if (schemeEnd < 0) {
                return "no scheme";
            }
            int start = schemeEnd + 3;
            int end = uri.length();
            for (char c : new char[] {'/', '?', '#'}) {
                int i = uri.indexOf(c, start);
                end = i >= 0 ? Math.min(end, i) : end;
            }
            int at = uri.lastIndexOf('@', end - 1);
            String hosts = uri.substring(Math.max(start, at + 1), end);
            for (String address : hosts.split(",", -1)) {
                String problem = hostPortProblem(address);
                if (problem != null) {
                    return problem;
                }
            }
            return null;
        }

        private static String hostPortProblem(String address) {
            String host = address;
            String port = null;
            if (address.startsWith("[")) {
                int close = address.indexOf(']');
                if (close < 0) {
                    return "'" + address + "' has no closing ']'";
                }
                host = address.substring(1, close);
                String rest = address.substring(close + 1);
                if (!rest.isEmpty()) {
                    if (!rest.startsWith(":")) {
                        return "'" + address + "' has text after its ']'";
                    }
                    port = rest.substring(1);
                }
            } else {
                int colon = address.indexOf(':');
                if (colon >= 0) {
                    host = address.substring(0, colon);
                    port = address.substring(colon + 1);
                }
            }
            if (host.isEmpty()) {
                return "an address without a host";
            }
            if (port != null && !(port.matches("[0-9]{1,5}") && Integer.parseInt(port) >= 1 && Integer.parseInt(port) <= 65535)) {
                return "port '" + port + "' of '" + host + "' is not a number from 1 to 65535";
            }
            return null;
        }

        /** The URI with its user-info (the password) and secret query parameters shown as {@code ***}, for logs and messages. */
        public String redactedUri() {
            return redactedUriOf(uri);
        }

        static String redactedUriOf(String uri) {
            return Redactor.BUILT_IN.url(uri);
        }
    }

    /**
     * The near-cache of ended records in front of the store ({@link NearCachedStore}).
     *
     * @param enabled    whether there is one
     * @param maxEntries most records kept
     * @param maxBytes   about how many bytes of stored responses are kept, at most
     * @param ttl        longest an entry is kept (never past its record's own expiry): the bound on
     *                   how long another replica's eviction of a record can go unnoticed here
     */
    public record NearCachePolicy(boolean enabled, long maxEntries, long maxBytes, Duration ttl) {
        public static final NearCachePolicy DISABLED = new NearCachePolicy(false, 10_000, 64L * 1024 * 1024,
                Duration.ofSeconds(30));
        /** {@link #DISABLED}'s sizes, switched on. */
        public static final NearCachePolicy ENABLED = new NearCachePolicy(true, DISABLED.maxEntries, DISABLED.maxBytes,
                DISABLED.ttl);

        /**
         * The near-cache a store of {@code type} has when the configuration does not say: on for
         * {@code embedded}, whose file only this process may open (it is locked), so an ended
         * record cached here can never be changed or evicted behind the cache's back; off for
         * {@code redis}, which other replicas share (an eviction there goes unnoticed here for up
         * to {@code ttl}), and for {@code memory}, which is local already.
         */
        public static NearCachePolicy defaultFor(Type type) {
            return type == Type.EMBEDDED ? ENABLED : DISABLED;
        }

        public NearCachePolicy {
            requireArgument(maxEntries >= 1 && maxEntries <= Integer.MAX_VALUE,
                    "maxEntries " + maxEntries + " (expected: 1.." + Integer.MAX_VALUE + ")");
            requireArgument(maxBytes >= 1, "maxBytes " + maxBytes + " (expected: >= 1)");
            positive(ttl, "ttl");
        }
    }

    public static final StorePolicy DEFAULT = new StorePolicy(Type.EMBEDDED, Path.of("./idemproxy-data"), 1_000_000,
            defaultMemoryMaxBytes(), RedisPolicy.DEFAULT, OnUnavailable.REJECT,
            NearCachePolicy.defaultFor(Type.EMBEDDED), EmbeddedSync.INTERVAL);

    public StorePolicy {
        requireNonNull(embeddedSync, "embeddedSync");
        requireNonNull(type, "type");
        requireNonNull(embeddedPath, "embeddedPath");
        requireArgument(memoryMaxEntries >= 1, "maxEntries " + memoryMaxEntries + " (expected: >= 1)");
        requireArgument(memoryMaxBytes >= MEMORY_MIN_BYTES,
                "maxBytes " + memoryMaxBytes + " (expected: >= " + MEMORY_MIN_BYTES + ")");
        requireNonNull(redis, "redis");
        requireNonNull(onUnavailable, "onUnavailable");
        requireNonNull(nearCache, "nearCache");
    }

    /** As the canonical constructor, with the embedded store's default sync ({@code interval}). */
    public StorePolicy(Type type, Path embeddedPath, long memoryMaxEntries, long memoryMaxBytes, RedisPolicy redis,
            OnUnavailable onUnavailable, NearCachePolicy nearCache) {
        this(type, embeddedPath, memoryMaxEntries, memoryMaxBytes, redis, onUnavailable, nearCache, EmbeddedSync.INTERVAL);
    }

    /** A store without a near-cache, and the memory store's default byte bound. */
    public StorePolicy(Type type, Path embeddedPath, long memoryMaxEntries, RedisPolicy redis, OnUnavailable onUnavailable) {
        this(type, embeddedPath, memoryMaxEntries, defaultMemoryMaxBytes(), redis, onUnavailable,
                NearCachePolicy.DISABLED);
    }
}
