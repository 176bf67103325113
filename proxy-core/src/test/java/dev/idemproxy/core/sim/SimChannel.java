package dev.idemproxy.core.sim;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.AbstractChannel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelId;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayDeque;

/**
 * A simulated TCP connection's proxy end: what the engine writes comes out as bytes to its
 * {@link Peer}; what the peer sends waits in {@link #pending} until the simulator delivers it (one
 * read, as a loop's I/O turn would), and only while the channel reads (auto-read, or a
 * {@code read()} asked for). Active from registration (an accepted client, or an upstream
 * connection whose connect succeeded). Writes issued after the channel closed are seen by a
 * watch at the pipeline's head and told to the peer. Not thread-safe: one simulation thread.
 */
final class SimChannel extends AbstractChannel {
    private static final ChannelMetadata METADATA = new ChannelMetadata(false);

    /** The other end of the connection: the simulated client or upstream server. */
    interface Peer {
        void bytes(byte[] data);

        /** The proxy closed the connection (not called when the peer closed it). */
        void closedByProxy();

        /** The engine wrote on the channel after it had closed; {@code byPeer} tells who closed it. */
        default void writeAfterClose(boolean byPeer) {
        }
    }

    private final ChannelConfig config = new DefaultChannelConfig(this);
    private final Peer peer;
    private final SocketAddress remote;
    private final ArrayDeque<byte[]> pending = new ArrayDeque<>();
    private boolean open = true;
    private boolean readRequested;
    private boolean closedByPeer;
    private boolean peerClosePending;

    SimChannel(ChannelId id, Peer peer, int addressSuffix, ByteBufAllocator alloc) {
        super(null, id);
        this.peer = peer;
        this.remote = address(addressSuffix);
        config.setAllocator(alloc);
        pipeline().addFirst("simWriteWatch", new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                if (!open) {
                    SimChannel.this.peer.writeAfterClose(closedByPeer);
                }
                ctx.write(msg, promise);
            }
        });
    }

    private static SocketAddress address(int n) {
        try {
            return new InetSocketAddress(InetAddress.getByAddress(new byte[] {10, 0, (byte) (n >> 8), (byte) n}), 40000 + n);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The peer sends {@code data}: it waits until delivered. */
    void send(byte[] data) {
        if (open) {
            pending.add(data);
        }
    }

    /** The peer closes its end once what it sent before is delivered. */
    void peerClose() {
        if (open) {
            peerClosePending = true;
        }
    }

    /** Whether the simulator can deliver something now: data while reading, or the peer's close. */
    boolean deliverable() {
        if (!open || !isRegistered()) {
            return false;
        }
        if (!pending.isEmpty()) {
            return config.isAutoRead() || readRequested;
        }
        return peerClosePending;
    }

    /** Delivers the next chunk as one read, or the peer's close when nothing is left. */
    void deliver() {
        if (pending.isEmpty()) {
            peerClosePending = false;
            closedByPeer = true;
            unsafe().close(unsafe().voidPromise());
            return;
        }
        byte[] data = pending.poll();
        ByteBuf buf = alloc().buffer(data.length);
        buf.writeBytes(data);
        if (!config.isAutoRead()) {
            readRequested = false;
        }
        pipeline().fireChannelRead(buf);
        pipeline().fireChannelReadComplete();
    }

    boolean closedByPeer() {
        return closedByPeer;
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new AbstractUnsafe() {
            @Override
            public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
                promise.setFailure(new UnsupportedOperationException("simulated channels are connected by the simulator"));
            }
        };
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return loop instanceof SimLoop;
    }

    @Override
    protected SocketAddress localAddress0() {
        return remote;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
    }

    @Override
    protected void doDisconnect() {
        doClose();
    }

    @Override
    protected void doClose() {
        if (!open) {
            return;
        }
        open = false;
        pending.clear();
        if (!closedByPeer) {
            peer.closedByProxy();
        }
    }

    @Override
    protected void doBeginRead() {
        readRequested = true;
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) {
        for (Object msg = in.current(); msg != null; msg = in.current()) {
            if (msg instanceof ByteBuf) {
                ByteBuf b = (ByteBuf) msg;
                byte[] data = new byte[b.readableBytes()];
                b.getBytes(b.readerIndex(), data);
                if (data.length > 0) {
                    peer.bytes(data);
                }
                in.remove();
            } else {
                in.remove(new UnsupportedOperationException("not a ByteBuf: " + ReferenceCountUtil.touch(msg).getClass()));
            }
        }
    }

    @Override
    public ChannelConfig config() {
        return config;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && isRegistered();
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }
}
