package dev.idemproxy.core.store;

import java.util.ArrayList;
import java.util.List;

/**
 * The calls a record in flight was taken over from ({@link IdempotencyRecord#priors()}), as every
 * store writes and reads them: a list, oldest first, with no call twice, and in the Redis and log
 * encodings one line of call ids separated by spaces (a call id is the proxy's own, lowercase hex).
 * Stateless.
 */
public final class Priors {
    private Priors() {
    }

    /** {@code priors} then {@code callId}, unless {@code callId} is among them already (a DLQ replay runs under its call id again). */
    public static List<String> append(List<String> priors, String callId) {
        if (priors.contains(callId)) {
            return priors;
        }
        List<String> all = new ArrayList<>(priors.size() + 1);
        all.addAll(priors);
        all.add(callId);
        return List.copyOf(all);
    }

    /** The one-line form: the call ids separated by single spaces; "" for none. */
    public static String line(List<String> priors) {
        return String.join(" ", priors);
    }

    /** The list a {@link #line} reads back to, every call once, in its first place. */
    public static List<String> parse(String line) {
        if (line == null || line.isBlank()) {
            return List.of();
        }
        List<String> all = new ArrayList<>();
        for (String id : line.trim().split(" +")) {
            if (!all.contains(id)) {
                all.add(id);
            }
        }
        return List.copyOf(all);
    }
}
