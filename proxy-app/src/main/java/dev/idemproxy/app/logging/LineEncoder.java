package dev.idemproxy.app.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.EncoderBase;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

/**
 * An encoder of one line per event (no header or footer) that can write its bytes straight into
 * the log writer's batch buffer, with no array made per line ({@link BatchingStdoutAppender}
 * copies in any other encoder's). Subclasses write {@link #encodeInto}; {@link #encode} is made
 * from it, so the two give the same bytes.
 */
public abstract class LineEncoder extends EncoderBase<ILoggingEvent> {
    /** Appends the event's line. */
    abstract void encodeInto(ILoggingEvent event, ByteBuf out);

    @Override
    public final byte[] headerBytes() {
        return null;
    }

    @Override
    public final byte[] footerBytes() {
        return null;
    }

    @Override
    public final byte[] encode(ILoggingEvent event) {
        ByteBuf b = Unpooled.buffer(256);
        try {
            encodeInto(event, b);
            return ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }
}
