package dev.idemproxy.core.call;

/**
 * Makes each protected call's {@link CallWatch}, as the call starts (the tries kept with its
 * receipt, its trace), and, if it wants to, each pass-through call's. Implementations are
 * thread-safe.
 */
@FunctionalInterface
public interface CallWatchers {
    /** Nobody watches. */
    CallWatchers NONE = (call, identity) -> CallWatch.NONE;

    /** The watch of {@code call}, who is {@code identity}; {@link CallWatch#NONE} for none. */
    CallWatch watch(ProxyCall call, CallIdentity identity);

    /**
     * The watch of a pass-through call (no idempotency, no retries), made as it starts; it hears
     * only {@link CallWatch#upstreamRequest} (try 1, the request head about to go upstream) and
     * {@link CallWatch#passed}. {@link CallWatch#NONE} (the default) for none.
     */
    default CallWatch passThrough(ProxyCall call) {
        return CallWatch.NONE;
    }
}
