package dev.idemproxy.app.demo;

import java.time.Duration;

/**
 * The knobs of one demo. The upstream's late answers come after the agent has given up
 * ({@link #lateBy()} above the agent's timeout) but within the proxy's per-try timeout
 * ({@link #perTry()}), so the proxy sees every late answer and the agent never does.
 * This class is immutable.
 */
public record DemoSettings(long seed, int intents, Duration agentTimeout, int retries, int concurrency) {

    public DemoSettings {
        if (intents < 1 || intents > 10_000) {
            throw new IllegalArgumentException("--intents " + intents + " (expected: 1..10000)");
        }
        if (agentTimeout.toMillis() < 50 || agentTimeout.toMillis() > 5_000) {
            throw new IllegalArgumentException("--agent-timeout " + agentTimeout.toMillis() + "ms (expected: 50ms..5s)");
        }
        if (retries < 0 || retries > 10) {
            throw new IllegalArgumentException("--retries " + retries + " (expected: 0..10)");
        }
        if (concurrency < 1 || concurrency > 256) {
            throw new IllegalArgumentException("--concurrency " + concurrency + " (expected: 1..256)");
        }
    }

    /** How late the upstream's late answers come: after the agent's timeout. */
    public Duration lateBy() {
        return agentTimeout.plusMillis(300);
    }

    /** The proxy route's per-try timeout: long enough to see a late answer. */
    public Duration perTry() {
        return lateBy().plusMillis(400);
    }
}
