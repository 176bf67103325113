package dev.idemproxy.core.call;

import static dev.idemproxy.core.call.CallRig.answer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.store.ClaimContext;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.OwnedClaim;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoredResponse;
import dev.idemproxy.core.testing.LeakDetection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A waiter whose poll took the record from under its owner here ({@link KeptOutcome}): it keeps
 * the owner's outcome in the record and answers with it only once the store took that write;
 * refused (a further call took its claim over meanwhile), it claims again and waits for that call.
 * Driven by hand on the rig; the record's vanishing and the further call are the store's, made
 * directly in it.
 */
@ExtendWith({LeakDetection.class, TransitionCheck.class})
class KeptOutcomeTest {
    CallRig rig = new CallRig();
    final Route route = CallRig.plainRoute();

    @Test
    @Transition("WAITING->CLAIMING")
    @Transition("CLAIMING->CLAIMING")
    @Transition("CLAIMING->REPLAYED")
    void aWaiterThatTookTheRecordAnswersWithItsOwnersOutcomeOnlyOnceItIsKeptThere() {
        RigClient second = rig.newClient();
        ProtectedCall dup = waiterTakingTheRecord("k-1", second);

        rig.answerStore();  // the waiter's claim: it took the record, and its owner here has settled
        assertThat(dup.phase()).as("keeping the owner's outcome").isEqualTo(CallPhase.CLAIMING);
        assertThat(second.writes).as("nothing before the record holds it").isEmpty();

        rig.answerStore();  // the owner's own end: refused, the record is the waiter's
        rig.answerStore();  // the waiter's write of that outcome: taken
        assertThat(dup.phase()).isEqualTo(CallPhase.REPLAYED);
        assertThat(second.writes).containsExactly("answer 201");
        assertThat(second.body).hasToString("{\"ticket\":\"T-1\"}");
        IdempotencyRecord r = record();
        assertThat(r.state()).isEqualTo(IdempotencyRecord.State.COMPLETED);
        assertThat(r.callId()).as("replays name the call that ran").isEqualTo("call-1");
        assertThat(receipt("call-2").status()).isEqualTo("SUCCESS");
    }

    @Test
    @Transition("CLAIMING->WAITING")
    void aWaiterWhoseKeptOutcomeIsRefusedWaitsForTheCallHoldingTheKeyAndReplaysItsOutcome() {
        RigClient second = rig.newClient();
        ProtectedCall dup = waiterTakingTheRecord("k-2", second);
        RecordKey key = rig.lastPlan.record();
        // the store held the waiter's claim answer past its lease: a call elsewhere took the record over
        rig.memory.records().evict(key).toCompletableFuture().join();
        rig.memory.records().claim(key, rig.lastPlan.fingerprint(), "owner-elsewhere", Duration.ofSeconds(30),
                new ClaimContext("call-elsewhere", Duration.ofHours(1))).toCompletableFuture().join();

        rig.answerStore();  // the waiter's claim
        rig.answerStore();  // the owner's end: refused
        rig.answerStore();  // the waiter's write of the owner's outcome: refused too
        assertThat(dup.phase()).as("claiming again").isEqualTo(CallPhase.CLAIMING);
        rig.answerStore();
        assertThat(dup.phase()).isEqualTo(CallPhase.WAITING);
        assertThat(second.writes).as("an outcome no record holds is not answered").isEmpty();

        OwnedClaim elsewhere = new OwnedClaim("owner-elsewhere", "call-elsewhere", rig.lastPlan.fingerprint(), rig.clock.instant(),
                Duration.ofHours(1));
        rig.memory.records().complete(key, elsewhere, new StoredResponse(201, List.of(), "{\"ticket\":\"T-E\"}".getBytes()), 1,
                Duration.ofHours(1)).toCompletableFuture().join();
        rig.advance(Duration.ofMillis(100));
        rig.answerStore();
        assertThat(dup.phase()).isEqualTo(CallPhase.REPLAYED);
        assertThat(second.writes).containsExactly("answer 201");
        assertThat(second.body).as("what every later duplicate gets too").hasToString("{\"ticket\":\"T-E\"}");
        assertThat(receipt("call-2").status()).as("its claim wrote it PROCESSING; its replay ends it").isEqualTo("SUCCESS");
    }

    /** A store that fails the write: 503, not an outcome, while the write is tried again and lands. */
    @Test
    @Transition("CLAIMING->REFUSED")
    void aWaiterWhoseKeptOutcomeTheStoreFailsAnswers503AndTheWriteIsTriedAgain() {
        RigClient second = rig.newClient();
        ProtectedCall dup = waiterTakingTheRecord("k-3", second);
        rig.records.failNext(1);
        rig.answerStore();  // the waiter's claim; its write of the owner's outcome fails at once
        assertThat(dup.phase()).isEqualTo(CallPhase.REFUSED);
        assertThat(second.writes).containsExactly("answer 503");
        assertThat(receipt("call-2").status()).isEqualTo("FAILED");

        rig.answerStore();  // the owner's end: refused
        rig.advance(Duration.ofMillis(500));  // the write's second try
        rig.answerStore();
        IdempotencyRecord r = record();
        assertThat(r.state()).as("the owner's outcome kept for every later duplicate").isEqualTo(IdempotencyRecord.State.COMPLETED);
        assertThat(r.callId()).isEqualTo("call-1");
        assertThat(second.writes).as("answered once").containsExactly("answer 503");
    }

    /**
     * The owner (call-1) forwards; a duplicate (call-2, answering {@code to}) waits; the record
     * vanishes; the duplicate's poll claims it afresh while the owner settles. Every store answer
     * from then on is held: the duplicate's claim, the owner's end.
     */
    private ProtectedCall waiterTakingTheRecord(String key, RigClient to) {
        ProtectedCall first = rig.recorded(route, key);
        first.start();
        RigUpstreams.Conn up = rig.upstreams.connect();
        ProtectedCall dup = rig.recorded(route, key, Map.of(), CallRig.BODY, to);
        dup.start();
        assertThat(dup.phase()).isEqualTo(CallPhase.WAITING);
        rig.memory.records().evict(rig.lastPlan.record()).toCompletableFuture().join();
        rig.records.hold(true);
        rig.advance(Duration.ofMillis(100));  // the poll: its claim takes the vanished record
        assertThat(dup.phase()).isEqualTo(CallPhase.CLAIMING);
        up.answer(answer(201, "{\"ticket\":\"T-1\"}"));
        rig.run();
        assertThat(first.phase()).isEqualTo(CallPhase.RECORDING);
        return dup;
    }

    private IdempotencyRecord record() {
        return rig.memory.records().get(rig.lastPlan.record()).toCompletableFuture().join().orElseThrow();
    }

    private Receipt receipt(String callId) {
        return rig.memory.receipts().receipt(callId).toCompletableFuture().join().orElseThrow();
    }
}
