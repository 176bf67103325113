package dev.idemproxy.app.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Runs one admin request for a verb and reports it: the JSON answer pretty-printed on stdout; on a
 * non-2xx answer also one line on stderr. Exit codes: 0 for 2xx; 2 for a 400 (the request was
 * wrong) or a bad {@code --admin}; 1 for anything else (404, 401, 5xx, unreachable). Never prints a
 * stack trace. Stateless.
 */
final class AdminCall {
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** Thread-safe once configured. */
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private AdminCall() {
    }

    /** A client for the verb's options; a bad URL is a usage error (exit 2). */
    static AdminClient client(CommandSpec spec, AdminOptions options) {
        try {
            return new AdminClient(options.admin, options.token);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    static int run(CommandSpec spec, AdminOptions options, String method, String path, Duration timeout) {
        AdminClient client = client(spec, options);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        AdminClient.Response r;
        try {
            r = client.send(method, path, timeout);
        } catch (IOException e) {
            err.println("idemproxy: cannot reach the admin API at " + client.shownBase() + ": " + describe(e));
            err.flush();
            return IdemproxyCommand.RUNTIME_FAILURE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("idemproxy: interrupted");
            err.flush();
            return IdemproxyCommand.RUNTIME_FAILURE;
        }
        if (!r.body().isEmpty()) {
            out.println(pretty(r.body()));
            out.flush();
        }
        if (r.ok()) {
            return IdemproxyCommand.OK;
        }
        err.println("idemproxy: " + method + " " + path + ": HTTP " + r.status() + summary(r.body()));
        err.flush();
        return r.status() == 400 ? IdemproxyCommand.USAGE : IdemproxyCommand.RUNTIME_FAILURE;
    }

    /** {@code value} as indented JSON on {@code out}. */
    static void print(PrintWriter out, Object value) {
        try {
            out.println(JSON.writeValueAsString(value));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not serialisable as JSON: " + e.getOriginalMessage(), e);
        }
        out.flush();
    }

    /** The body re-indented when it is JSON, else as it is. */
    static String pretty(String body) {
        try {
            return JSON.writeValueAsString(JSON.readTree(body));
        } catch (JsonProcessingException e) {
            return body.strip();
        }
    }

    /** ": detail" of a problem body, or ": status" of a status body; empty otherwise. */
    private static String summary(String body) {
        try {
            JsonNode n = JSON.readTree(body);
            if (n != null && n.hasNonNull("detail")) {
                return ": " + n.get("detail").asText();
            }
            if (n != null && n.hasNonNull("status") && n.get("status").isTextual()) {
                return ": " + n.get("status").asText();
            }
        } catch (JsonProcessingException e) {
            // not JSON: the status line says enough
        }
        return "";
    }

    private static String describe(IOException e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + m;
    }
}
