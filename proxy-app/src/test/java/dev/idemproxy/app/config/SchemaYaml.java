package dev.idemproxy.app.config;

/** Config text for tests that go over {@link ConfigSchema}'s keys. Stateless. */
final class SchemaYaml {
    private SchemaYaml() {}

    /**
     * A config that sets only the key at a schema path ({@code limits.maxConnections},
     * {@code routes[].retry.maxAttempts}) to {@code value} (YAML as written: {@code 5}, {@code [a]});
     * a {@code routes[]} key is set in one route that is valid without it.
     */
    static String setting(String path, String value) {
        boolean inRoute = path.startsWith("routes[].");
        String[] names = (inRoute ? path.substring("routes[].".length()) : path).split("\\.");
        String flow = value;
        for (int i = names.length - 1; i >= 0; i--) {
            flow = (i == 0 ? "" : "{ ") + names[i] + ": " + flow + (i == 0 ? "" : " }");
        }
        return inRoute ? "routes:\n  - { name: r, upstream: \"http://127.0.0.1:1\", " + flow + " }\n" : flow + "\n";
    }

    /** The path a problem with the key at a schema path is reported at: {@code routes[0].retry.maxAttempts}. */
    static String problemPath(String path) {
        return path.replace("[]", "[0]");
    }
}
