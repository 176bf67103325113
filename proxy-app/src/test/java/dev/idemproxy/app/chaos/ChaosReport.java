package dev.idemproxy.app.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What one chaos scenario did and found, printed as a table. {@link #violations()} is empty when
 * the run passed; otherwise it starts with the first offending intent's whole history.
 */
public record ChaosReport(
        String scenario,
        long seed,
        int intents,
        long agentRequests,
        int upstreamRequests,
        int receiptChecks,
        int executed,
        int duplicates,
        long replaysSeen,
        long proxyRetries,
        int dlqEntries,
        int notExecutedInDlq,
        int notExecutedTold,
        int executedOnVerify,
        int verifyReplayed,
        long p50Millis,
        long p99Millis,
        long runMillis,
        Map<ChaosUpstream.Fault, Integer> faults,
        List<String> violations) {

    public boolean passed() {
        return violations.isEmpty();
    }

    public String table() {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"scenario", scenario});
        rows.add(new String[] {"seed (-Dchaos.seed)", Long.toString(seed)});
        rows.add(new String[] {"intents", Integer.toString(intents)});
        rows.add(new String[] {"agent requests", Long.toString(agentRequests)});
        rows.add(new String[] {"upstream requests", upstreamRequests + (receiptChecks > 0 ? " (+" + receiptChecks + " receipt checks)" : "")});
        rows.add(new String[] {"executions (side effects)", Integer.toString(executed)});
        rows.add(new String[] {"duplicates", Integer.toString(duplicates)});
        rows.add(new String[] {"replays seen by agents", Long.toString(replaysSeen)});
        rows.add(new String[] {"proxy retries", Long.toString(proxyRetries)});
        rows.add(new String[] {"DLQ entries", Integer.toString(dlqEntries)});
        rows.add(new String[] {"not executed: in DLQ + FAILED receipt", Integer.toString(notExecutedInDlq)});
        rows.add(new String[] {"not executed: agent told (429/502/503/refused)", Integer.toString(notExecutedTold)});
        rows.add(new String[] {"executed by the verification re-send", Integer.toString(executedOnVerify)});
        rows.add(new String[] {"verification re-sends replayed", verifyReplayed + " of " + intents});
        rows.add(new String[] {"agent latency per intent p50 / p99", p50Millis + " ms / " + p99Millis + " ms"});
        rows.add(new String[] {"run time", runMillis + " ms"});
        rows.add(new String[] {"faults served", faults.toString()});
        rows.add(new String[] {"result", passed() ? "PASS" : "FAIL (" + violations.size() + " violations)"});
        int w = rows.stream().mapToInt(r -> r[0].length()).max().orElse(10);
        StringBuilder sb = new StringBuilder();
        String rule = "+" + "-".repeat(w + 2) + "+" + "-".repeat(40) + "\n";
        sb.append(rule);
        for (String[] r : rows) {
            sb.append("| ").append(r[0]).append(" ".repeat(w - r[0].length())).append(" | ").append(r[1]).append('\n');
        }
        sb.append(rule);
        return sb.toString();
    }
}
