package dev.idemproxy.app;

import dev.idemproxy.app.cli.IdemproxyCommand;

/** Entry point of {@code idemproxy.jar}. {@code run} returns only once the proxy has stopped. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.exit(IdemproxyCommand.commandLine().execute(args));
    }
}
