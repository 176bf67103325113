package dev.idemproxy.core.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.TestClock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LocalTaskBudgetsTest {
    private final TestClock clock = TestClock.at("2026-03-01T10:15:00Z");
    private final LocalTaskBudgets budgets = new LocalTaskBudgets(new TaskPolicy("X-Task-Id", 2, Duration.ofHours(1)), clock);

    @Test
    void eachTaskHasItsOwnCount() {
        assertThat(budgets.tryAcquire("a").allowed()).isTrue();
        assertThat(budgets.tryAcquire("a").allowed()).isTrue();
        assertThat(budgets.tryAcquire("a").allowed()).isFalse();
        assertThat(budgets.tryAcquire("b").allowed()).isTrue();
        assertThat(budgets.peek("a").remaining()).isZero();
        assertThat(budgets.peek("b").remaining()).isEqualTo(1);
    }

    @Test
    void peekChargesNothing() {
        budgets.peek("a");
        budgets.peek("a");
        assertThat(budgets.peek("a").used()).isZero();
        assertThat(budgets.size()).isZero();
    }

    @Test
    void aDeniedAcquireChargesNothing() {
        budgets.tryAcquire("a");
        budgets.tryAcquire("a");
        budgets.tryAcquire("a");
        assertThat(budgets.peek("a").used()).isEqualTo(2);
    }

    @Test
    void aNewWindowStartsAFreshCountAndDropsOldCounters() {
        budgets.tryAcquire("a");
        budgets.tryAcquire("a");
        budgets.tryAcquire("b");
        clock.advance(Duration.ofMinutes(45));
        assertThat(budgets.peek("a").allowed()).isTrue();
        assertThat(budgets.peek("a").remaining()).isEqualTo(2);
        assertThat(budgets.size()).isZero();
    }

    @Test
    void concurrentAcquiresNeverOverspend() throws Exception {
        LocalTaskBudgets many = new LocalTaskBudgets(new TaskPolicy("X-Task-Id", 50, Duration.ofHours(1)), clock);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        AtomicInteger granted = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        for (int t = 0; t < 8; t++) {
            pool.execute(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                for (int i = 0; i < 40; i++) {
                    if (many.tryAcquire("task").allowed()) {
                        granted.incrementAndGet();
                    }
                }
            });
        }
        start.countDown();
        pool.shutdown();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(granted.get()).isEqualTo(50);
    }
}
