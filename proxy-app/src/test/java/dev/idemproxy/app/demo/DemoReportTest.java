package dev.idemproxy.app.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DemoReportTest {
    static final DemoSettings SETTINGS = new DemoSettings(42, 40, Duration.ofMillis(300), 3, 8);

    static RunResult via(Map<Integer, List<String>> duplicated, int duplicates) {
        return new RunResult(true, 40, 71, 39 + duplicates, 39, duplicates, 33, 22, 10, 6,
                Map.of(Fault.ANSWER, 31, Fault.UNAVAILABLE, 1), Map.of("201", 27, "201 (replayed)", 6), duplicated);
    }

    static final RunResult DIRECT = new RunResult(false, 40, 68, 51, 40, 11, 38, 0, 0, 0,
            Map.of(Fault.ANSWER, 38, Fault.COMMIT_AND_DROP, 8), Map.of("201", 38, "timeout", 5),
            Map.of(3, List.of("#1: commits, answers late", "#2: answers 201")));

    @Test
    void theTablePutsBothRunsSideBySide() {
        String out = DemoReport.format(new Demo.Outcome(SETTINGS, via(Map.of(), 0), DIRECT));

        assertThat(out).startsWith("idemproxy demo (seed 42, 40 intents, agent timeout 300ms, 3 retries, 8 at a time)");
        assertThat(out.lines()).contains(
                "                                 via idemproxy   direct",
                "requests sent by the agent                  71       68",
                "tickets created (executions)                39       51",
                "duplicate tickets                            0       11",
                "intents never executed                       1        0",
                "replays to the agent                        22        -",
                "DLQ entries                                  6        -");
        assertThat(out).contains("Through idemproxy, none:").doesNotContain("BUG");
    }

    @Test
    void aDuplicateThroughTheProxyIsReportedAsABugWithWhatItsRequestsMet() {
        String out = DemoReport.format(new Demo.Outcome(SETTINGS,
                via(Map.of(9, List.of("#1 X-Attempt=1: commits, drops the connection", "#2 X-Attempt=1: answers 201")), 1), DIRECT));

        assertThat(out).contains("BUG: idemproxy let 1 intent(s) execute more than once")
                .contains("  intent-9: #1 X-Attempt=1: commits, drops the connection; #2 X-Attempt=1: answers 201");
    }

    @Test
    void wrapBreaksAtWordsWithinTheWidth() {
        assertThat(DemoReport.wrap("aaa bbb ccc ddd", 7).lines()).containsExactly("aaa bbb", "ccc ddd");
    }
}
