package dev.idemproxy.core.testing;

import io.netty.buffer.AbstractByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty reports a leaked buffer (or other tracked resource) while it ran:
 * the zero-leak check every IT must pass. Register with {@code @ExtendWith(LeakDetection.class)} or
 * {@code @RegisterExtension static final LeakDetection LEAKS = new LeakDetection();}.
 *
 * <p>Before the class it sets Netty's level to {@code PARANOID} (every buffer tracked), captures
 * reports through a {@link ResourceLeakDetector.LeakListener} and clears reports left by earlier
 * classes. After the class (after its {@code @AfterAll} methods, so stop the proxy there) it forces
 * garbage collection, allocates tracked buffers so the detector polls its queue, and fails with
 * every leak record. Works with the proxy in the same JVM: Netty's detectors are JVM-wide.
 *
 * <p>Capture is wired two ways: a {@link ResourceLeakDetectorFactory} that attaches the listener
 * to detectors created from then on, and, for the {@code ByteBuf} detector Netty may already have
 * created, the listener set on it directly (Netty has no global listener registry). The captured
 * reports are necessarily JVM-wide static state; run classes that use this extension one at a time.
 */
public final class LeakDetection implements BeforeAllCallback, AfterAllCallback {

    /** A leak as Netty reported it: the resource type and the access records (may be empty). */
    public record LeakReport(String resourceType, String records) {
        @Override
        public String toString() {
            return "LEAK of " + resourceType + ":" + (records.isEmpty() ? " (no records)" : records);
        }
    }

    private static final int GC_ROUNDS = 4;
    private static final long GC_WAIT_MILLIS = 2_000;
    /** Every report since the last drain, JVM-wide; the only static state and the reason for it. */
    private static final Queue<LeakReport> REPORTS = new ConcurrentLinkedQueue<>();
    private static final ResourceLeakDetector.LeakListener LISTENER =
            (type, records) -> REPORTS.add(new LeakReport(type, records));
    private static volatile boolean installed;

    @Override
    public void beforeAll(ExtensionContext context) {
        install();
        List<LeakReport> earlier = collectLeaks();
        if (!earlier.isEmpty()) {
            System.err.println("LeakDetection: " + earlier.size() + " leak(s) reported before "
                    + context.getDisplayName() + " started, not attributed to it:\n" + describe(earlier));
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        List<LeakReport> leaks = collectLeaks();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " Netty leak(s) reported while " + context.getDisplayName()
                    + " ran:\n" + describe(leaks));
        }
    }

    /** Sets level PARANOID and starts capturing leak reports. Idempotent. */
    public static synchronized void install() {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        if (installed) {
            return;
        }
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new CapturingFactory());
        byteBufDetector().setLeakListener(LISTENER);
        installed = true;
    }

    /**
     * Forces GC a few times, makes Netty's {@code ByteBuf} detector poll for collected-but-unreleased
     * buffers, and returns (and forgets) every leak reported since the last call.
     */
    public static List<LeakReport> collectLeaks() {
        install();
        for (int i = 0; i < GC_ROUNDS; i++) {
            forceGc();
            pollDetector();
        }
        List<LeakReport> drained = new ArrayList<>();
        for (LeakReport r; (r = REPORTS.poll()) != null; ) {
            drained.add(r);
        }
        return drained;
    }

    /** {@link #collectLeaks()} and throws an {@link AssertionError} listing them if there are any. */
    public static void assertNoLeaks() {
        List<LeakReport> leaks = collectLeaks();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " Netty leak(s) reported:\n" + describe(leaks));
        }
    }

    private static String describe(List<LeakReport> leaks) {
        StringBuilder sb = new StringBuilder();
        for (LeakReport r : leaks) {
            sb.append(r).append('\n');
        }
        return sb.toString();
    }

    /**
     * Runs a GC and waits, on a reference queue rather than a sleep, until a canary object's weak
     * reference is enqueued: by then the collector has cleared (and the reference handler is
     * enqueuing) the leak trackers of unreachable buffers too.
     */
    private static void forceGc() {
        ReferenceQueue<Object> queue = new ReferenceQueue<>();
        WeakReference<Object> canary = new WeakReference<>(new Object(), queue);
        try {
            for (int attempt = 0; attempt < 5; attempt++) {
                System.gc();
                if (queue.remove(GC_WAIT_MILLIS / 5) != null) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            canary.clear();
        }
    }

    /**
     * Under PARANOID each tracked allocation makes the detector report what the GC found. Direct,
     * because Netty does not track unpooled heap buffers.
     */
    private static void pollDetector() {
        for (int i = 0; i < 4; i++) {
            ByteBuf probe = UnpooledByteBufAllocator.DEFAULT.directBuffer(1);
            probe.release();
        }
    }

    private static ResourceLeakDetector<?> byteBufDetector() {
        try {
            Field f = AbstractByteBuf.class.getDeclaredField("leakDetector");
            f.setAccessible(true);
            return (ResourceLeakDetector<?>) f.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot reach Netty's ByteBuf leak detector (Netty "
                    + "changed AbstractByteBuf.leakDetector?)", e);
        }
    }

    /** Creates ordinary detectors that always report (whatever the logger level) to {@link #LISTENER}. */
    private static final class CapturingFactory extends ResourceLeakDetectorFactory {
        @Override
        @SuppressWarnings("deprecation")
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                long maxActive) {
            return newResourceLeakDetector(resource, samplingInterval);
        }

        @Override
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval) {
            ResourceLeakDetector<T> detector = new ResourceLeakDetector<T>(resource, samplingInterval) {
                @Override
                protected boolean needReport() {
                    return true;
                }
            };
            detector.setLeakListener(LISTENER);
            return detector;
        }
    }
}
