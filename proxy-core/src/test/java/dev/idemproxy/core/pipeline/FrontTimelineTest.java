package dev.idemproxy.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.pipeline.FrontTimeline.Expiry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The front's timing rules, on a clock moved by hand (milliseconds, for reading ease). */
class FrontTimelineTest {
    static final LimitsPolicy LIMITS = new LimitsPolicy(10, Duration.ofMillis(100), Duration.ofMillis(300),
            Duration.ofMillis(1000), LimitsPolicy.UnderscoreHeaders.DROP);

    static long ms(long millis) {
        return Duration.ofMillis(millis).toNanos();
    }

    @Test
    void aNewConnectionMustSendItsHeadWithinHeadTimeoutOfTheAccept() {
        FrontTimeline t = new FrontTimeline(LIMITS, ms(0));
        t.bytesArrived(ms(60));  // the first byte does not restart a connection's first head
        assertThat(t.check(ms(99))).isEqualTo(Expiry.NONE);
        assertThat(t.check(ms(100))).isEqualTo(Expiry.HEAD);
        assertThat(t.canAnswer()).isTrue();
        assertThat(t.since()).isEqualTo(ms(0));
    }

    @Test
    void aNewConnectionThatNeverSentAByteTimesOutWithoutAnAnswer() {
        FrontTimeline t = new FrontTimeline(LIMITS, ms(0));
        assertThat(t.check(ms(100))).isEqualTo(Expiry.HEAD);
        assertThat(t.canAnswer()).as("no request to answer").isFalse();
    }

    @Test
    void theBodyIsTimedFromTheEndOfTheHeadAsAWhole() {
        FrontTimeline t = new FrontTimeline(LIMITS, ms(0));
        t.bytesArrived(ms(0));
        t.headRead(ms(90), false);
        assertThat(t.check(ms(150))).as("the head timeout no longer applies").isEqualTo(Expiry.NONE);
        assertThat(t.check(ms(389))).isEqualTo(Expiry.NONE);
        assertThat(t.check(ms(390))).isEqualTo(Expiry.BODY);
        assertThat(t.canAnswer()).isTrue();
        assertThat(t.since()).isEqualTo(ms(90));
    }

    @Test
    void aCallInFlightIsNeverIdleAndIdlenessStartsWhenItsResponseEnds() {
        FrontTimeline t = new FrontTimeline(LIMITS, ms(0));
        t.bytesArrived(ms(0));
        t.headRead(ms(10), true);
        assertThat(t.check(ms(50_000))).as("the upstream works for 50 s").isEqualTo(Expiry.NONE);
        t.responseStarted();
        t.responseEnded(ms(50_000));
        assertThat(t.check(ms(50_999))).isEqualTo(Expiry.NONE);
        assertThat(t.check(ms(51_000))).isEqualTo(Expiry.IDLE);
    }

    @Test
    void theNextRequestsFirstByteEndsIdlenessAndStartsItsHeadClock() {
        FrontTimeline t = new FrontTimeline(LIMITS, ms(0));
        t.bytesArrived(ms(0));
        t.headRead(ms(0), true);
        t.responseEnded(ms(10));
        t.bytesArrived(ms(900));
        assertThat(t.check(ms(1_500))).as("past the idle time, but a head is under way").isEqualTo(Expiry.HEAD);
        assertThat(t.since()).isEqualTo(ms(900));
        assertThat(t.canAnswer()).isTrue();
    }

    @Test
    void aBodyStillArrivingAfterItsAnswerStillHasItsBudgetButNo408() {
        FrontTimeline t = new FrontTimeline(LIMITS, ms(0));
        t.bytesArrived(ms(0));
        t.headRead(ms(0), false);
        t.responseStarted();  // the upstream (or a 404) answered before the body ended
        t.responseEnded(ms(20));
        assertThat(t.check(ms(299))).isEqualTo(Expiry.NONE);
        assertThat(t.check(ms(300))).isEqualTo(Expiry.BODY);
        assertThat(t.canAnswer()).isFalse();
    }

    @Test
    void aResponseStartedButNotEndedAlsoForbidsThe408() {
        FrontTimeline t = new FrontTimeline(LIMITS, ms(0));
        t.bytesArrived(ms(0));
        t.headRead(ms(0), false);
        t.responseStarted();
        assertThat(t.check(ms(300))).isEqualTo(Expiry.BODY);
        assertThat(t.canAnswer()).isFalse();
    }

    @Test
    void anInterimResponseIsNotCountedAsAnAnswer() {
        FrontTimeline t = new FrontTimeline(LIMITS, ms(0));
        t.bytesArrived(ms(0));
        t.headRead(ms(0), false);  // 100 Continue is never passed to responseStarted: the handler filters 1xx
        assertThat(t.check(ms(300))).isEqualTo(Expiry.BODY);
        assertThat(t.canAnswer()).isTrue();
    }

    @Test
    void aBodyEndingAfterItsAnswerStartsTheIdleClock() {
        FrontTimeline t = new FrontTimeline(LIMITS, ms(0));
        t.bytesArrived(ms(0));
        t.headRead(ms(0), false);
        t.responseStarted();
        t.responseEnded(ms(20));
        t.bodyRead(ms(200));
        assertThat(t.check(ms(1_199))).isEqualTo(Expiry.NONE);
        assertThat(t.check(ms(1_200))).isEqualTo(Expiry.IDLE);
    }

    @Test
    void aPipelinedRequestIsTimedOnlyOnceTheRequestsBeforeItAreAnswered() {
        FrontTimeline t = new FrontTimeline(LIMITS, ms(0));
        t.bytesArrived(ms(0));
        t.headRead(ms(0), true);       // request 1, forwarded
        t.bytesArrived(ms(5));         // request 2 pipelined behind it
        t.headRead(ms(6), false);      // its head; its body waits while request 1 is served
        assertThat(t.check(ms(10_000))).isEqualTo(Expiry.NONE);
        t.responseStarted();           // request 1's answer
        t.responseEnded(ms(10_000));
        assertThat(t.check(ms(10_299))).as("request 2's body is timed from here").isEqualTo(Expiry.NONE);
        assertThat(t.check(ms(10_300))).isEqualTo(Expiry.BODY);
        assertThat(t.canAnswer()).isTrue();
    }

    @Test
    void aPipelinedHeadIsTimedFromTheEndOfTheExchangesBeforeIt() {
        FrontTimeline t = new FrontTimeline(LIMITS, ms(0));
        t.bytesArrived(ms(0));
        t.headRead(ms(0), true);
        t.bytesArrived(ms(5));
        assertThat(t.check(ms(5_000))).isEqualTo(Expiry.NONE);
        t.responseEnded(ms(5_000));
        assertThat(t.check(ms(5_099))).isEqualTo(Expiry.NONE);
        assertThat(t.check(ms(5_100))).isEqualTo(Expiry.HEAD);
    }

    @Test
    void checksComeNoLaterThanTheShortestTimeoutAndExactlyAtADeadline() {
        FrontTimeline t = new FrontTimeline(LIMITS, ms(0));
        assertThat(t.nextCheckIn(ms(0))).isEqualTo(ms(100));
        assertThat(t.nextCheckIn(ms(70))).isEqualTo(ms(30));
        t.bytesArrived(ms(0));
        t.headRead(ms(50), true);
        assertThat(t.nextCheckIn(ms(60))).as("nothing timed: the step").isEqualTo(ms(100));
        t.responseEnded(ms(60));
        assertThat(t.nextCheckIn(ms(1_000))).isEqualTo(ms(60));
        assertThat(t.nextCheckIn(ms(5_000))).as("overdue: at once").isEqualTo(1);
    }

    @Test
    void aCheckPlannedBeforeAPhaseBeginsIsNeverLateForIt() {
        // Whatever happens between two checks, the one planned comes at or before the new deadline.
        FrontTimeline t = new FrontTimeline(LIMITS, ms(0));
        t.bytesArrived(ms(0));
        t.headRead(ms(1), true);
        t.responseEnded(ms(2));  // idle, 1000 ms
        long planned = ms(3) + t.nextCheckIn(ms(3));
        t.bytesArrived(ms(4));   // a head starts: due at 104
        assertThat(planned).isLessThanOrEqualTo(ms(104));
    }

    @Test
    void aResponseEndWithNothingUnansweredChangesNothing() {
        FrontTimeline t = new FrontTimeline(LIMITS, ms(0));
        t.responseEnded(ms(50));
        assertThat(t.unanswered()).isZero();
        assertThat(t.check(ms(100))).isEqualTo(Expiry.HEAD);
    }
}
