package dev.idemproxy.core.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The simulated loop keeps Netty's ordering (why it is not {@code EmbeddedEventLoop}), and its time moves only when told. */
class SimLoopTest {
    final SimTime time = new SimTime();
    final SimLoop loop = new SimLoop("l", time.netty(), new Trace(time, false));

    @Test
    void aTaskQueuedByACallbackRunsAfterTheCallbackNotInsideIt() {
        List<String> order = new ArrayList<>();
        loop.execute(() -> {
            loop.execute(() -> order.add("queued"));
            order.add("callback done");
        });
        loop.runOne();
        assertThat(order).containsExactly("callback done");
        assertThat(loop.hasTask()).isTrue();
        loop.runOne();
        assertThat(order).containsExactly("callback done", "queued");
    }

    /** What the simulation avoids: an EmbeddedChannel runs its queue at the end of a write, inside the caller. */
    @Test
    void anEmbeddedChannelRunsQueuedTasksInsideTheWriteThatFollows() {
        EmbeddedChannel ch = new EmbeddedChannel();
        List<String> order = new ArrayList<>();
        ch.eventLoop().execute(() -> order.add("queued"));
        ch.writeAndFlush("x");
        order.add("after the write");
        assertThat(order).containsExactly("queued", "after the write");
        ch.finishAndReleaseAll();
    }

    @Test
    void aTimerIsDueOnlyOnceTheTickerReachesIt() {
        List<String> fired = new ArrayList<>();
        loop.schedule(() -> fired.add("t"), 100, TimeUnit.MILLISECONDS);
        long deadline = loop.nextTimer();
        loop.moveDueTimers();
        assertThat(loop.hasTask()).isFalse();
        time.advanceTo(deadline - 1);
        loop.moveDueTimers();
        assertThat(loop.hasTask()).isFalse();
        time.advanceTo(deadline);
        loop.moveDueTimers();
        loop.runOne();
        assertThat(fired).containsExactly("t");
        assertThat(time.elapsedMillis()).isEqualTo(100);
    }
}
