package dev.idemproxy.core.net;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringDatagramChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The socket transport of the proxy's event loops: io_uring, epoll or NIO. io_uring submits a
 * loop turn's reads and writes to the kernel in one system call instead of one call each, which
 * on a small request roughly halves the kernel time per call (measured in 2026-12; the figures are in git history, docs/benchmarks-history.md); epoll is the
 * fallback where the kernel or a container's seccomp profile refuses io_uring (Docker's default
 * profile does), NIO where neither native library loads. This class is immutable.
 */
public enum Transport {
    IO_URING("io_uring"), EPOLL("epoll"), NIO("nio");

    /** The system property that overrides {@code server.transport: auto} (for test runs). */
    public static final String OVERRIDE_PROPERTY = "idemproxy.transport";

    private final String spelling;

    Transport(String spelling) {
        this.spelling = spelling;
    }

    /** How the YAML (and {@link #OVERRIDE_PROPERTY}) spells it. */
    public String spelling() {
        return spelling;
    }

    /** What {@code server.transport} asks for: one transport, or the best one here. */
    public enum Choice {
        AUTO("auto"), IO_URING("io_uring"), EPOLL("epoll"), NIO("nio");

        private final String spelling;

        Choice(String spelling) {
            this.spelling = spelling;
        }

        public String spelling() {
            return spelling;
        }
    }

    /**
     * The transport for {@code choice}: {@code auto} is io_uring when it works here, else epoll,
     * else NIO, unless {@link #OVERRIDE_PROPERTY} names one.
     *
     * @throws IllegalStateException when the chosen native transport cannot run here, with the reason
     */
    public static Transport select(Choice choice) {
        Choice c = choice;
        if (c == Choice.AUTO) {
            String forced = System.getProperty(OVERRIDE_PROPERTY, "auto");
            c = forced.isEmpty() ? Choice.AUTO : choiceOf(forced);
        }
        switch (c) {
            case IO_URING:
                require(IO_URING);
                return IO_URING;
            case EPOLL:
                require(EPOLL);
                return EPOLL;
            case NIO:
                return NIO;
            default:
                return IO_URING.isAvailable() ? IO_URING : EPOLL.isAvailable() ? EPOLL : NIO;
        }
    }

    /** The best transport here ({@code auto}). */
    public static Transport best() {
        return select(Choice.AUTO);
    }

    private static Choice choiceOf(String spelling) {
        for (Choice c : Choice.values()) {
            if (c.spelling.equals(spelling)) {
                return c;
            }
        }
        throw new IllegalStateException("-D" + OVERRIDE_PROPERTY + "=" + spelling + " (expected one of: auto, io_uring, epoll, nio)");
    }

    private static void require(Transport t) {
        Throwable why = t.unavailabilityCause();
        if (why != null) {
            throw new IllegalStateException("the " + t.spelling + " transport cannot run here: " + why, why);
        }
    }

    /** Whether this transport can run on this machine (NIO always can). */
    public boolean isAvailable() {
        return unavailabilityCause() == null;
    }

    /** Why this transport cannot run here, or null when it can. */
    public Throwable unavailabilityCause() {
        switch (this) {
            case IO_URING:
                return IoUring.isAvailable() ? null : IoUring.unavailabilityCause();
            case EPOLL:
                return Epoll.isAvailable() ? null : Epoll.unavailabilityCause();
            default:
                return null;
        }
    }

    public EventLoopGroup newGroup(int threads, String name) {
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), ioHandlerFactory());
    }

    private IoHandlerFactory ioHandlerFactory() {
        switch (this) {
            case IO_URING:
                return IoUringIoHandler.newFactory();
            case EPOLL:
                return EpollIoHandler.newFactory();
            default:
                return NioIoHandler.newFactory();
        }
    }

    public Class<? extends ServerChannel> serverChannel() {
        switch (this) {
            case IO_URING:
                return IoUringServerSocketChannel.class;
            case EPOLL:
                return EpollServerSocketChannel.class;
            default:
                return NioServerSocketChannel.class;
        }
    }

    public Class<? extends SocketChannel> clientChannel() {
        switch (this) {
            case IO_URING:
                return IoUringSocketChannel.class;
            case EPOLL:
                return EpollSocketChannel.class;
            default:
                return NioSocketChannel.class;
        }
    }

    /** The datagram channel (for DNS lookups on these loops). */
    public Class<? extends DatagramChannel> datagramChannel() {
        switch (this) {
            case IO_URING:
                return IoUringDatagramChannel.class;
            case EPOLL:
                return EpollDatagramChannel.class;
            default:
                return NioDatagramChannel.class;
        }
    }

    @Override
    public String toString() {
        return spelling;
    }
}
