package dev.idemproxy.core.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LogThrottleTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final LogThrottle throttle = new LogThrottle(Duration.ofSeconds(10), now::get);

    @Test
    void theFirstLinePassesThenOnePerPeriodSayingHowManyWereHeldBack() {
        assertThat(throttle.pass()).isZero();
        assertThat(throttle.pass()).isEqualTo(-1);
        now.addAndGet(Duration.ofSeconds(9).toNanos());
        assertThat(throttle.pass()).isEqualTo(-1);
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(throttle.pass()).isEqualTo(2);
        assertThat(throttle.pass()).isEqualTo(-1);
        now.addAndGet(Duration.ofSeconds(30).toNanos());
        assertThat(throttle.pass()).isEqualTo(1);
        now.addAndGet(Duration.ofSeconds(10).toNanos());
        assertThat(throttle.pass()).isZero();
    }

    @Test
    void manyThreadsAtOnceLetOneLineThrough() throws Exception {
        int threads = 8;
        AtomicLong passed = new AtomicLong();
        Thread[] ts = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            ts[i] = new Thread(() -> {
                for (int j = 0; j < 1_000; j++) {
                    if (throttle.pass() >= 0) {
                        passed.incrementAndGet();
                    }
                }
            });
            ts[i].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        assertThat(passed.get()).isEqualTo(1);
    }

    @Test
    void theSuffixNamesTheLinesHeldBack() {
        assertThat(LogThrottle.more(0)).isEmpty();
        assertThat(LogThrottle.more(3)).isEqualTo(" (and 3 more like it since the last)");
    }
}
