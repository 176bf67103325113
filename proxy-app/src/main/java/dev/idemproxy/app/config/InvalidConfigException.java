package dev.idemproxy.app.config;

import java.util.List;

/** A config file that cannot be used, with every problem found in it, in document order. */
public final class InvalidConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    private final List<ConfigProblem> problems;

    public InvalidConfigException(List<ConfigProblem> problems) {
        super(render(problems));
        this.problems = List.copyOf(problems);
        if (this.problems.isEmpty()) {
            throw new IllegalArgumentException("problems is empty (expected: at least one)");
        }
    }

    /** The problems, in document order; never empty. */
    public List<ConfigProblem> problems() {
        return problems;
    }

    private static String render(List<ConfigProblem> problems) {
        StringBuilder sb = new StringBuilder();
        for (ConfigProblem p : problems) {
            if (sb.length() > 0) {
                sb.append('\n');
            }
            sb.append(p);
        }
        return sb.toString();
    }
}
