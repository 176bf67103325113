package dev.idemproxy.core.call;

/**
 * Makes each protected call's {@link CallWatch}, as the call starts (the tries kept with its
 * receipt, its trace). Implementations are thread-safe.
 */
@FunctionalInterface
public interface CallWatchers {
    /** Nobody watches. */
    CallWatchers NONE = (call, identity) -> CallWatch.NONE;

    /** The watch of {@code call}, who is {@code identity}; {@link CallWatch#NONE} for none. */
    CallWatch watch(ProxyCall call, CallIdentity identity);
}
