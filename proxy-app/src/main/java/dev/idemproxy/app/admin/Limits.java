package dev.idemproxy.app.admin;

import java.util.Optional;

/** Parses a {@code limit} query parameter against a default and a maximum. Stateless. */
final class Limits {
    private Limits() {
    }

    /** Either a value or the 400 problem to answer; exactly one is set. */
    record Parsed(int value, AdminResponse problem) {
    }

    static Parsed parse(Optional<String> raw, int defaultLimit, int max) {
        if (raw.isEmpty()) {
            return new Parsed(defaultLimit, null);
        }
        String text = raw.get();
        int value;
        try {
            value = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            value = -1;
        }
        if (value < 1 || value > max) {
            return new Parsed(0, AdminResponse.problem(400, "bad-request", "Bad request",
                    "limit '" + text + "' (expected: an integer 1.." + max + ")"));
        }
        return new Parsed(value, null);
    }
}
