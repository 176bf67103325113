package dev.idemproxy.core.forward;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.util.ReferenceCountUtil;
import java.util.List;

/**
 * Takes the HTTP stack off a client channel that a CONNECT turns into a tunnel: every handler from
 * the stack's first to the end of the pipeline, except the one doing the switch. Bytes the codec
 * had read beyond the CONNECT's head (a client that did not wait for the 200) are handed back, so
 * none is lost. Must run on the channel's event loop. This class is stateless.
 */
final class PipelineSwitch {
    private static final String EARLY = "connectEarlyBytes";

    private PipelineSwitch() {}

    /**
     * Removes the HTTP stack around {@code keep}, which stays.
     *
     * @return the bytes the codec held, possibly none; the caller owns them
     */
    static ByteBuf strip(ChannelHandlerContext keep, HttpStack stack) {
        ChannelPipeline p = keep.pipeline();
        List<String> names = p.names();
        int first = names.indexOf(stack.first());
        int kept = names.indexOf(keep.name());
        EarlyBytes early = new EarlyBytes(keep.alloc().compositeBuffer());
        p.addAfter(stack.codec(), EARLY, early);
        for (int i = names.size() - 1; i > kept; i--) {
            remove(p, names.get(i));
        }
        for (int i = kept - 1; i >= first; i--) {
            if (!names.get(i).equals(stack.codec())) {
                remove(p, names.get(i));
            }
        }
        p.remove(stack.codec());
        p.remove(EARLY);
        return early.bytes;
    }

    private static void remove(ChannelPipeline p, String name) {
        if (p.context(name) != null) {
            p.remove(name);
        }
    }

    /** Collects what the codec hands on as it is removed. */
    private static final class EarlyBytes extends ChannelInboundHandlerAdapter {
        final CompositeByteBuf bytes;

        EarlyBytes(CompositeByteBuf bytes) {
            this.bytes = bytes;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf b) {
                bytes.addComponent(true, b);
            } else {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            // the switch reads on once it is done
        }
    }
}
