package dev.idemproxy.app.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FaultPlanTest {

    @Test
    void theSameSeedGivesTheSameFaultForEveryIntentAndArrival() {
        FaultPlan a = new FaultPlan(42);
        FaultPlan b = new FaultPlan(42);
        for (int intent = 1; intent <= 200; intent++) {
            for (int arrival = 0; arrival < 5; arrival++) {
                assertThat(a.faultFor(intent, arrival)).isEqualTo(b.faultFor(intent, arrival));
            }
        }
    }

    @Test
    void anotherSeedGivesAnotherPlan() {
        FaultPlan a = new FaultPlan(42);
        FaultPlan b = new FaultPlan(43);
        int differ = 0;
        for (int intent = 1; intent <= 200; intent++) {
            if (a.faultFor(intent, 0) != b.faultFor(intent, 0)) {
                differ++;
            }
        }
        assertThat(differ).isGreaterThan(50);
    }

    @Test
    void faultsFollowTheDocumentedWeights() {
        FaultPlan plan = new FaultPlan(7);
        Map<Fault, Integer> seen = new EnumMap<>(Fault.class);
        int n = 0;
        for (int intent = 0; intent < 5_000; intent++) {
            for (int arrival = 0; arrival < 4; arrival++) {
                seen.merge(plan.faultFor(intent, arrival), 1, Integer::sum);
                n++;
            }
        }
        assertThat(share(seen, Fault.ANSWER, n)).isBetween(0.47, 0.53);
        assertThat(share(seen, Fault.ANSWER_LATE, n)).isBetween(0.15, 0.19);
        assertThat(share(seen, Fault.COMMIT_AND_DROP, n)).isBetween(0.08, 0.12);
        assertThat(share(seen, Fault.UNAVAILABLE, n)).isBetween(0.04, 0.06);
        assertThat(share(seen, Fault.THROTTLED, n)).isBetween(0.10, 0.14);
        assertThat(share(seen, Fault.THROTTLED_LONG, n)).isBetween(0.05, 0.07);
    }

    @Test
    void theDefaultSeedMeetsEveryFaultThatCommitsAmongTheFirstFortyIntents() {
        FaultPlan plan = new FaultPlan(42);
        Map<Fault, Integer> first = new EnumMap<>(Fault.class);
        for (int intent = 1; intent <= 40; intent++) {
            first.merge(plan.faultFor(intent, 0), 1, Integer::sum);
        }
        assertThat(first).containsKeys(Fault.ANSWER_LATE, Fault.COMMIT_AND_DROP);
    }

    @Test
    void onlyAnswersCommit() {
        assertThat(Fault.ANSWER.commits()).isTrue();
        assertThat(Fault.ANSWER_LATE.commits()).isTrue();
        assertThat(Fault.COMMIT_AND_DROP.commits()).isTrue();
        assertThat(Fault.UNAVAILABLE.commits()).isFalse();
        assertThat(Fault.THROTTLED.commits()).isFalse();
        assertThat(Fault.THROTTLED_LONG.commits()).isFalse();
    }

    @Test
    void negativeIntentsOrArrivalsAreRefused() {
        assertThatThrownBy(() -> new FaultPlan(1).faultFor(-1, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected: >= 0");
    }

    private static double share(Map<Fault, Integer> seen, Fault f, int n) {
        return seen.getOrDefault(f, 0) / (double) n;
    }
}
