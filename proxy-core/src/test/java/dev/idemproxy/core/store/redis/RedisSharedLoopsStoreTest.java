package dev.idemproxy.core.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.net.IoLoops;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import dev.idemproxy.core.store.ClaimResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The standalone store's whole contract (and its outage and restart) again, with Lettuce's
 * connections on the proxy's event loops, as the running proxy opens it; plus where answers
 * arrive and who stops the loops.
 */
class RedisSharedLoopsStoreTest extends RedisStandaloneStoreTest {
    private IoLoops loops;

    @BeforeAll
    void startLoops() {
        loops = IoLoops.start(1);
    }

    @AfterAll
    void stopLoops() {
        if (loops != null) {
            loops.close();
        }
    }

    @Override
    protected Stores newStore() {
        return RedisStore.connect(new RedisPolicy(redisUri(), "standalone", "test:"), Duration.ofSeconds(5), loops);
    }

    @Test
    void answersArriveOnTheProxysEventLoopAndClosingTheStoreLeavesTheLoopsRunning() throws Exception {
        // the store (opened before each test) has pointed Lettuce at the loops' transport
        assertThat(SharedLoopsProvider.fits(loops)).as("Lettuce's transport is the proxy's (" + loops.transport() + ")").isTrue();
        // the loop waits until the callback is attached, so the answer cannot come before it
        CountDownLatch attached = new CountDownLatch(1);
        loops.group().next().execute(() -> await(attached));
        CompletableFuture<Boolean> onLoop = store.claim(new RecordKey("r", "s", "where-" + System.nanoTime()), "fp", "owner",
                        Duration.ofSeconds(5), new ClaimContext("call-where"))
                .thenApply(result -> loops.group().next().inEventLoop())
                .toCompletableFuture();
        attached.countDown();
        assertThat(onLoop.get(5, TimeUnit.SECONDS)).as("the claim's answer ran on the proxy's event loop").isTrue();

        store.close();
        store = null;

        assertThat(loops.group().isShuttingDown()).isFalse();
        assertThat(loops.group().submit(() -> "still running").get(5, TimeUnit.SECONDS)).isEqualTo("still running");
    }

    /**
     * Calls served in one turn of the loop send their commands one by one; they must leave in one
     * write (one flush at the end of the turn), not one each: the server reads them all at once.
     */
    @Test
    void theCommandsSentInOneTurnOfTheLoopReachTheServerInOneRead() throws Exception {
        int calls = 50;  // about 8 KiB of commands: within one 16 KiB read of the server's
        long before = reads();
        List<CompletableFuture<ClaimResult>> claims = loops.group().next().submit(() -> {
            List<CompletableFuture<ClaimResult>> sent = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                sent.add(store.claim(new RecordKey("r", "s", "turn-" + i + "-" + System.nanoTime()), "fp", "owner-" + i,
                        Duration.ofSeconds(5), new ClaimContext("call-turn-" + i)).toCompletableFuture());
            }
            return sent;
        }).get(5, TimeUnit.SECONDS);
        CompletableFuture.allOf(claims.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertThat(claims).allSatisfy(c -> assertThat(c.join()).isEqualTo(ClaimResult.Claimed.FRESH));
        long reads = reads() - before - 1;  // the second INFO is a read of its own
        assertThat(reads).as("reads of %s claims sent in one turn of the loop", calls).isLessThanOrEqualTo(2);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private long reads() throws Exception {
        return Long.parseLong(redisServer().info("stats", "total_reads_processed").trim());
    }
}
