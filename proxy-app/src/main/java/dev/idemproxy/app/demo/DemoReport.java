package dev.idemproxy.app.demo;

import dev.idemproxy.app.config.DurationParser;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Prints a demo's outcome: one header line, the two runs side by side, a short explanation built
 * from the numbers and, should the proxied run ever execute an intent twice, what that intent's
 * requests met. Stateless.
 */
public final class DemoReport {
    private static final String ROW = "%-32s %13s %8s%n";

    private DemoReport() {}

    public static String format(Demo.Outcome o) {
        DemoSettings s = o.settings();
        RunResult via = o.viaProxy();
        RunResult direct = o.direct();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("idemproxy demo (seed %d, %d intents, agent timeout %s, %d retries, %d at a time)%n",
                s.seed(), s.intents(), DurationParser.format(s.agentTimeout()), s.retries(), s.concurrency()));
        sb.append(String.format(ROW, "", "via idemproxy", "direct"));
        row(sb, "requests sent by the agent", via.requestsSent(), direct.requestsSent());
        row(sb, "tickets created (executions)", via.executions(), direct.executions());
        row(sb, "duplicate tickets", via.duplicateExecutions(), direct.duplicateExecutions());
        row(sb, "intents never executed", via.neverExecuted(), direct.neverExecuted());
        row(sb, "intents the agent saw succeed", via.ticketsConfirmed(), direct.ticketsConfirmed());
        sb.append(String.format(ROW, "replays to the agent", via.replays(), "-"));
        sb.append(String.format(ROW, "proxy retries", via.proxyRetries(), "-"));
        sb.append(String.format(ROW, "DLQ entries", via.dlqEntries(), "-"));
        sb.append(String.format("%nThe tickets service served, via idemproxy: %s%n", faults(via.faults())));
        sb.append(String.format("                           direct:        %s%n", faults(direct.faults())));
        sb.append(String.format("The agent got, via idemproxy: %s%n", answers(via.agentSaw())));
        sb.append(String.format("              direct:        %s%n%n", answers(direct.agentSaw())));
        sb.append(explanation(via, direct)).append(String.format("%n"));
        if (!via.duplicated().isEmpty()) {
            sb.append(String.format("%nBUG: idemproxy let %d intent(s) execute more than once. What their requests met:%n",
                    via.duplicated().size()));
            for (Map.Entry<Integer, List<String>> e : via.duplicated().entrySet()) {
                sb.append(String.format("  intent-%d: %s%n", e.getKey(), String.join("; ", e.getValue())));
            }
        }
        return sb.toString();
    }

    private static void row(StringBuilder sb, String label, int via, int direct) {
        sb.append(String.format(ROW, label, via, direct));
    }

    private static String faults(Map<Fault, Integer> served) {
        StringJoiner j = new StringJoiner(", ");
        for (Fault f : Fault.values()) {
            int n = served.getOrDefault(f, 0);
            if (n > 0) {
                j.add(n + " " + f.description());
            }
        }
        return j.length() == 0 ? "nothing" : j.toString();
    }

    private static String answers(Map<String, Integer> seen) {
        StringJoiner j = new StringJoiner(", ");
        new java.util.TreeMap<>(seen).forEach((what, n) -> j.add(n + " × " + what));
        return j.length() == 0 ? "nothing" : j.toString();
    }

    static String explanation(RunResult via, RunResult direct) {
        StringBuilder t = new StringBuilder();
        t.append("Both runs meet the same seeded faults from a tickets service that ignores Idempotency-Key. Direct, the "
                + "agent's retries after timeouts and dropped connections created ").append(direct.duplicateExecutions())
                .append(" duplicate ticket(s) for ").append(direct.duplicated().size()).append(" of ").append(direct.intents())
                .append(" intents: each time, the service had already committed. ");
        if (via.duplicateExecutions() == 0) {
            t.append("Through idemproxy, none: ");
        } else {
            t.append("Through idemproxy, ").append(via.duplicateExecutions()).append(" (a bug, see below): ");
        }
        t.append("the proxy derived one key per intent from the request (method, path, /intentId), kept each call "
                + "running after the agent gave up, and answered the agent's retries from its store (")
                .append(via.replays()).append(" replays). It retried by itself only what cannot have executed (")
                .append(via.proxyRetries()).append(" retries, after 429s). An outcome it cannot know, a dropped connection "
                + "or a 503 from a service that ignores keys, it never retries: it stores it (as 504 ambiguous-outcome, "
                + "or the 503), replays it, and files a DLQ entry for an operator (").append(via.dlqEntries()).append(")");
        boolean fewer = via.ticketsConfirmed() < direct.ticketsConfirmed();
        String never = via.neverExecuted() + " intent(s) were not executed";
        if (fewer || via.neverExecuted() > 0) {
            t.append("; that is why ").append(fewer && via.neverExecuted() > 0 ? "the agent saw fewer successes and " + never
                    : fewer ? "the agent saw fewer successes" : never);
        }
        t.append(". Tag a route `idempotent` when its upstream honours the key, and such outcomes are retried instead.");
        return wrap(t.toString(), 100);
    }

    /** Greedy word wrap at {@code width} columns. */
    static String wrap(String text, int width) {
        StringBuilder out = new StringBuilder();
        int col = 0;
        for (String word : text.split(" ")) {
            if (col > 0 && col + 1 + word.length() > width) {
                out.append(String.format("%n"));
                col = 0;
            } else if (col > 0) {
                out.append(' ');
                col++;
            }
            out.append(word);
            col += word.length();
        }
        return out.toString();
    }
}
