package dev.idemproxy.core.sim;

import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.DeadLetterStore;
import dev.idemproxy.core.store.ForwardingDeadLetterStore;
import dev.idemproxy.core.store.ForwardingReceiptStore;
import dev.idemproxy.core.store.ForwardingTaskBudgetStore;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.ReceiptStore;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.TaskBudgetStore;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The receipts, dead letters and task counters of one proxy's view of the shared store, through
 * its {@link StoreWire}: latency for all three, failures for the task counters only (the engine
 * fails open on them). Receipt and dead-letter writes are not failed: today's engine retries
 * them on the JDK's common pool with real time ({@code CallRecorder.writeRetrying}), which a
 * deterministic run cannot include. Not thread-safe.
 */
final class SlowStores {
    private SlowStores() {}

    static Stores wrap(Stores shared, FaultyRecordStore records, StoreWire wire, StoreFaults faults, SplittableRandom random) {
        ReceiptStore receipts = new ForwardingReceiptStore() {
            @Override
            protected ReceiptStore delegate() {
                return shared.receipts();
            }

            @Override
            public CompletionStage<Void> putReceipt(Receipt receipt, Duration ttl) {
                return wire.issue(faults.delay(random), () -> shared.receipts().putReceipt(receipt, ttl));
            }
        };
        DeadLetterStore deadLetters = new ForwardingDeadLetterStore() {
            @Override
            protected DeadLetterStore delegate() {
                return shared.deadLetters();
            }

            @Override
            public CompletionStage<Void> addDeadLetter(DeadLetter entry) {
                return wire.issue(faults.delay(random), () -> shared.deadLetters().addDeadLetter(entry));
            }
        };
        TaskBudgetStore tasks = new ForwardingTaskBudgetStore() {
            @Override
            protected TaskBudgetStore delegate() {
                return shared.taskBudgets();
            }

            @Override
            public CompletionStage<Long> chargeTaskRetry(String windowKey, int maxRetries, Duration ttl) {
                boolean fail = random.nextDouble() < faults.failTask();
                return wire.issue(faults.delay(random), () -> fail ? failed() : shared.taskBudgets().chargeTaskRetry(windowKey, maxRetries, ttl));
            }

            @Override
            public CompletionStage<Long> taskRetriesUsed(String windowKey) {
                boolean fail = random.nextDouble() < faults.failTask();
                return wire.issue(faults.delay(random), () -> fail ? failed() : shared.taskBudgets().taskRetriesUsed(windowKey));
            }
        };
        return new Stores(records, receipts, deadLetters, tasks);
    }

    private static <T> CompletionStage<T> failed() {
        return CompletableFuture.failedFuture(new StoreUnavailableException("simulated: the task counter did not answer"));
    }
}
