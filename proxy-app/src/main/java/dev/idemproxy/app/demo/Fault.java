package dev.idemproxy.app.demo;

/**
 * What the demo upstream does with one request for a ticket. "Commits" means the ticket is
 * created: the side effect the demo counts per intent.
 */
public enum Fault {
    /** Creates the ticket and answers 201 at once. */
    ANSWER("answers 201", true),
    /** Creates the ticket, then answers 201 only after the agent has given up waiting. */
    ANSWER_LATE("commits, answers late", true),
    /** Creates the ticket, then closes the connection without answering. */
    COMMIT_AND_DROP("commits, drops the connection", true),
    /** Answers 503 without creating anything. */
    UNAVAILABLE("503, nothing created", false),
    /** Answers 429 with {@code Retry-After: 0} without creating anything. */
    THROTTLED("429 Retry-After: 0", false),
    /** Answers 429 with {@code Retry-After: 1} without creating anything. */
    THROTTLED_LONG("429 Retry-After: 1", false);

    private final String description;
    private final boolean commits;

    Fault(String description, boolean commits) {
        this.description = description;
        this.commits = commits;
    }

    public String description() {
        return description;
    }

    /** True when this behaviour creates the ticket (the side effect counted per intent). */
    public boolean commits() {
        return commits;
    }
}
