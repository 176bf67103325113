package dev.idemproxy.core.call;

import dev.idemproxy.core.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.store.ClaimResult;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoredResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class InFlightWaitersTest {
    private final InFlightWaiters waiters = new InFlightWaiters();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final RecordKey key = new RecordKey("r", "s", "k");
    private final ClaimResult done = new ClaimResult.Completed(new StoredResponse(201, List.of(), new byte[] {1}), "c1", 1);

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    @Test
    void waitersAreWokenWithTheOwnersOutcomeAndTheMarkAnswersLateComersForAWhile() throws Exception {
        List<ClaimResult> got = new ArrayList<>();
        Consumer<ClaimResult> w = got::add;
        assertThat(waiters.await(key, "fp", w)).isNull();
        waiters.settling(key, "fp", done);
        assertThat(waiters.settled(key, "fp", false)).isSameAs(done);
        assertThat(waiters.settled(key, "fp", true)).as("not yet written").isNull();
        assertThat(waiters.await(key, "fp", r -> got.add(null))).as("a late comer waits for the write").isNull();
        waiters.wake(key, "fp", done, timer);
        assertThat(got).containsExactly(done, null);
        got.remove(1);
        // a waiter whose poll was on its way, or one registering now, gets the outcome, not the store
        assertThat(waiters.settled(key, "fp", true)).isSameAs(done);
        assertThat(waiters.await(key, "fp", r -> got.add(null))).isSameAs(done);
        Await.until("the mark to go", java.time.Duration.ofSeconds(10), () -> waiters.size() == 0);
        assertThat(waiters.settled(key, "fp", false)).as("the mark goes after a while").isNull();
        assertThat(waiters.size()).isZero();
    }

    @Test
    void withNobodyWaitingNothingIsMarkedOrKept() {
        waiters.settling(key, "fp", done);
        waiters.wake(key, "fp", done, timer);
        assertThat(waiters.settled(key, "fp", false)).isNull();
        assertThat(waiters.size()).isZero();
    }

    @Test
    void aReleaseWakesTheWaitersWithNothingAndClearsTheMark() {
        List<ClaimResult> got = new ArrayList<>();
        waiters.await(key, "fp", got::add);
        waiters.settling(key, "fp", done);
        waiters.wake(key, "fp", null, timer);
        assertThat(got).hasSize(1).containsOnlyNulls();
        assertThat(waiters.settled(key, "fp", false)).isNull();
        assertThat(waiters.size()).isZero();
    }

    @Test
    void aForgottenWaiterIsNotWoken() {
        List<ClaimResult> got = new ArrayList<>();
        Consumer<ClaimResult> w = got::add;
        waiters.await(key, "fp", w);
        waiters.forget(key, "fp", w);
        assertThat(waiters.size()).isZero();
        waiters.wake(key, "fp", done, timer);
        assertThat(got).isEmpty();
    }

    /**
     * A duplicate with another payload waits under the same key but never hears this owner's
     * outcome: it was answered with the stored response of a call it did not send, a 201 where
     * the store answers 422 (found by the simulation, seed 49192: a waiter for a released owner,
     * polling again, took the outcome of the next call on the key, sent with another body).
     */
    @Test
    void aWaiterWithAnotherPayloadIsNotAnsweredFromThisOwnersOutcome() {
        List<ClaimResult> other = new ArrayList<>();
        List<ClaimResult> same = new ArrayList<>();
        waiters.await(key, "fp-other", other::add);
        waiters.await(key, "fp", same::add);
        waiters.settling(key, "fp", done);
        assertThat(waiters.settled(key, "fp-other", false)).isNull();
        waiters.wake(key, "fp", done, timer);
        assertThat(same).containsExactly(done);
        assertThat(other).isEmpty();
        assertThat(waiters.settled(key, "fp-other", true)).isNull();
        assertThat(waiters.settled(key, "fp", true)).isSameAs(done);
    }
}
