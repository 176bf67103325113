package dev.idemproxy.app;

import ch.qos.logback.classic.LoggerContext;
import dev.idemproxy.app.cli.IdemproxyCommand;
import org.slf4j.LoggerFactory;

/** Entry point of {@code idemproxy.jar}. {@code run} returns only once the proxy has stopped. */
public final class Main {
    static final String LEAK_DETECTION = "io.netty.leakDetection.level";

    private Main() {}

    public static void main(String[] args) {
        defaultLeakDetectionOff();
        int exit = IdemproxyCommand.commandLine().execute(args);
        flushLogs();
        System.exit(exit);
    }

    /** Log lines are written by the asynchronous appender's thread: write what is still queued. */
    static void flushLogs() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext) {
            ((LoggerContext) LoggerFactory.getILoggerFactory()).stop();
        }
    }

    /**
     * Netty's buffer leak detector is on by default (it samples allocations and tags every message
     * passed between handlers), which costs the hot path a few per cent. The test suites run it at
     * {@code paranoid} and fail on any leak, so the shipped jar turns it off unless the operator
     * asks for it: {@code -Dio.netty.leakDetection.level=simple} (or advanced, paranoid).
     * Must run before any Netty class is loaded.
     */
    static void defaultLeakDetectionOff() {
        if (System.getProperty(LEAK_DETECTION) == null && System.getProperty("io.netty.leakDetectionLevel") == null) {
            System.setProperty(LEAK_DETECTION, "disabled");
        }
    }
}
