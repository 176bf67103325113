package dev.idemproxy.core.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.IoLoops;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.IdempotencyStore;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
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
        assertThat(SharedLoopsProvider.fits(loops)).as("Lettuce's transport is the proxy's").isTrue();
    }

    @AfterAll
    void stopLoops() {
        if (loops != null) {
            loops.close();
        }
    }

    @Override
    protected IdempotencyStore newStore() {
        return RedisIdempotencyStore.connect(new RedisPolicy(redisUri(), "standalone", "test:"), Duration.ofSeconds(5), loops);
    }

    @Test
    void answersArriveOnTheProxysEventLoopAndClosingTheStoreLeavesTheLoopsRunning() throws Exception {
        CompletableFuture<Boolean> onLoop = store.claim(new RecordKey("r", "s", "where"), "fp", "owner", Duration.ofSeconds(5),
                        new ClaimContext("call-where"))
                .thenApply(result -> loops.group().next().inEventLoop())
                .toCompletableFuture();
        assertThat(onLoop.get(5, TimeUnit.SECONDS)).as("the claim's answer ran on the proxy's event loop").isTrue();

        store.close();
        store = null;

        assertThat(loops.group().isShuttingDown()).isFalse();
        assertThat(loops.group().submit(() -> "still running").get(5, TimeUnit.SECONDS)).isEqualTo("still running");
    }
}
