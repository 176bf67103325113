package dev.idemproxy.app.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import io.netty.buffer.ByteBuf;

/**
 * An encoder that can write its bytes for an event straight into the log writer's batch buffer,
 * with no array made per line ({@link BatchingStdoutAppender} copies in any other encoder's).
 */
interface LineEncoder {
    /** Appends exactly the bytes the encoder's {@code encode(event)} returns. */
    void encodeInto(ILoggingEvent event, ByteBuf out);
}
