package dev.idemproxy.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.store.memory.MemoryStore;
import dev.idemproxy.core.testing.Claims;
import dev.idemproxy.core.testing.TestClock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Every store operation is timed once, whether the store answers at once or later, and failures are counted. */
class MeteredStoresTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Stores memory = MemoryStore.create(100, Clock.systemUTC());
    private final TestClock ticker = new TestClock();

    @Test
    void anAnswerGivenAtOnceIsTimedOnce() throws Exception {
        Stores stores = MeteredStores.wrap(memory, new ProxyMetrics(registry), ticker);
        RecordKey key = new RecordKey("r", "s", "k1");
        CompletionStage<ClaimResult> s = stores.records().claim(key, "fp", "o", Duration.ofSeconds(5), new ClaimContext("c1"));
        assertThat(s.toCompletableFuture().isDone()).isTrue();
        assertThat(s.toCompletableFuture().get()).isInstanceOf(ClaimResult.Claimed.class);
        assertThat(timer("claim").count()).isEqualTo(1);
        assertThat(errors("claim")).isZero();
    }

    @Test
    void aLaterAnswerIsTimedWhenItComesWithItsTime() throws Exception {
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        RecordStore slow = new ForwardingRecordStore() {
            @Override
            protected RecordStore delegate() {
                return memory.records();
            }

            @Override
            public CompletionStage<Boolean> release(RecordKey key, String owner) {
                return answer;
            }
        };
        Stores stores = MeteredStores.wrap(memory.withRecords(slow), new ProxyMetrics(registry), ticker);
        CompletableFuture<Boolean> f = stores.records().release(new RecordKey("r", "s", "k2"), "o").toCompletableFuture();
        assertThat(registry.find(ProxyMetrics.STORE_DURATION).tag("op", "release").timer()).as("not timed before the answer").isNull();
        ticker.advance(Duration.ofMillis(60));
        answer.complete(true);
        assertThat(f.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(timer("release").count()).isEqualTo(1);
        assertThat(timer("release").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(60);
    }

    @Test
    void failuresAtOnceLaterOrThrownAreCounted() {
        CompletableFuture<Boolean> later = new CompletableFuture<>();
        RecordStore failing = new ForwardingRecordStore() {
            @Override
            protected RecordStore delegate() {
                return memory.records();
            }

            @Override
            public CompletionStage<Boolean> renew(RecordKey key, OwnedClaim owner, Duration lease) {
                return CompletableFuture.failedFuture(new StoreUnavailableException("down"));
            }

            @Override
            public CompletionStage<Boolean> release(RecordKey key, String owner) {
                return later;
            }

            @Override
            public CompletionStage<Boolean> evict(RecordKey key) {
                throw new IllegalStateException("thrown");
            }
        };
        RecordStore store = MeteredStores.wrap(memory.withRecords(failing), new ProxyMetrics(registry), Ticker.system()).records();
        RecordKey key = new RecordKey("r", "s", "k3");
        assertThat(store.renew(key, Claims.owned("o"), Duration.ofSeconds(1)).toCompletableFuture()).isCompletedExceptionally();
        CompletableFuture<Boolean> released = store.release(key, "o").toCompletableFuture();
        later.completeExceptionally(new StoreUnavailableException("down later"));
        assertThat(released).isCompletedExceptionally();
        assertThat(store.evict(key).toCompletableFuture()).isCompletedExceptionally();
        assertThat(errors("renew")).isEqualTo(1);
        assertThat(errors("release")).isEqualTo(1);
        assertThat(errors("evict")).isEqualTo(1);
        assertThat(timer("renew").count()).isEqualTo(1);
        assertThat(timer("release").count()).isEqualTo(1);
        assertThat(timer("evict").count()).isEqualTo(1);
    }

    private Timer timer(String op) {
        return registry.get(ProxyMetrics.STORE_DURATION).tag("op", op).timer();
    }

    private double errors(String op) {
        Counter c = registry.find(ProxyMetrics.STORE_ERRORS).tag("op", op).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void everyOpsErrorCounterIsThereAtZeroBeforeItsFirstUse() throws Exception {
        ProxyMetrics metrics = new ProxyMetrics(registry);
        MeteredStores.wrap(memory, metrics, ticker);
        Set<String> registered = new TreeSet<>();
        registry.find(ProxyMetrics.STORE_ERRORS).counters().forEach(c -> {
            registered.add(c.getId().getTag("op"));
            assertThat(c.count()).isZero();
        });
        assertThat(registered).containsExactlyInAnyOrderElementsOf(MeteredStores.OPS);

        // Each operation of the four SPIs, failing, counts under one of those ops: no series appears later.
        Stores down = new Stores(down(RecordStore.class), down(ReceiptStore.class), down(DeadLetterStore.class),
                down(TaskBudgetStore.class));
        Stores metered = MeteredStores.wrap(down, metrics, ticker);
        int stages = 0;
        for (Object[] part : List.of(new Object[] {RecordStore.class, metered.records()},
                new Object[] {ReceiptStore.class, metered.receipts()}, new Object[] {DeadLetterStore.class, metered.deadLetters()},
                new Object[] {TaskBudgetStore.class, metered.taskBudgets()})) {
            for (Method m : ((Class<?>) part[0]).getMethods()) {
                if (CompletionStage.class.isAssignableFrom(m.getReturnType())) {
                    Object[] args = new Object[m.getParameterCount()];
                    for (int i = 0; i < args.length; i++) {
                        args[i] = m.getParameterTypes()[i] == int.class ? 0 : null;
                    }
                    assertThat(((CompletionStage<?>) m.invoke(part[1], args)).toCompletableFuture()).as(m.getName())
                            .isCompletedExceptionally();
                    stages++;
                }
            }
        }
        Set<String> counted = new TreeSet<>();
        registry.find(ProxyMetrics.STORE_ERRORS).counters().forEach(c -> counted.add(c.getId().getTag("op")));
        assertThat(stages).isGreaterThanOrEqualTo(MeteredStores.OPS.size());
        assertThat(counted).isEqualTo(registered);
        assertThat(MeteredStores.OPS).allSatisfy(op -> assertThat(errors(op)).as(op).isPositive());
    }

    /** A store of {@code type} whose every operation fails. */
    private <T> T down(Class<T> type) {
        return type.cast(Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, (proxy, m, args) -> {
            if (m.getReturnType() == boolean.class) {
                return false;
            }
            if (m.getReturnType() == void.class) {
                return null;
            }
            return CompletableFuture.failedFuture(new StoreUnavailableException("down"));
        }));
    }
}
