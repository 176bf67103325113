package dev.idemproxy.app.wiring;

/** A startup failure with a one-line, user-facing message (no stack trace needed). */
public final class StartupException extends Exception {
    private static final long serialVersionUID = 1L;

    public StartupException(String message, Throwable cause) {
        super(message, cause);
    }
}
