package dev.idemproxy.core.call;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Every move of the protected call's two state machines is driven by a test that names it. */
class CallTransitionsTest {
    @Test
    void everyMoveOfTheCallAndOfItsAttemptsIsDrivenByATest() {
        Set<String> moves = new TreeSet<>();
        for (CallPhase p : CallPhase.values()) {
            p.next().forEach(n -> moves.add(p + "->" + n));
        }
        for (ForwardingPhase p : ForwardingPhase.values()) {
            p.next().forEach(n -> moves.add(p + "->" + n));
        }
        Set<String> driven = new TreeSet<>();
        for (Class<?> c : new Class<?>[] {ClaimTransitionsTest.class, ForwardingTransitionsTest.class}) {
            for (Method m : c.getDeclaredMethods()) {
                for (Transition t : m.getAnnotationsByType(Transition.class)) {
                    driven.add(t.value());
                }
            }
        }
        assertThat(driven).as("moves the tests name that the machines do not have").isSubsetOf(moves);
        assertThat(moves).as("moves no test drives").isSubsetOf(driven);
    }
}
