package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

/**
 * One tool of a {@code tools/list} answer with the two annotations the dialect reads. An
 * annotation is a hint only when it is JSON {@code true}; absent or anything else is false. This
 * class is immutable.
 */
public record ToolInfo(String name, boolean readOnly, boolean idempotent) {
    public ToolInfo {
        requireNonNull(name, "name");
    }
}
