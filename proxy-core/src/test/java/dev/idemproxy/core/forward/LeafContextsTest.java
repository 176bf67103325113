package dev.idemproxy.core.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.TestClock;
import dev.idemproxy.core.testing.TestClock;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/** The per-host server contexts: minted on the executor given, cached, minted again after half a leaf's life. */
class LeafContextsTest {
    final TestClock clock = new TestClock();
    final TestClock ticker = new TestClock();
    final LeafMinter minter = new LeafMinter(LocalCa.generate(clock, new SecureRandom()), clock, new SecureRandom());
    /** Runs nothing until the test says so: what ran on it is what was minted off the caller's thread. */
    final List<Runnable> queued = new ArrayList<>();
    final Executor mints = queued::add;
    final LeafContexts contexts = new LeafContexts(minter, mints, ticker);

    void runQueued() {
        while (!queued.isEmpty()) {
            queued.remove(0).run();
        }
    }

    @Test
    void aNewHostIsMintedOnTheExecutorNotOnTheCallersThread() throws Exception {
        CompletableFuture<SslContext> first = contexts.get("api.stripe.com");
        assertThat(first).isNotDone();
        assertThat(queued).isNotEmpty();

        runQueued();

        SslContext ctx = first.get();
        assertThat(ctx.isServer()).isTrue();
        assertThat(ctx.applicationProtocolNegotiator().protocols()).containsExactly(ApplicationProtocolNames.HTTP_1_1);
    }

    @Test
    void aKnownHostIsAnsweredAtOnceFromTheCache() throws Exception {
        CompletableFuture<SslContext> first = contexts.get("api.stripe.com");
        runQueued();

        CompletableFuture<SslContext> again = contexts.get("api.stripe.com");

        assertThat(again).isDone();
        assertThat(again.get()).isSameAs(first.get());
        assertThat(queued).isEmpty();
    }

    @Test
    void aContextIsMintedAgainAfterHalfALeafsValidity() throws Exception {
        CompletableFuture<SslContext> first = contexts.get("api.stripe.com");
        runQueued();
        ticker.advance(LeafContexts.REFRESH.minus(Duration.ofMinutes(1)));
        assertThat(contexts.get("api.stripe.com").get()).isSameAs(first.get());

        ticker.advance(Duration.ofMinutes(2));
        CompletableFuture<SslContext> later = contexts.get("api.stripe.com");
        runQueued();

        assertThat(later.get()).isNotSameAs(first.get());
        assertThat(LeafContexts.REFRESH).isEqualTo(Duration.ofHours(12));
    }

    @Test
    void concurrentAsksForOneHostShareOneMint() {
        CompletableFuture<SslContext> a = contexts.get("a.example");
        CompletableFuture<SslContext> b = contexts.get("a.example");
        assertThat(b).isSameAs(a);
    }
}
