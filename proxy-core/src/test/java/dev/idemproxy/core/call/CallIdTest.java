package dev.idemproxy.core.call;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.testing.TestClock;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CallIdTest {

    @Test
    void thirtyTwoLowerCaseHexDigitsLedByTheMillis() {
        String id = CallId.of(0x0123456789abL, new Random(1));
        assertThat(id).matches("[0-9a-f]{32}").startsWith("0123456789ab");
    }

    @Test
    void laterIdsSortLater() {
        Random r = new Random(7);
        String earlier = CallId.of(1_764_400_000_000L, r);
        String later = CallId.of(1_764_400_000_001L, r);
        assertThat(later).isGreaterThan(earlier);
    }

    @Test
    void idsOfTheSameMillisecondDiffer() {
        Set<String> ids = new HashSet<>();
        TestClock clock = new TestClock();  // one millisecond for all of them
        Random random = new Random(11);
        for (int i = 0; i < 100_000; i++) {
            ids.add(CallId.next(clock, random));
        }
        assertThat(ids).hasSize(100_000);
    }

    @Test
    void eachExecutionOfACallHasItsOwnOwnerTokenLedByTheCallId() {
        Random random = new Random(5);
        String callId = CallId.next(new TestClock(), random);
        String first = CallId.owner(callId, random);
        String second = CallId.owner(callId, random);
        assertThat(first).matches(callId + "\\.[0-9a-f]{16}");
        assertThat(second).startsWith(callId + ".").isNotEqualTo(first);
        assertThat(CallId.owner(callId, new Random(3))).isEqualTo(CallId.owner(callId, new Random(3)));
    }
}
