package dev.idemproxy.app.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import java.io.PrintWriter;
import java.net.URL;
import org.slf4j.LoggerFactory;

/**
 * Switches logging to the JSON layout for {@code --log-format json}; text is the default. A
 * logback file given with {@code -Dlogback.configurationFile} is left in charge in both formats
 * (to turn on {@code idemproxy.retries} at DEBUG, say): for JSON lines it names
 * {@code dev.idemproxy.app.logging.JsonLineEncoder} itself.
 */
final class LogSetup {
    private LogSetup() {}

    /** Returns false (after saying why) for an unknown format. */
    static boolean apply(String format, PrintWriter err) {
        if ("text".equals(format)) {
            return true;
        }
        if (!"json".equals(format)) {
            err.println("idemproxy: --log-format '" + format + "' (expected: text or json)");
            return false;
        }
        if (System.getProperty("logback.configurationFile") != null) {
            return true;  // the operator's own file, read by logback at start
        }
        URL json = LogSetup.class.getResource("/logback-json.xml");
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext) || json == null) {
            return true;
        }
        LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
        ctx.reset();
        JoranConfigurator c = new JoranConfigurator();
        c.setContext(ctx);
        try {
            c.doConfigure(json);
        } catch (JoranException e) {
            err.println("idemproxy: cannot configure JSON logging: " + e.getMessage());
        }
        return true;
    }
}
