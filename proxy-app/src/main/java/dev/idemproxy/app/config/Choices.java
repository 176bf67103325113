package dev.idemproxy.app.config;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** Parses a value from a closed vocabulary by its contract spelling. This class is stateless. */
final class Choices {
    private Choices() {}

    /** The choice spelled {@code text}; throws {@code 'x' (expected one of: a, b, c)} otherwise. */
    static <T> T of(T[] choices, Function<T, String> spelling, String text) {
        List<String> names = new ArrayList<>();
        for (T c : choices) {
            String s = spelling.apply(c);
            if (s.equals(text)) {
                return c;
            }
            names.add(s);
        }
        throw new IllegalArgumentException("'" + text + "' (expected one of: " + String.join(", ", names) + ")");
    }
}
