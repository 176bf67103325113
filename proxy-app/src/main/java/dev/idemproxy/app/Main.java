package dev.idemproxy.app;

import dev.idemproxy.app.cli.IdemproxyCommand;

/** Entry point of {@code idemproxy.jar}. {@code run} returns only once the proxy has stopped. */
public final class Main {
    static final String LEAK_DETECTION = "io.netty.leakDetection.level";

    private Main() {}

    public static void main(String[] args) {
        defaultLeakDetectionOff();
        System.exit(IdemproxyCommand.commandLine().execute(args));
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
