package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.net.Transport;

import static dev.idemproxy.core.util.Checks.positive;
import static dev.idemproxy.core.util.Checks.requireArgument;

import java.time.Duration;

/**
 * Settings of the client-facing listener (YAML key {@code server}, all optional).
 *
 * @param ioThreads        event-loop threads; 0 means one per core
 * @param clientIdle       a keep-alive client connection silent this long is closed
 * @param maxHeaderSize    the largest request header block; larger gets 431
 * @param maxInitialLine   the longest request line; longer gets 431
 * @param transport        the event loops' socket transport ({@code auto}: the best one here)
 * This class is immutable.
 */
public record ServerPolicy(int ioThreads, Duration clientIdle, int maxHeaderSize, int maxInitialLine,
        Transport.Choice transport) {
    public static final ServerPolicy DEFAULT = new ServerPolicy(0, Duration.ofSeconds(60), 16 * 1024, 8 * 1024,
            Transport.Choice.AUTO);

    /** The defaults' transport ({@code auto}) with these settings. */
    public ServerPolicy(int ioThreads, Duration clientIdle, int maxHeaderSize, int maxInitialLine) {
        this(ioThreads, clientIdle, maxHeaderSize, maxInitialLine, Transport.Choice.AUTO);
    }

    public ServerPolicy {
        java.util.Objects.requireNonNull(transport, "transport");
        requireArgument(ioThreads >= 0 && ioThreads <= 256, "ioThreads " + ioThreads + " (expected: 0..256)");
        positive(clientIdle, "clientIdle");
        requireArgument(maxHeaderSize >= 1024 && maxHeaderSize <= 1024 * 1024,
                "maxHeaderSize " + maxHeaderSize + " (expected: 1KiB..1MiB)");
        requireArgument(maxInitialLine >= 256 && maxInitialLine <= 1024 * 1024,
                "maxInitialLine " + maxInitialLine + " (expected: 256B..1MiB)");
    }

    public int effectiveIoThreads() {
        return ioThreads == 0 ? Runtime.getRuntime().availableProcessors() : ioThreads;
    }
}
