package dev.idemproxy.core.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;

class AttemptOutcomeTest {
    @Test
    void statusesAreClassifiedByTheContract() {
        assertThat(AttemptOutcome.answered(201).outcomeClass()).isEqualTo(OutcomeClass.EXECUTED);
        assertThat(AttemptOutcome.answered(404).outcomeClass()).isEqualTo(OutcomeClass.EXECUTED);
        assertThat(AttemptOutcome.answered(429).outcomeClass()).isEqualTo(OutcomeClass.NOT_EXECUTED);
        assertThat(AttemptOutcome.answered(500).outcomeClass()).isEqualTo(OutcomeClass.UNKNOWN);
    }

    @Test
    void failuresAreClassifiedByTheirClass() {
        assertThat(AttemptOutcome.failed(FailureClass.CONNECT_FAILURE).outcomeClass()).isEqualTo(OutcomeClass.NOT_EXECUTED);
        assertThat(AttemptOutcome.failed(FailureClass.READ_TIMEOUT).outcomeClass()).isEqualTo(OutcomeClass.UNKNOWN);
    }

    @Test
    void reasonsAreBoundedMetricTagsSpelledAsRetryOnSpellsThem() {
        assertThat(AttemptOutcome.answered(503).reason()).isEqualTo("503");
        assertThat(AttemptOutcome.failed(FailureClass.RESET_BEFORE_REQUEST).reason()).isEqualTo("reset-before-request");
        Set<String> retryOn = Set.of("connect-failure", "read-timeout", "idle-timeout", "reset", "429", "503");
        for (FailureClass f : FailureClass.values()) {
            AttemptOutcome o = AttemptOutcome.failed(f);
            assertThat(o.reason()).isEqualTo(f.spelling());
            if (f != FailureClass.RESET_BEFORE_REQUEST) {  // not a config word: retryOn covers it by connect-failure and reset
                assertThat(retryOn).as("the config word of %s", f).contains(o.reason());
            }
        }
        assertThat(retryOn).contains(AttemptOutcome.answered(429).reason(), AttemptOutcome.answered(503).reason());
    }

    @Test
    void retryOnMatchesCodesAndSpellings() {
        Set<String> on = Set.of("503", "read-timeout");
        assertThat(AttemptOutcome.answered(503).listedIn(on)).isTrue();
        assertThat(AttemptOutcome.answered(502).listedIn(on)).isFalse();
        assertThat(AttemptOutcome.failed(FailureClass.READ_TIMEOUT).listedIn(on)).isTrue();
        assertThat(AttemptOutcome.failed(FailureClass.IDLE_TIMEOUT).listedIn(on)).isFalse();
        assertThat(AttemptOutcome.failed(FailureClass.RESET_BEFORE_REQUEST).listedIn(on)).isFalse();
        assertThat(AttemptOutcome.failed(FailureClass.RESET_BEFORE_REQUEST).listedIn(Set.of("reset"))).isTrue();
    }

    @Test
    void impossibleOutcomesAreRejected() {
        assertThatThrownBy(() -> AttemptOutcome.answered(42)).hasMessageContaining("(expected: 100..599)");
        assertThatThrownBy(() -> new AttemptOutcome(FailureClass.RESET, 503, null)).hasMessageContaining("(expected:");
        assertThatThrownBy(() -> new FinishedAttempt(0, AttemptOutcome.answered(200), false, false))
                .hasMessageContaining("(expected: >= 1)");
    }

    @Test
    void aJudgedResponseHasTheClassTheDialectGaveItNotItsStatussClass() {
        AttemptOutcome internal = AttemptOutcome.judged(200, OutcomeClass.UNKNOWN, "500", "jsonrpc -32603");
        AttemptOutcome result = AttemptOutcome.judged(200, OutcomeClass.EXECUTED, null, "result");
        AttemptOutcome refused = AttemptOutcome.judged(404, OutcomeClass.NOT_EXECUTED, "404", null);

        assertThat(internal.outcomeClass()).isEqualTo(OutcomeClass.UNKNOWN);
        assertThat(result.outcomeClass()).isEqualTo(OutcomeClass.EXECUTED);
        assertThat(refused.outcomeClass()).isEqualTo(OutcomeClass.NOT_EXECUTED);
        assertThat(AttemptOutcome.answered(404).outcomeClass()).isEqualTo(OutcomeClass.EXECUTED);
        assertThat(internal.isFailure()).isFalse();
        assertThat(internal.status()).isEqualTo(200);
    }

    @Test
    void aJudgedResponseIsListedAndCountedByItsWordAndNeverByItsStatus() {
        AttemptOutcome internal = AttemptOutcome.judged(200, OutcomeClass.UNKNOWN, "500", "jsonrpc -32603");
        AttemptOutcome unworded = AttemptOutcome.judged(200, OutcomeClass.UNKNOWN, null, "too large");

        assertThat(internal.listedIn(Set.of("500"))).isTrue();
        assertThat(internal.listedIn(Set.of("200", "503"))).isFalse();
        assertThat(unworded.listedIn(Set.of("200", "500", "reset"))).isFalse();
        assertThat(internal.reason()).isEqualTo("500");
        assertThat(unworded.reason()).isEqualTo("200");
        assertThat(internal).hasToString("200 (jsonrpc -32603)");
    }

    @Test
    void aFailureCannotBeJudged() {
        assertThatThrownBy(() -> new AttemptOutcome(FailureClass.RESET, 0, null, OutcomeClass.EXECUTED, null, null))
                .hasMessageContaining("no judged class");
    }
}
