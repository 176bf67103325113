package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The operator console (docs/operations.md "Seeing a call"): its page, script and style sheet,
 * served from the jar at {@code /ui} and {@code /ui/*.js|css} (plain ES modules, no framework, no
 * build step), plus the
 * Overview's {@code GET /stats/minutes} ({@link MinuteSamples}). The assets hold no data, so they
 * are served without the admin token ({@link BearerAuth#OPEN_PATHS}); every call the console makes
 * for data sends the token the operator typed, as a Bearer header. Each asset answer forbids
 * framing, sniffing and any script, style or connection that is not the listener's own
 * (Content-Security-Policy). Immutable; thread-safe.
 */
public final class ConsoleEndpoints {
    /** The console's asset paths; served without the token. */
    static final Map<String, String> ASSETS = Map.of(
            "/ui", "index.html",
            "/ui/app.css", "app.css",
            "/ui/app.js", "app.js",
            "/ui/lib.js", "lib.js",
            "/ui/calls.js", "calls.js",
            "/ui/call.js", "call.js",
            "/ui/dlq.js", "dlq.js",
            "/ui/overview.js", "overview.js");
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8");
    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

    private ConsoleEndpoints() {
    }

    /** {@code GET /ui}, its assets and {@code GET /stats/minutes}. */
    public static AdminRoutes routes(MinuteSamples samples) {
        requireNonNull(samples, "samples");
        AdminRoutes.Builder b = AdminRoutes.builder();
        for (Map.Entry<String, String> a : ASSETS.entrySet()) {
            AdminResponse r = asset(a.getValue());
            b.get(a.getKey(), req -> r.completed());
        }
        return b.addAll(samples.routes()).build();
    }

    private static AdminResponse asset(String name) {
        byte[] body;
        try (InputStream in = ConsoleEndpoints.class.getResourceAsStream("/console/" + name)) {
            if (in == null) {
                throw new IllegalStateException("console asset /console/" + name + " is missing from the jar");
            }
            body = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String type = TYPES.get(name.substring(name.lastIndexOf('.') + 1));
        return AdminResponse.of(200, type, body)
                .withHeader("Content-Security-Policy", CSP)
                .withHeader("X-Content-Type-Options", "nosniff")
                .withHeader("X-Frame-Options", "DENY")
                .withHeader("Referrer-Policy", "no-referrer");
    }
}
