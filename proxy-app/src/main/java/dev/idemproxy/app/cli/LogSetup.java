package dev.idemproxy.app.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import dev.idemproxy.app.logging.JsonLineEncoder;
import dev.idemproxy.app.logging.LogConfigurator;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import org.slf4j.LoggerFactory;

/**
 * Switches logging to the JSON layout for {@code --log-format json}; text is the default
 * ({@link LogConfigurator} sets up both in code). A
 * logback file given with {@code -Dlogback.configurationFile} is left in charge in both formats
 * (to turn on {@code idemproxy.retries} at DEBUG, say): for JSON lines it names
 * {@code dev.idemproxy.app.logging.JsonLineEncoder} itself. Sets the level of {@code --log-level}
 * (or {@value #LEVEL_ENV}) over whichever file is in charge.
 */
final class LogSetup {
    /** The environment variable that sets the log level when {@code --log-level} is not given. */
    static final String LEVEL_ENV = "IDEMPROXY_LOG_LEVEL";
    static final List<String> LEVELS = List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR");
    /** The proxy's own loggers: its classes' and the calls and retries loggers. */
    private static final List<String> OURS = List.of("dev.idemproxy", "idemproxy");

    private LogSetup() {}

    /**
     * Sets the root logger and the proxy's own ({@code dev.idemproxy.*}, {@code idemproxy.*}) to
     * {@code flag}'s level, else {@code env}'s, else leaves the configured one (INFO). A logger
     * the logback file names keeps its own level ({@code io.netty} stays at WARN). Returns false
     * (after saying why) for a value that is not a level.
     *
     * @param flag {@code --log-level}, or null
     * @param env  the value of {@value #LEVEL_ENV}, or null
     */
    static boolean level(String flag, String env, PrintWriter err) {
        String given = flag != null ? flag : env != null && !env.isBlank() ? env : null;
        if (given == null) {
            return true;
        }
        String name = given.strip().toUpperCase(Locale.ROOT);
        if (!LEVELS.contains(name)) {
            err.println("idemproxy: " + (flag != null ? "--log-level" : LEVEL_ENV) + " '" + given + "' (expected: "
                    + String.join(", ", LEVELS.subList(0, 4)) + " or " + LEVELS.get(4) + ")");
            return false;
        }
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx) {
            Level level = Level.toLevel(name);
            ctx.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(level);
            for (String ours : OURS) {
                ctx.getLogger(ours).setLevel(level);
            }
        }
        return true;
    }

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
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx) {
            LogConfigurator.apply(ctx, new JsonLineEncoder());
        }
        return true;
    }
}
