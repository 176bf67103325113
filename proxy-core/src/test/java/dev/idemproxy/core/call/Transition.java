package dev.idemproxy.core.call;

import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A move of the protected call's state machine that a test drives, written {@code FROM->TO}
 * ({@link CallPhase} or {@link ForwardingPhase}): the test fails unless the call made it, and
 * {@link CallTransitionsTest} fails unless every move of both machines is driven by a test.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@Repeatable(Transition.List.class)
public @interface Transition {
    String value();

    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    public @interface List {
        Transition[] value();
    }
}
