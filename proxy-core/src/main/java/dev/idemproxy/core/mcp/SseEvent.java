package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;

/**
 * One dispatched Server-Sent Event. This class is immutable; the array is never modified.
 *
 * @param type        the {@code event} field, {@code message} when absent
 * @param data        the {@code data} lines joined with LF, as UTF-8 bytes
 * @param lastEventId the stream's last event id when the event was dispatched ("" when none was set)
 */
public record SseEvent(String type, byte[] data, String lastEventId) {
    public SseEvent {
        requireNonNull(type, "type");
        requireNonNull(data, "data");
        requireNonNull(lastEventId, "lastEventId");
    }

    public String dataText() {
        return new String(data, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SseEvent e && e.type.equals(type) && java.util.Arrays.equals(e.data, data) && e.lastEventId.equals(lastEventId);
    }

    @Override
    public int hashCode() {
        return (type.hashCode() * 31 + java.util.Arrays.hashCode(data)) * 31 + lastEventId.hashCode();
    }

    @Override
    public String toString() {
        return "SseEvent[type=" + type + ", id=" + lastEventId + ", data=" + dataText() + "]";
    }
}
