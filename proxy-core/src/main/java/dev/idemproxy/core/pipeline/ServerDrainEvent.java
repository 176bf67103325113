package dev.idemproxy.core.pipeline;

/** Fired on every client channel when the server starts draining. */
public final class ServerDrainEvent {
    public static final ServerDrainEvent INSTANCE = new ServerDrainEvent();

    private ServerDrainEvent() {}
}
