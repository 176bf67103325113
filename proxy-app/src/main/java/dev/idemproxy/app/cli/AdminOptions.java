package dev.idemproxy.app.cli;

import picocli.CommandLine.Option;

/** {@code --admin URL} and {@code --token TOKEN}, shared by the verbs that call the admin API. */
final class AdminOptions {
    static final String DEFAULT_ADMIN = "http://127.0.0.1:9901";

    @Option(names = "--admin", paramLabel = "URL", defaultValue = DEFAULT_ADMIN,
            description = "Admin API of the running proxy (default: ${DEFAULT-VALUE}).")
    String admin;

    @Option(names = "--token", paramLabel = "TOKEN", defaultValue = "${env:IDEMPROXY_ADMIN_TOKEN}",
            description = "Admin Bearer token (default: $IDEMPROXY_ADMIN_TOKEN).")
    String token;
}
