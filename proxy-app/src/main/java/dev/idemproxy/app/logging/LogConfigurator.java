package dev.idemproxy.app.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * The proxy's logging, set up in code: one {@link BatchingStdoutAppender} (queue 16384, flushed
 * within 2 s at stop) with the text or JSON line encoder, {@code io.netty} at WARN, the root at
 * INFO. Logback finds this class as a service ({@code META-INF/services}) before its own XML
 * configurator, so a start loads neither Joran nor an XML parser (about 600 classes). A logback
 * file of the operator's ({@code -Dlogback.configurationFile}), or a {@code logback-test.xml} or
 * {@code logback.xml} on the class path, is left to logback's XML configurator, as before.
 * Stateless; the appender it makes is thread-safe.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class LogConfigurator extends ContextAwareBase implements Configurator {
    /** The appender's name, as the XML files named it. */
    public static final String APPENDER = "OUT";

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (System.getProperty("logback.configurationFile") != null
                || LogConfigurator.class.getClassLoader().getResource("logback-test.xml") != null
                || LogConfigurator.class.getClassLoader().getResource("logback.xml") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        apply(context, new TextLineEncoder());
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /**
     * Resets {@code context} and configures it with {@code encoder} ({@link TextLineEncoder} or
     * {@link JsonLineEncoder}).
     */
    public static void apply(LoggerContext context, Encoder<ILoggingEvent> encoder) {
        context.reset();
        encoder.setContext(context);
        encoder.start();
        BatchingStdoutAppender out = new BatchingStdoutAppender();
        out.setContext(context);
        out.setName(APPENDER);
        out.setEncoder(encoder);
        out.setQueueSize(16384);
        out.setMaxFlushMillis(2000);
        out.start();
        context.getLogger("io.netty").setLevel(Level.WARN);
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(out);
    }
}
