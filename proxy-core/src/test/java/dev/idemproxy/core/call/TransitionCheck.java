package dev.idemproxy.core.call;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * After each test: every {@link Transition} the test names was made by a call of its
 * {@link CallRig} (the test instance's {@code rig} field), then the rig is closed.
 */
final class TransitionCheck implements AfterEachCallback {
    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        Object test = context.getRequiredTestInstance();
        Field f = test.getClass().getDeclaredField("rig");
        f.setAccessible(true);
        CallRig rig = (CallRig) f.get(test);
        try {
            if (context.getExecutionException().isEmpty()) {
                for (Transition t : context.getRequiredTestMethod().getAnnotationsByType(Transition.class)) {
                    assertThat(rig.allMoves).as("the moves the test's calls made").contains(t.value());
                }
            }
        } finally {
            rig.close();
        }
    }
}
