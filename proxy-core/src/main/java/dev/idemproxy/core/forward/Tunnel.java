package dev.idemproxy.core.forward;

import io.netty.channel.Channel;

/**
 * One blind tunnel: the client's channel and the target's, the bytes carried each way, and its
 * one log line, written once both channels have closed. Both channels share one event loop, so
 * its state is only touched from there. Not thread-safe.
 */
final class Tunnel {
    final ConnectTarget target;
    final long startNanos;
    private final ConnectLog log;
    Channel client;
    Channel upstream;
    /** Bytes from the client to the target, and back. */
    long up;
    long down;
    private boolean clientInputShut;
    private boolean upstreamInputShut;
    private int closed;

    Tunnel(ConnectTarget target, long startNanos, ConnectLog log) {
        this.target = target;
        this.startNanos = startNanos;
        this.log = log;
    }

    /** The channel at the other end from {@code ch}. */
    Channel peer(Channel ch) {
        return ch == client ? upstream : client;
    }

    /** One side sent its FIN; returns true when both have, and the tunnel is done. */
    boolean inputShut(Channel ch) {
        if (ch == client) {
            clientInputShut = true;
        } else {
            upstreamInputShut = true;
        }
        return clientInputShut && upstreamInputShut;
    }

    /** Watches both channels' ends: the line is logged once the second has closed. */
    void logWhenClosed() {
        client.closeFuture().addListener(f -> channelClosed());
        upstream.closeFuture().addListener(f -> channelClosed());
    }

    private void channelClosed() {
        if (++closed == 2) {
            log.tunnelled(target, startNanos, up, down);
        }
    }

    void closeBoth() {
        client.close();
        if (upstream != null) {
            upstream.close();
        }
    }
}
