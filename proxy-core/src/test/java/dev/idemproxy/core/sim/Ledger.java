package dev.idemproxy.core.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The simulated upstream's side effects, as the upstream performed them: every execution by
 * intent (the idempotency key and scope it arrived with; an MCP call's tool and arguments), the
 * receipt endpoint's answers by call id, and the retries each task's calls made. The at-most-once
 * invariant is checked against it. Not thread-safe: one simulation thread.
 */
final class Ledger {
    /** One side effect the upstream performed. */
    record Execution(String intent, String callId, int attempt, String route, String method, String tool, long atMillis,
            boolean hintsSeen) {}

    /** One answer of the receipt endpoint. */
    record ReceiptAnswer(String callId, String status, long atMillis) {}

    private final List<Execution> executions = new ArrayList<>();
    private final Map<String, List<Execution>> byIntent = new HashMap<>();
    private final Map<String, Execution> byCall = new HashMap<>();
    private final List<ReceiptAnswer> receiptAnswers = new ArrayList<>();
    private final Map<String, Integer> retriesByTask = new HashMap<>();
    /** Call ids received whose execution is still to come: the receipt says PROCESSING. */
    private final Map<String, Integer> executing = new HashMap<>();
    /** A tools/list answer has passed to the proxy (its tool hints may be known). */
    private boolean toolsListed;

    void execute(String intent, String callId, int attempt, String route, String method, String tool, long atMillis) {
        Execution e = new Execution(intent, callId, attempt, route, method, tool, atMillis, toolsListed);
        executions.add(e);
        byIntent.computeIfAbsent(intent, k -> new ArrayList<>(2)).add(e);
        if (callId != null) {
            byCall.putIfAbsent(callId, e);
        }
    }

    void executing(String callId, int delta) {
        if (callId != null) {
            executing.merge(callId, delta, Integer::sum);
        }
    }

    /** What the receipt endpoint says of {@code callId} now. */
    String receiptStatus(String callId) {
        if (byCall.containsKey(callId)) {
            return "SUCCESS";
        }
        return executing.getOrDefault(callId, 0) > 0 ? "PROCESSING" : "NOT_FOUND";
    }

    void receiptAnswered(String callId, String status, long atMillis) {
        receiptAnswers.add(new ReceiptAnswer(callId, status, atMillis));
    }

    /** Whether the receipt endpoint answered NOT_FOUND about {@code callId} at or before {@code atMillis}. */
    boolean notFoundBefore(String callId, long atMillis) {
        for (ReceiptAnswer a : receiptAnswers) {
            if (a.callId().equals(callId) && a.status().equals("NOT_FOUND") && a.atMillis() <= atMillis) {
                return true;
            }
        }
        return false;
    }

    void retry(String task) {
        if (task != null) {
            retriesByTask.merge(task, 1, Integer::sum);
        }
    }

    void toolsListed() {
        toolsListed = true;
    }

    /** Whether the upstream has answered a tools/list: a proxy that read it knows which tools are read-only. */
    boolean toolsWereListed() {
        return toolsListed;
    }

    Execution executionOf(String callId) {
        return byCall.get(callId);
    }

    boolean executedIntent(String intent) {
        return byIntent.containsKey(intent);
    }

    Execution firstOf(String intent) {
        List<Execution> l = byIntent.get(intent);
        return l == null ? null : l.get(0);
    }

    Map<String, List<Execution>> byIntent() {
        return byIntent;
    }

    Map<String, Integer> retriesByTask() {
        return retriesByTask;
    }

    int executions() {
        return executions.size();
    }
}
