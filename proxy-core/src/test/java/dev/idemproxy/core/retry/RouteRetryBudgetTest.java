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

class RouteRetryBudgetTest {
    private final TestClock ticker = new TestClock();

    private RouteRetryBudget budget(double ratio, int minPerSecond) {
        return new RouteRetryBudget(new RetryBudgetPolicy(ratio, minPerSecond, Duration.ofSeconds(10)), ticker);
    }

    private static int drain(RouteRetryBudget b) {
        int granted = 0;
        while (b.tryAcquireRetry()) {
            granted++;
        }
        return granted;
    }

    @Test
    void minPerSecondAloneAllowsThatManyRetriesPerWindow() {
        RouteRetryBudget b = budget(0.0, 2);
        assertThat(b.remaining()).isEqualTo(20);
        assertThat(drain(b)).isEqualTo(20);
        assertThat(b.remaining()).isZero();
    }

    @Test
    void retriesAreARatioOfRequests() {
        RouteRetryBudget b = budget(0.2, 0);
        for (int i = 0; i < 50; i++) {
            b.recordRequest();
        }
        assertThat(b.remaining()).isEqualTo(10);
        assertThat(drain(b)).isEqualTo(10);
    }

    @Test
    void aRetryIsGrantedWhileRetriesAreFewerThanTheAllowance() {
        RouteRetryBudget b = budget(0.2, 0);
        assertThat(b.tryAcquireRetry()).isFalse();
        for (int i = 0; i < 3; i++) {
            b.recordRequest();
        }
        assertThat(b.remaining()).isEqualTo(1);
        assertThat(b.tryAcquireRetry()).isTrue();
        assertThat(b.tryAcquireRetry()).isFalse();
    }

    @Test
    void ratioAndMinimumAdd() {
        RouteRetryBudget b = budget(0.5, 1);
        for (int i = 0; i < 10; i++) {
            b.recordRequest();
        }
        assertThat(drain(b)).isEqualTo(15);
    }

    @Test
    void oldBucketsLeaveTheWindow() {
        RouteRetryBudget b = budget(1.0, 0);
        for (int i = 0; i < 5; i++) {
            b.recordRequest();
        }
        assertThat(drain(b)).isEqualTo(5);
        ticker.advance(Duration.ofSeconds(5));
        for (int i = 0; i < 3; i++) {
            b.recordRequest();
        }
        assertThat(drain(b)).isEqualTo(3);
        ticker.advance(Duration.ofMillis(5_500));
        // the first 5 requests and 5 retries have left the window; the later 3 and 3 remain
        assertThat(b.remaining()).isZero();
        b.recordRequest();
        assertThat(drain(b)).isEqualTo(1);
        ticker.advance(Duration.ofSeconds(10));
        assertThat(b.remaining()).isZero();
        b.recordRequest();
        assertThat(b.remaining()).isEqualTo(1);
    }

    @Test
    void aLongIdleGapClearsEverything() {
        RouteRetryBudget b = budget(0.0, 1);
        drain(b);
        ticker.advance(Duration.ofHours(3));
        assertThat(b.remaining()).isEqualTo(10);
    }

    @Test
    void requestsSpreadOverTheWindowAllCount() {
        RouteRetryBudget b = budget(0.1, 0);
        for (int i = 0; i < 100; i++) {
            b.recordRequest();
            ticker.advance(Duration.ofMillis(90));
        }
        // 9 s of requests, all inside the 10 s window
        assertThat(b.remaining()).isEqualTo(10);
    }

    @Test
    void concurrentAcquiresNeverGrantMoreThanTheAllowance() throws Exception {
        RouteRetryBudget b = budget(0.0, 10);
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
                for (int i = 0; i < 100; i++) {
                    if (b.tryAcquireRetry()) {
                        granted.incrementAndGet();
                    }
                }
            });
        }
        start.countDown();
        pool.shutdown();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(granted.get()).isEqualTo(100);
    }
}
