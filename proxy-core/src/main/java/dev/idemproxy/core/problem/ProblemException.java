package dev.idemproxy.core.problem;

import static java.util.Objects.requireNonNull;

/** Thrown inside the pipeline to answer the client with a problem; caught by the tail handler. */
public final class ProblemException extends RuntimeException {
    private final transient Problem problem;

    public ProblemException(Problem problem, String detail) {
        super(detail, null, false, false);
        this.problem = requireNonNull(problem, "problem");
    }

    public Problem problem() {
        return problem;
    }
}
