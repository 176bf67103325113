package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One page of a {@code tools/list} answer: its tools and the cursor of the next page (null on the
 * last). Read from the final JSON-RPC response with Jackson's streaming parser; the tools'
 * schemas, descriptions and everything else are skipped. This class is immutable.
 */
public record ToolsListPage(List<ToolInfo> tools, String nextCursor) {
    public ToolsListPage {
        tools = List.copyOf(requireNonNull(tools, "tools"));
    }

    /**
     * The page in a JSON-RPC response, or empty when it is not a result with a {@code tools}
     * array (an error response, or not JSON). A tool without a string name is left out.
     */
    public static Optional<ToolsListPage> read(byte[] response) {
        requireNonNull(response, "response");
        try (JsonParser p = JsonSpans.parser(response)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return Optional.empty();
            }
            ToolsListPage page = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                if (field.equals("result") && v == JsonToken.START_OBJECT) {
                    page = result(p);
                } else {
                    p.skipChildren();
                }
            }
            return Optional.ofNullable(page);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static ToolsListPage result(JsonParser p) throws IOException {
        List<ToolInfo> tools = null;
        String next = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            if (field.equals("tools") && v == JsonToken.START_ARRAY) {
                tools = new ArrayList<>();
                JsonToken item;
                while ((item = p.nextToken()) != JsonToken.END_ARRAY) {
                    if (item == JsonToken.START_OBJECT) {
                        ToolInfo t = tool(p);
                        if (t != null) {
                            tools.add(t);
                        }
                    } else {
                        p.skipChildren();
                    }
                }
            } else if (field.equals("nextCursor") && v == JsonToken.VALUE_STRING) {
                next = p.getText();
            } else {
                p.skipChildren();
            }
        }
        return tools == null ? null : new ToolsListPage(tools, next);
    }

    private static ToolInfo tool(JsonParser p) throws IOException {
        String name = null;
        boolean readOnly = false;
        boolean idempotent = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            if (field.equals("name") && v == JsonToken.VALUE_STRING) {
                name = p.getText();
            } else if (field.equals("annotations") && v == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String hint = p.currentName();
                    JsonToken h = p.nextToken();
                    if (hint.equals("readOnlyHint")) {
                        readOnly = h == JsonToken.VALUE_TRUE;
                    } else if (hint.equals("idempotentHint")) {
                        idempotent = h == JsonToken.VALUE_TRUE;
                    }
                    p.skipChildren();
                }
            } else {
                p.skipChildren();
            }
        }
        return name == null ? null : new ToolInfo(name, readOnly, idempotent);
    }
}
