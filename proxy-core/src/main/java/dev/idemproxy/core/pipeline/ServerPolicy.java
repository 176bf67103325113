package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.net.Transport;

import static dev.idemproxy.core.util.Checks.requireArgument;

import java.util.Objects;

/**
 * Settings of the client-facing listener: YAML keys {@code server} and {@code limits}, all optional.
 *
 * @param ioThreads        event-loop threads; 0 means one per core
 * @param maxHeaderSize    the largest request header block; larger gets 431
 * @param maxInitialLine   the longest request line; longer gets 431
 * @param transport        the event loops' socket transport ({@code auto}: the best one here)
 * @param limits           the front's timeouts, connection cap and header rules (YAML {@code limits})
 * This class is immutable.
 */
public record ServerPolicy(int ioThreads, int maxHeaderSize, int maxInitialLine, Transport.Choice transport,
        LimitsPolicy limits) {
    public static final ServerPolicy DEFAULT = new ServerPolicy(0, 16 * 1024, 8 * 1024, Transport.Choice.AUTO,
            LimitsPolicy.DEFAULT);

    /** The defaults' transport ({@code auto}) and limits with these settings. */
    public ServerPolicy(int ioThreads, int maxHeaderSize, int maxInitialLine) {
        this(ioThreads, maxHeaderSize, maxInitialLine, Transport.Choice.AUTO, LimitsPolicy.DEFAULT);
    }

    public ServerPolicy {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(limits, "limits");
        requireArgument(ioThreads >= 0 && ioThreads <= 256, "ioThreads " + ioThreads + " (expected: 0..256)");
        requireArgument(maxHeaderSize >= 1024 && maxHeaderSize <= 1024 * 1024,
                "maxHeaderSize " + maxHeaderSize + " (expected: 1KiB..1MiB)");
        requireArgument(maxInitialLine >= 256 && maxInitialLine <= 1024 * 1024,
                "maxInitialLine " + maxInitialLine + " (expected: 256B..1MiB)");
    }

    public ServerPolicy withLimits(LimitsPolicy newLimits) {
        return new ServerPolicy(ioThreads, maxHeaderSize, maxInitialLine, transport, newLimits);
    }

    public int effectiveIoThreads() {
        return ioThreads == 0 ? Runtime.getRuntime().availableProcessors() : ioThreads;
    }
}
