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
 * its {@link StoreWire}: latency for all three; failures for the task counters (the engine fails
 * open on them) and, as the run's {@link WriteFaults} say, for the receipts and dead letters the
 * engine writes on their own (it tries them again on its loop, {@code StoreWrites}), each try
 * noted in the run's {@link WriteLedger}. Not thread-safe.
 */
final class SlowStores {
    private SlowStores() {}

    static Stores wrap(World w, int proxy, Stores shared, FaultyRecordStore records, StoreWire wire, StoreFaults faults,
            SplittableRandom random) {
        WriteFaults writeFaults = w.plan.writeFaults();
        ReceiptStore receipts = new ForwardingReceiptStore() {
            @Override
            protected ReceiptStore delegate() {
                return shared.receipts();
            }

            @Override
            public CompletionStage<Void> putReceipt(Receipt receipt, Duration ttl) {
                return wire.issue(faults.delay(random), () -> {
                    if (!writeFaults.none() && writeFaults.fails(w.time.sinceStart(), writeFaults.receipt(), w.side)) {
                        return failedWrite(w, proxy, WriteLedger.Kind.RECEIPT, receipt.callId(), null);
                    }
                    return noted(w, proxy, WriteLedger.Kind.RECEIPT, receipt.callId(), null, shared.receipts().putReceipt(receipt, ttl));
                });
            }
        };
        DeadLetterStore deadLetters = new ForwardingDeadLetterStore() {
            @Override
            protected DeadLetterStore delegate() {
                return shared.deadLetters();
            }

            @Override
            public CompletionStage<Void> addDeadLetter(DeadLetter entry) {
                return wire.issue(faults.delay(random), () -> {
                    if (!writeFaults.none() && writeFaults.fails(w.time.sinceStart(), writeFaults.deadLetter(), w.side)) {
                        return failedWrite(w, proxy, WriteLedger.Kind.DEAD_LETTER, entry.callId(), entry.id());
                    }
                    return noted(w, proxy, WriteLedger.Kind.DEAD_LETTER, entry.callId(), entry.id(), shared.deadLetters().addDeadLetter(entry));
                });
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

    private static CompletionStage<Void> failedWrite(World w, int proxy, WriteLedger.Kind kind, String callId, String entryId) {
        w.trace.step("writeFailed", kind.ordinal(), 0, kind + " of " + callId);
        w.writes.tried(kind, proxy, callId, entryId, false);
        return CompletableFuture.failedFuture(new StoreUnavailableException("simulated: the " + kind + " write failed"));
    }

    private static CompletionStage<Void> noted(World w, int proxy, WriteLedger.Kind kind, String callId, String entryId,
            CompletionStage<Void> write) {
        return write.whenComplete((v, e) -> w.writes.tried(kind, proxy, callId, entryId, e == null));
    }

    private static <T> CompletionStage<T> failed() {
        return CompletableFuture.failedFuture(new StoreUnavailableException("simulated: the task counter did not answer"));
    }
}
