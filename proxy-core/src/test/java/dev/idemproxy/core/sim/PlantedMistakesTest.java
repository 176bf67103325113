package dev.idemproxy.core.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.util.Mistakes;
import dev.idemproxy.core.util.Mistakes.Mistake;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A simulator that finds nothing proves nothing: each mistake planted through {@link Mistakes}
 * (one line each in the engine, inert in production) is reported by the simulation within a
 * stated number of seeds, counted from seed 1. The bounds are about four times what each took
 * when written (docs/testing.md lists both).
 */
class PlantedMistakesTest {
    /** Found at seed 14, 59, 5 and 114 when written; the bound leaves room for the schedules to change. */
    static final int BOUND = 500;
    /** The invariant each mistake breaks first (the start of its violation's text). */
    static final Map<Mistake, String> BREAKS = Map.of(
            Mistake.RELEASE_UNKNOWN_OUTCOME, "executed twice",
            Mistake.SKIP_FENCING_ON_COMPLETE, "fencing",
            Mistake.ANSWER_TWICE, "an answer with no request waiting",  // the refusal's second copy
            Mistake.EMBEDDED_ANSWER_BEFORE_WRITE, "the embedded store reopened after a crash");

    @ParameterizedTest
    @EnumSource(Mistake.class)
    void theSimulationFindsThePlantedMistake(Mistake m) {
        Simulation.Summary s = new Simulation(Mistakes.of(m)).run(1, BOUND);
        System.out.println(m + ": " + (s.failed() == null ? "not found in " + s.schedules() + " seeds"
                : "found at seed " + s.failed().seed() + " (" + s.schedules() + " schedules): " + s.failed().violations().get(0)));
        assertThat(s.failed()).as("%s not found in %d seeds", m, BOUND).isNotNull();
        assertThat(s.failed().violations()).anyMatch(v -> v.startsWith(BREAKS.get(m)));
    }
}
