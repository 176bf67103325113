package dev.idemproxy.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DrainTest {
    @Test
    void aDrainThatFinishedEverythingSaysSo() {
        Drain d = new Drain(3, 1, 0, 1530);
        assertThat(d.complete()).isTrue();
        assertThat(d.finished()).isEqualTo(4);
        assertThat(d.endLine()).isEqualTo("drain ended: finished=4 cut=0 ms=1530");
        assertThat(Drain.startLine(3, Duration.ofSeconds(20))).isEqualTo("drain started: inFlight=3 graceMs=20000");
    }

    @Test
    void callsStillInFlightAtTheGraceAreCut() {
        Drain d = new Drain(2, 0, 1, 20_001);
        assertThat(d.complete()).isFalse();
        assertThat(d.endLine()).isEqualTo("drain ended: finished=1 cut=1 ms=20001");
    }
}
