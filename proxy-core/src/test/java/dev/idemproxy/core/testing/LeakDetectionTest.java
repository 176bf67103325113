package dev.idemproxy.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The detector itself. Deliberately not registered as an extension here: its tests leak on purpose
 * and then drain the reports themselves.
 */
class LeakDetectionTest {

    @BeforeEach
    void clean() {
        LeakDetection.install();
        LeakDetection.collectLeaks();
    }

    @Test
    void installSetsParanoid() {
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);
    }

    @Test
    void reportsADeliberateLeakWithItsRecords() {
        String marker = "deliberate-leak-" + UUID.randomUUID();
        leak(UnpooledByteBufAllocator.DEFAULT.directBuffer(16), marker);

        List<LeakDetection.LeakReport> leaks = LeakDetection.collectLeaks();

        assertThat(leaks).anySatisfy(r -> {
            assertThat(r.resourceType()).isEqualTo("ByteBuf");
            assertThat(r.records()).contains(marker);
        });
        assertThat(LeakDetection.collectLeaks()).as("reports are drained once collected").isEmpty();
    }

    @Test
    void assertNoLeaksFailsWithTheRecordsOfAPooledLeak() {
        String marker = "pooled-leak-" + UUID.randomUUID();
        leak(PooledByteBufAllocator.DEFAULT.buffer(32), marker);

        assertThatThrownBy(LeakDetection::assertNoLeaks)
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("Netty leak")
                .hasMessageContaining(marker);
    }

    @Test
    void passesWhenEveryBufferIsReleased() {
        for (int i = 0; i < 100; i++) {
            ByteBuf buf = PooledByteBufAllocator.DEFAULT.buffer(64);
            buf.touch("released-" + i);
            buf.writeInt(i);
            buf.release();
        }

        assertThat(LeakDetection.collectLeaks()).isEmpty();
        LeakDetection.assertNoLeaks();
    }

    /** Touches the buffer with a unique hint and drops the only reference without releasing it. */
    private static void leak(ByteBuf buf, String marker) {
        buf.touch(marker);
        buf.writeLong(1L);
    }
}
