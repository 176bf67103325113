package dev.idemproxy.core.mcp;

import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * An incremental {@code text/event-stream} parser (the HTML Standard's "Server-sent events",
 * §9.2.6 "Interpreting an event stream") fed with chunks split anywhere, even inside a CRLF or a
 * UTF-8 sequence: lines end at CRLF, LF or CR; a line starting with {@code :} is a comment;
 * {@code data} lines accumulate joined with LF; {@code id} sets the last event id (a value with
 * NUL is ignored); {@code event} sets the type; {@code retry} and unknown fields are ignored; a
 * blank line dispatches the event when it has data. A leading UTF-8 BOM is skipped. Bytes are
 * split only on ASCII CR, LF and colon, so multi-byte characters pass whole.
 *
 * <p>Bounded: a line or an event's data longer than {@code maxEventBytes} sets {@link #overflowed()}
 * and that event is dropped. Not thread-safe: one instance per stream, fed in order.
 */
public final class SseParser {
    private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

    private final int maxEventBytes;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private final ByteArrayOutputStream data = new ByteArrayOutputStream();
    private String type = "";
    private String lastEventId = "";
    private boolean afterCr;
    private boolean lineTooLong;
    private boolean dataTooLong;
    private boolean overflowed;
    private int bomSeen;
    private boolean bomDone;

    public SseParser(int maxEventBytes) {
        requireArgument(maxEventBytes > 0, "maxEventBytes " + maxEventBytes + " (expected: > 0)");
        this.maxEventBytes = maxEventBytes;
    }

    /** Parses the next chunk, handing every event it completes to {@code events}. */
    public void feed(byte[] chunk, int offset, int length, Consumer<SseEvent> events) {
        requireNonNull(chunk, "chunk");
        requireNonNull(events, "events");
        int i = offset;
        int end = offset + length;
        while (i < end && !bomDone) {
            if (skipBom(chunk[i])) {
                i++;
            } else {
                break;
            }
        }
        while (i < end) {
            if (afterCr) {
                afterCr = false;
                if (chunk[i] == '\n') {
                    i++;
                    continue;
                }
            }
            int eol = i;
            while (eol < end && chunk[eol] != '\r' && chunk[eol] != '\n') {
                eol++;
            }
            append(chunk, i, eol - i);
            if (eol == end) {
                return;
            }
            afterCr = chunk[eol] == '\r';
            endLine(events);
            i = eol + 1;
        }
    }

    /** Adds bytes to the current line, up to the bound. */
    private void append(byte[] chunk, int from, int n) {
        int room = maxEventBytes - line.size();
        if (n > room) {
            lineTooLong = true;
            n = Math.max(room, 0);
        }
        line.write(chunk, from, n);
    }

    public void feed(byte[] chunk, Consumer<SseEvent> events) {
        feed(chunk, 0, chunk.length, events);
    }

    /** The last event id the stream set ("" when none). */
    public String lastEventId() {
        return lastEventId;
    }

    /** True when an event or line was over the bound and dropped. */
    public boolean overflowed() {
        return overflowed;
    }

    /** Consumes the BOM's bytes at the stream's start; true when {@code b} was one of them. */
    private boolean skipBom(byte b) {
        if (b == BOM[bomSeen]) {
            if (++bomSeen == BOM.length) {
                bomDone = true;
            }
            return true;
        }
        bomDone = true;
        for (int i = 0; i < bomSeen; i++) {
            line.write(BOM[i]);   // not a BOM after all: those bytes were the line's
        }
        return false;
    }

    private void endLine(Consumer<SseEvent> events) {
        bomDone = true;
        if (lineTooLong) {
            lineTooLong = false;
            overflowed = true;
            dataTooLong = true;   // the event lost a line: drop it whole
            line.reset();
            return;
        }
        byte[] l = line.toByteArray();
        line.reset();
        if (l.length == 0) {
            dispatch(events);
            return;
        }
        if (l[0] == ':') {
            return;
        }
        int colon = indexOf(l, (byte) ':');
        String field = new String(l, 0, colon < 0 ? l.length : colon, StandardCharsets.UTF_8);
        int v = colon < 0 ? l.length : colon + 1;
        if (v < l.length && l[v] == ' ') {
            v++;
        }
        switch (field) {
            case "data":
                if (data.size() + (l.length - v) + 1 > maxEventBytes) {
                    dataTooLong = true;
                } else if (!dataTooLong) {
                    data.write(l, v, l.length - v);
                    data.write('\n');
                }
                break;
            case "id":
                if (indexOf(l, (byte) 0) < 0) {
                    lastEventId = new String(l, v, l.length - v, StandardCharsets.UTF_8);
                }
                break;
            case "event":
                type = new String(l, v, l.length - v, StandardCharsets.UTF_8);
                break;
            default:
                break;   // retry, and fields the standard does not know
        }
    }

    private void dispatch(Consumer<SseEvent> events) {
        boolean drop = dataTooLong;
        byte[] d = data.toByteArray();
        String t = type.isEmpty() ? "message" : type;
        data.reset();
        type = "";
        dataTooLong = false;
        if (drop) {
            overflowed = true;
            return;
        }
        if (d.length == 0) {
            return;
        }
        byte[] payload = java.util.Arrays.copyOf(d, d.length - 1);   // the last LF goes
        events.accept(new SseEvent(t, payload, lastEventId));
    }

    private static int indexOf(byte[] a, byte b) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
