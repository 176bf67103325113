package dev.idemproxy.core.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TaskBudgetTest {
    private final TestClock clock = TestClock.at("2026-03-01T10:15:00Z");
    private final TaskBudget budget = new TaskBudget(new TaskPolicy("X-Task-Id", 3, Duration.ofHours(1)), clock);

    @Test
    void theWindowIsTheFixedHourContainingNow() {
        TaskWindow w = budget.currentWindow();
        assertThat(w.start()).isEqualTo(Instant.parse("2026-03-01T10:00:00Z"));
        assertThat(w.end()).isEqualTo(Instant.parse("2026-03-01T11:00:00Z"));
        assertThat(w.index()).isEqualTo(Instant.parse("2026-03-01T10:00:00Z").toEpochMilli() / 3_600_000L);
    }

    @Test
    void theWindowKeyChangesWhenTheWindowEnds() {
        String before = budget.currentWindow().key("task-1");
        clock.advance(Duration.ofMinutes(44));
        assertThat(budget.currentWindow().key("task-1")).isEqualTo(before);
        clock.advance(Duration.ofMinutes(1));
        assertThat(budget.currentWindow().key("task-1")).isNotEqualTo(before).startsWith("task-1@");
    }

    @Test
    void retriesAreAllowedWhileFewerThanMaxWereUsed() {
        assertThat(budget.decide(0)).satisfies(d -> {
            assertThat(d.allowed()).isTrue();
            assertThat(d.remaining()).isEqualTo(3);
        });
        assertThat(budget.decide(2).allowed()).isTrue();
        assertThat(budget.decide(2).remaining()).isEqualTo(1);
        assertThat(budget.decide(3).allowed()).isFalse();
        assertThat(budget.decide(3).remaining()).isZero();
        assertThat(budget.decide(99).remaining()).isZero();
    }

    @Test
    void chargingUsesOneToken() {
        TaskBudgetDecision d = budget.decide(1).charged();
        assertThat(d.used()).isEqualTo(2);
        assertThat(d.remaining()).isEqualTo(1);
        assertThat(d.charged().allowed()).isFalse();
    }

    @Test
    void zeroMaxRetriesAllowsNone() {
        TaskBudget none = new TaskBudget(new TaskPolicy("X-Task-Id", 0, Duration.ofHours(1)), clock);
        assertThat(none.decide(0).allowed()).isFalse();
    }
}
