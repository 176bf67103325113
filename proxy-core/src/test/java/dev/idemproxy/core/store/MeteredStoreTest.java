package dev.idemproxy.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.metrics.ProxyMetrics;
import dev.idemproxy.core.store.memory.MemoryIdempotencyStore;
import dev.idemproxy.core.testing.Claims;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.TreeSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Every store operation is timed once, whether the store answers at once or later, and failures are counted. */
class MeteredStoreTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final IdempotencyStore memory = MemoryIdempotencyStore.create(100, Clock.systemUTC());

    @Test
    void anAnswerGivenAtOnceIsTimedOnce() throws Exception {
        MeteredStore store = new MeteredStore(memory, new ProxyMetrics(registry));
        RecordKey key = new RecordKey("r", "s", "k1");
        CompletionStage<ClaimResult> s = store.claim(key, "fp", "o", Duration.ofSeconds(5), new ClaimContext("c1"));
        assertThat(s.toCompletableFuture().isDone()).isTrue();
        assertThat(s.toCompletableFuture().get()).isInstanceOf(ClaimResult.Claimed.class);
        assertThat(timer("claim").count()).isEqualTo(1);
        assertThat(errors("claim")).isZero();
    }

    @Test
    void aLaterAnswerIsTimedWhenItComesWithItsTime() throws Exception {
        IdempotencyStore slow = new ForwardingStore(memory) {
            @Override
            public CompletionStage<Boolean> release(RecordKey key, String owner) {
                return CompletableFuture.supplyAsync(() -> true, CompletableFuture.delayedExecutor(60, TimeUnit.MILLISECONDS));
            }
        };
        MeteredStore store = new MeteredStore(slow, new ProxyMetrics(registry));
        CompletableFuture<Boolean> f = store.release(new RecordKey("r", "s", "k2"), "o").toCompletableFuture();
        assertThat(registry.find(ProxyMetrics.STORE_DURATION).tag("op", "release").timer()).as("not timed before the answer").isNull();
        assertThat(f.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(timer("release").count()).isEqualTo(1);
        assertThat(timer("release").totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(50);
    }

    @Test
    void failuresAtOnceLaterOrThrownAreCounted() {
        IdempotencyStore failing = new ForwardingStore(memory) {
            @Override
            public CompletionStage<Boolean> renew(RecordKey key, OwnedClaim owner, Duration lease) {
                return CompletableFuture.failedFuture(new StoreUnavailableException("down"));
            }

            @Override
            public CompletionStage<Boolean> release(RecordKey key, String owner) {
                return CompletableFuture.supplyAsync(() -> {
                    throw new StoreUnavailableException("down later");
                }, CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS));
            }

            @Override
            public CompletionStage<Boolean> evict(RecordKey key) {
                throw new IllegalStateException("thrown");
            }
        };
        MeteredStore store = new MeteredStore(failing, new ProxyMetrics(registry));
        RecordKey key = new RecordKey("r", "s", "k3");
        assertThat(store.renew(key, Claims.owned("o"), Duration.ofSeconds(1)).toCompletableFuture()).isCompletedExceptionally();
        assertThat(store.release(key, "o").toCompletableFuture()).failsWithin(Duration.ofSeconds(5));
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
        new MeteredStore(memory, metrics);
        Set<String> registered = new TreeSet<>();
        registry.find(ProxyMetrics.STORE_ERRORS).counters().forEach(c -> {
            registered.add(c.getId().getTag("op"));
            assertThat(c.count()).isZero();
        });
        assertThat(registered).containsExactlyInAnyOrderElementsOf(MeteredStore.OPS);

        // Each operation of the SPI, failing, counts under one of those ops: no series appears later.
        IdempotencyStore down = (IdempotencyStore) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {IdempotencyStore.class}, (proxy, m, args) -> {
                    if (m.getReturnType() == boolean.class) {
                        return false;
                    }
                    if (m.getReturnType() == void.class) {
                        return null;
                    }
                    return CompletableFuture.failedFuture(new StoreUnavailableException("down"));
                });
        MeteredStore store = new MeteredStore(down, metrics);
        int stages = 0;
        for (Method m : IdempotencyStore.class.getMethods()) {
            if (CompletionStage.class.isAssignableFrom(m.getReturnType())) {
                Object[] args = new Object[m.getParameterCount()];
                for (int i = 0; i < args.length; i++) {
                    args[i] = m.getParameterTypes()[i] == int.class ? 0 : null;
                }
                assertThat(((CompletionStage<?>) m.invoke(store, args)).toCompletableFuture()).as(m.getName())
                        .isCompletedExceptionally();
                stages++;
            }
        }
        Set<String> counted = new TreeSet<>();
        registry.find(ProxyMetrics.STORE_ERRORS).counters().forEach(c -> counted.add(c.getId().getTag("op")));
        assertThat(stages).isGreaterThanOrEqualTo(MeteredStore.OPS.size());
        assertThat(counted).isEqualTo(registered);
        assertThat(MeteredStore.OPS).allSatisfy(op -> assertThat(errors(op)).as(op).isPositive());
    }
}
