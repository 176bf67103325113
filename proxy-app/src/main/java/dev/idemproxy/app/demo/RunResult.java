package dev.idemproxy.app.demo;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;

/**
 * The counts of one demo run. {@code replays}, {@code proxyRetries} and {@code dlqEntries} mean
 * something only when {@code proxied}. This class is immutable.
 *
 * @param requestsSent        requests the agent sent, retries included
 * @param executions          tickets the upstream created (its side effects)
 * @param intentsExecuted     intents with at least one ticket
 * @param duplicateExecutions tickets beyond the first per intent
 * @param ticketsConfirmed    intents for which the agent got a 2xx
 * @param replays             responses the agent got with {@code Idempotent-Replayed: true}
 * @param proxyRetries        requests the upstream saw with {@code X-Attempt} above 1
 * @param dlqEntries          dead-letter entries the proxy's store holds after the run
 * @param faults              how often the upstream served each behaviour
 * @param agentSaw            what the agent's requests got: a status ("201", "504 (replayed)"), "timeout" or "connection error"
 * @param duplicated          for each intent executed more than once: what its requests met
 */
public record RunResult(boolean proxied, int intents, int requestsSent, int executions, int intentsExecuted,
        int duplicateExecutions, int ticketsConfirmed, int replays, int proxyRetries, long dlqEntries,
        Map<Fault, Integer> faults, Map<String, Integer> agentSaw, Map<Integer, List<String>> duplicated) {

    public RunResult {
        faults = Map.copyOf(requireNonNull(faults, "faults"));
        agentSaw = Map.copyOf(requireNonNull(agentSaw, "agentSaw"));
        duplicated = Map.copyOf(requireNonNull(duplicated, "duplicated"));
    }

    public int neverExecuted() {
        return intents - intentsExecuted;
    }
}
