package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;

/**
 * A {@code tools/call} request as the dialect needs it: the request id as sent (raw JSON, to echo
 * back exactly), the tool's name and its arguments in canonical JSON ({@code params._meta} is
 * not part of it). This class is immutable; the array is never modified.
 *
 * @param rawId              the {@code id} exactly as it was in the body, e.g. {@code 7} or {@code "a-1"}
 * @param tool               {@code params.name}
 * @param canonicalArguments {@code params.arguments} in canonical JSON; {@code {}} when absent or null
 */
public record McpToolCall(String rawId, String tool, byte[] canonicalArguments) {
    public McpToolCall {
        requireNonNull(rawId, "rawId");
        requireNonNull(tool, "tool");
        requireNonNull(canonicalArguments, "canonicalArguments");
    }

    /** The canonical arguments as text, for logs and tests. */
    public String argumentsText() {
        return new String(canonicalArguments, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof McpToolCall c && c.rawId.equals(rawId) && c.tool.equals(tool)
                && java.util.Arrays.equals(c.canonicalArguments, canonicalArguments);
    }

    @Override
    public int hashCode() {
        return (rawId.hashCode() * 31 + tool.hashCode()) * 31 + java.util.Arrays.hashCode(canonicalArguments);
    }

    @Override
    public String toString() {
        return "McpToolCall[id=" + rawId + ", tool=" + tool + ", arguments=" + argumentsText() + "]";
    }
}
