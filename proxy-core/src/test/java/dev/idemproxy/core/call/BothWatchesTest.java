package dev.idemproxy.core.call;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.problem.Problem;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Two watches of one call: the tries kept with its receipt and, beside them, its trace. */
class BothWatchesTest {

    @Test
    void everyHookOfAWatchIsPassedOnToBoth() {
        List<String> hooks = Arrays.stream(CallWatch.class.getMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .filter(m -> declares(BothWatches.class, m))
                .map(Method::getName).toList();
        List<String> all = Arrays.stream(CallWatch.class.getMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers())).map(Method::getName).toList();

        assertThat(hooks).containsExactlyInAnyOrderElementsOf(all);
    }

    @Test
    void theFirstHearsEachHookBeforeTheSecond() {
        List<String> heard = new ArrayList<>();
        CallWatch both = CallWatch.both(named("first", heard), named("second", heard));

        both.tryStarted(1, 0);
        both.refused(Problem.KEY_IN_FLIGHT, "holder");

        assertThat(heard).containsExactly("first tryStarted 1", "second tryStarted 1", "first refused holder", "second refused holder");
    }

    @Test
    void aWatchBesideNoneIsItself() {
        CallWatch one = new CallWatch() {};

        assertThat(CallWatch.both(one, CallWatch.NONE)).isSameAs(one);
        assertThat(CallWatch.both(CallWatch.NONE, one)).isSameAs(one);
    }

    private static boolean declares(Class<?> type, Method m) {
        try {
            return type.getDeclaredMethod(m.getName(), m.getParameterTypes()) != null;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    private static CallWatch named(String name, List<String> heard) {
        return new CallWatch() {
            @Override
            public void tryStarted(int n, long nanos) {
                heard.add(name + " tryStarted " + n);
            }

            @Override
            public void refused(Problem problem, String holder) {
                heard.add(name + " refused " + holder);
            }
        };
    }
}
