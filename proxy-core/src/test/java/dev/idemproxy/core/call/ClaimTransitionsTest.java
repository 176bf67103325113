package dev.idemproxy.core.call;

import static dev.idemproxy.core.call.CallRig.answer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.StorePolicy;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.retry.TaskPolicy;
import dev.idemproxy.core.testing.LeakDetection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The protected call's own moves ({@link CallPhase}), each driven by hand on the rig: the claim,
 * the wait for a call in flight, the forwarding, the record's end and the answer's.
 */
@ExtendWith({LeakDetection.class, TransitionCheck.class})
class ClaimTransitionsTest {
    CallRig rig = new CallRig();
    final Route route = CallRig.plainRoute();

    @Test
    @Transition("PLANNED->CLAIMING")
    @Transition("CLAIMING->FORWARDING")
    @Transition("FORWARDING->RECORDING")
    @Transition("RECORDING->ANSWERED")
    void aRecordedCallClaimsForwardsAndLetsItsAnswersEndGoOnlyOnceItsRecordIsWritten() {
        rig.records.hold(true);
        ProtectedCall call = rig.recorded(route, "k-1");
        call.start();
        assertThat(call.phase()).isEqualTo(CallPhase.CLAIMING);
        assertThat(rig.upstreams.asked()).as("nothing forwarded before the claim answers").isZero();

        rig.answerStore();
        assertThat(call.phase()).isEqualTo(CallPhase.FORWARDING);
        RigUpstreams.Conn up = rig.upstreams.connect();
        assertThat(up.request()).startsWith("POST /tickets HTTP/1.1").contains("Idempotency-Key: k-1", "X-Attempt: 1");

        up.answer(answer(201, "{\"ticket\":\"T-1\"}"));
        assertThat(call.phase()).isEqualTo(CallPhase.RECORDING);
        assertThat(rig.client.writes).as("the head went; the end waits for the record").containsExactly("head 201");

        rig.answerStore();
        assertThat(call.phase()).isEqualTo(CallPhase.ANSWERED);
        assertThat(rig.client.writes).containsExactly("head 201", "last");
        assertThat(rig.client.body).hasToString("{\"ticket\":\"T-1\"}");
        assertThat(rig.client.ended).isEqualTo(1);
        assertThat(stored().state()).isEqualTo(IdempotencyRecord.State.COMPLETED);
    }

    @Test
    @Transition("PLANNED->FORWARDING")
    void aCallWithoutARecordForwardsAtOnce() {
        ProtectedCall call = rig.unrecorded(route);
        call.start();
        assertThat(call.phase()).isEqualTo(CallPhase.FORWARDING);
        assertThat(rig.client.forwarded).isTrue();
        rig.upstreams.connect().answer(answer(200, "{}"));
        assertThat(call.phase()).as("no record to wait for").isEqualTo(CallPhase.ANSWERED);
        assertThat(rig.client.writes).containsExactly("head 200", "last");
    }

    @Test
    @Transition("CLAIMING->REPLAYED")
    void aDuplicateOfACompletedCallIsReplayedFromTheStore() {
        completeOne("k-2", 201);
        ProtectedCall dup = rig.recorded(route, "k-2");
        dup.start();
        assertThat(dup.phase()).isEqualTo(CallPhase.REPLAYED);
        assertThat(rig.client.writes).endsWith("answer 201");
        assertThat(rig.client.lastWhole.headers().get("Idempotent-Replayed")).isEqualTo("true");
        assertThat(rig.upstreams.asked()).isZero();
    }

    @Test
    @Transition("CLAIMING->REFUSED")
    void aKeyReusedWithAnotherPayloadIsRefused() {
        completeOne("k-3", 201);
        ProtectedCall other = rig.recorded(route, "k-3", Map.of(), "{\"title\":\"another\"}", rig.client);
        other.start();
        assertThat(other.phase()).isEqualTo(CallPhase.REFUSED);
        assertThat(rig.client.writes).endsWith("answer 422");
    }

    @Test
    @Transition("CLAIMING->REFUSED")
    void aStoreThatDoesNotAnswerRefusesWith503AndForwardsNothing() {
        rig.records.failNext(1);
        ProtectedCall call = rig.recorded(route, "k-4");
        call.start();
        assertThat(call.phase()).isEqualTo(CallPhase.REFUSED);
        assertThat(rig.client.writes).containsExactly("answer 503");
        assertThat(rig.upstreams.asked()).isZero();
    }

    @Test
    @Transition("CLAIMING->FORWARDING")
    void underPassthroughAStoreThatDoesNotAnswerForwardsTheCallUnprotected() {
        rig.close();
        rig = new CallRig(StorePolicy.OnUnavailable.PASSTHROUGH, TaskPolicy.DEFAULT);
        rig.records.failNext(1);
        ProtectedCall call = rig.recorded(route, "k-5");
        call.start();
        assertThat(call.phase()).isEqualTo(CallPhase.FORWARDING);
        rig.upstreams.connect().answer(answer(201, "{}"));
        assertThat(call.phase()).as("no record: answered at once").isEqualTo(CallPhase.ANSWERED);
        assertThat(rig.memory.records().get(rig.lastPlan.record()).toCompletableFuture().join()).isEmpty();
    }

    @Test
    @Transition("CLAIMING->WAITING")
    @Transition("WAITING->REPLAYED")
    void aDuplicateOfACallInFlightWaitsAndIsWokenWithItsOwnersAnswer() {
        ProtectedCall first = rig.recorded(route, "k-6");
        first.start();
        RigUpstreams.Conn up = rig.upstreams.connect();
        RigClient second = rig.newClient();
        ProtectedCall dup = rig.recorded(route, "k-6", Map.of(), CallRig.BODY, second);
        dup.start();
        assertThat(dup.phase()).isEqualTo(CallPhase.WAITING);

        up.answer(answer(201, "{\"ticket\":\"T-6\"}"));
        rig.run();
        assertThat(dup.phase()).isEqualTo(CallPhase.REPLAYED);
        assertThat(second.writes).containsExactly("answer 201");
        assertThat(second.body).hasToString("{\"ticket\":\"T-6\"}");
    }

    @Test
    @Transition("WAITING->REFUSED")
    void aWaiterWhoseOwnerKeptNoAnswerIsRefused() {
        ProtectedCall first = rig.recorded(route, "k-7");
        first.start();
        RigUpstreams.Conn up = rig.upstreams.connect();
        RigClient second = rig.newClient();
        ProtectedCall dup = rig.recorded(route, "k-7", Map.of(), CallRig.BODY, second);
        dup.start();
        up.answer(answer(201, "x".repeat(70_000)));  // past the route's 64 KiB maxResponseBody
        rig.run();
        assertThat(dup.phase()).isEqualTo(CallPhase.REFUSED);
        assertThat(second.writes).containsExactly("answer 409");
    }

    @Test
    @Transition("WAITING->CLAIMING")
    @Transition("CLAIMING->WAITING")
    @Transition("CLAIMING->FORWARDING")
    void aWaiterForAnOwnerElsewherePollsTheStoreAndClaimsOnceTheKeyIsFree() {
        ProtectedCall probe = rig.recorded(route, "k-8");
        String owner = "owner-in-another-process";
        rig.memory.records().claim(rig.lastPlan.record(), rig.lastPlan.fingerprint(), owner, Duration.ofSeconds(30),
                new ClaimContext("call-elsewhere", Duration.ofHours(1))).toCompletableFuture().join();
        probe.start();
        assertThat(probe.phase()).isEqualTo(CallPhase.WAITING);
        rig.advance(Duration.ofMillis(100));
        assertThat(rig.takeMoves()).contains("WAITING->CLAIMING", "CLAIMING->WAITING");

        rig.memory.records().release(rig.lastPlan.record(), owner).toCompletableFuture().join();
        rig.advance(Duration.ofMillis(100));
        assertThat(probe.phase()).isEqualTo(CallPhase.FORWARDING);
    }

    @Test
    @Transition("CLAIMING->CLAIMING")
    void aRecordWrittenUnderTheLegacyFingerprintIsAskedForOnceAndReplayed() {
        ProtectedCall call = rig.recorded(route, "k-9");
        CallPlan.Protect plan = rig.lastPlan;
        String legacy = plan.legacyFingerprint().get();
        OwnedClaim old = new OwnedClaim("old-owner", "call-old", legacy, rig.clock.instant(), Duration.ofHours(1));
        rig.memory.records().claim(plan.record(), legacy, "old-owner", Duration.ofSeconds(30),
                new ClaimContext("call-old", Duration.ofHours(1))).toCompletableFuture().join();
        rig.memory.records().complete(plan.record(), old, new StoredResponse(200, List.of(), "old".getBytes()), 1,
                Duration.ofHours(1)).toCompletableFuture().join();
        call.start();
        assertThat(call.phase()).isEqualTo(CallPhase.REPLAYED);
        assertThat(rig.client.body).hasToString("old");
    }

    @Test
    @Transition("CLAIMING->ABANDONED")
    void aClientThatLeavesWhileItsClaimIsOnTheWayAbandonsTheCallAndTheClaimIsReleased() {
        rig.records.hold(true);
        ProtectedCall call = rig.recorded(route, "k-10");
        call.start();
        call.clientGone();
        assertThat(call.phase()).isEqualTo(CallPhase.ABANDONED);
        rig.answerStore();  // the claim: it succeeded
        rig.answerStore();  // its release
        assertThat(rig.memory.records().get(rig.lastPlan.record()).toCompletableFuture().join()).isEmpty();
        assertThat(rig.upstreams.asked()).isZero();
        assertThat(rig.client.writes).isEmpty();
    }

    @Test
    @Transition("WAITING->ABANDONED")
    void aWaiterWhoseClientLeavesAbandonsTheCall() {
        ProtectedCall first = rig.recorded(route, "k-11");
        first.start();
        RigClient second = rig.newClient();
        ProtectedCall dup = rig.recorded(route, "k-11", Map.of(), CallRig.BODY, second);
        dup.start();
        dup.clientGone();
        assertThat(dup.phase()).isEqualTo(CallPhase.ABANDONED);
        rig.upstreams.connect().answer(answer(201, "{}"));
        rig.run();
        assertThat(second.writes).as("a gone client is answered nothing").isEmpty();
        assertThat(first.phase()).isEqualTo(CallPhase.ANSWERED);
    }

    @Test
    @Transition("ABANDONED->FORWARDING")
    void aTakeoverWhoseClientLeftGoesOnAndStoresItsAmbiguousOutcome() {
        ProtectedCall call = rig.recorded(route, "k-12");
        rig.memory.records().claim(rig.lastPlan.record(), rig.lastPlan.fingerprint(), "owner-that-died", Duration.ofSeconds(1),
                new ClaimContext("call-before", Duration.ofHours(1))).toCompletableFuture().join();
        rig.advance(Duration.ofSeconds(2));
        rig.records.hold(true);
        call.start();
        call.clientGone();
        assertThat(call.phase()).isEqualTo(CallPhase.ABANDONED);
        rig.answerStore();  // the takeover: only this call knows call-before may have run
        assertThat(call.phase()).isEqualTo(CallPhase.RECORDING);
        rig.answerStore();
        assertThat(call.phase()).isEqualTo(CallPhase.ANSWERED);
        assertThat(stored().state()).isEqualTo(IdempotencyRecord.State.COMPLETED);
        assertThat(stored().status()).as("504 ambiguous-outcome for its duplicates, never run again").isEqualTo(504);
        assertThat(rig.upstreams.asked()).isZero();
    }

    /** A call with {@code key} that ran and answered {@code status}. */
    private void completeOne(String key, int status) {
        RigClient c = rig.newClient();
        ProtectedCall call = rig.recorded(route, key, Map.of(), CallRig.BODY, c);
        call.start();
        rig.upstreams.connect().answer(answer(status, "{\"ticket\":\"T\"}"));
        assertThat(call.phase()).isEqualTo(CallPhase.ANSWERED);
    }

    private IdempotencyRecord stored() {
        Optional<IdempotencyRecord> r = rig.memory.records().get(rig.lastPlan.record()).toCompletableFuture().join();
        return r.orElseThrow();
    }
}
