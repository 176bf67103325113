package dev.idemproxy.core.sim;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The allocator of every simulated channel: heap buffers, no leak detector of Netty's (its
 * paranoid sampling would cost more than the simulation), but every buffer kept until the run
 * ends, when any whose reference count is not zero is a leak. Found without a GC, exactly, for
 * whatever the codecs and the engine allocated through a channel's allocator. Not thread-safe.
 */
final class TrackingAllocator extends AbstractByteBufAllocator {
    private final List<ByteBuf> handedOut = new ArrayList<>();

    TrackingAllocator() {
        super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        ByteBuf b = new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
        handedOut.add(b);
        return b;
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return newHeapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public CompositeByteBuf compositeHeapBuffer(int maxNumComponents) {
        CompositeByteBuf b = new CompositeByteBuf(this, false, maxNumComponents);
        handedOut.add(b);
        return b;
    }

    @Override
    public CompositeByteBuf compositeDirectBuffer(int maxNumComponents) {
        return compositeHeapBuffer(maxNumComponents);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    /** The buffers still referenced, each described by its size and first bytes. */
    List<String> leaks() {
        List<String> out = new ArrayList<>();
        for (ByteBuf b : handedOut) {
            if (b.refCnt() > 0) {
                int n = Math.min(b.writerIndex(), 80);
                String head = b.capacity() == 0 ? "" : b.toString(0, Math.min(n, b.capacity()), StandardCharsets.ISO_8859_1);
                out.add("refCnt " + b.refCnt() + ", " + b.writerIndex() + " bytes: " + head.replace("\r\n", "\\r\\n"));
            }
        }
        return out;
    }

    int allocated() {
        return handedOut.size();
    }
}
