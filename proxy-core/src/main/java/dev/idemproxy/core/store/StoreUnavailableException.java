package dev.idemproxy.core.store;

/**
 * The store could not be reached or failed to answer. Carried by failed {@link java.util.concurrent.CompletionStage}s
 * of every store operation; the engine answers 503 {@code store-unavailable} (or forwards
 * unprotected when {@code onUnavailable: passthrough}).
 */
public class StoreUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StoreUnavailableException(String message) {
        super(message);
    }

    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
