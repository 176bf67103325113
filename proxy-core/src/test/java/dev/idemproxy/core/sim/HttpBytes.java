package dev.idemproxy.core.sim;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small incremental HTTP/1.1 message reader for the simulated peers (the proxy's bytes are
 * made by Netty's real encoders; these only read them): heads, then a body framed by
 * Content-Length, chunked coding, or the connection's close. Each message read is handed over
 * whole with its raw bytes; {@link #headSeen()} tells a message whose head came and whose end has
 * not. Not thread-safe.
 */
final class HttpBytes {
    /** One message: the start line's parts, the header lines in order, the body, and every byte it came as. */
    record Message(String line, List<String[]> headers, byte[] body, byte[] raw, boolean cut) {
        int status() {
            return Integer.parseInt(line.split(" ")[1]);
        }

        String header(String name) {
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    return h[1];
                }
            }
            return null;
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final ByteArrayOutputStream buf = new ByteArrayOutputStream();
    private final boolean responses;
    private byte[] data = new byte[0];
    private boolean headSeen;

    /** @param responses read responses (a body may run to the close), else requests */
    HttpBytes(boolean responses) {
        this.responses = responses;
    }

    boolean headSeen() {
        return headSeen;
    }

    /** Adds bytes; returns the messages they complete. */
    List<Message> add(byte[] bytes) {
        buf.writeBytes(bytes);
        data = buf.toByteArray();
        List<Message> out = new ArrayList<>(1);
        for (Message m = next(false); m != null; m = next(false)) {
            out.add(m);
        }
        return out;
    }

    /** The connection closed: a response framed by the close ends here; anything else is cut. */
    Message closed() {
        if (!responses) {
            return null;
        }
        Message m = next(true);
        if (m != null) {
            return m;
        }
        int end = indexOf(data, 0, "\r\n\r\n");
        if (end < 0) {
            return null;
        }
        String line = new String(data, 0, end, StandardCharsets.ISO_8859_1).split("\r\n")[0];
        Message cut = new Message(line, List.of(), java.util.Arrays.copyOfRange(data, end + 4, data.length), data, true);
        data = new byte[0];
        return cut;
    }

    private Message next(boolean atClose) {
        int end = indexOf(data, 0, "\r\n\r\n");
        headSeen = data.length > 0;
        if (end < 0) {
            return null;
        }
        String[] lines = new String(data, 0, end, StandardCharsets.ISO_8859_1).split("\r\n");
        List<String[]> headers = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.add(new String[] {lines[i].substring(0, colon), lines[i].substring(colon + 1).trim()});
        }
        Message head = new Message(lines[0], headers, null, null, false);
        int bodyStart = end + 4;
        String te = head.header("Transfer-Encoding");
        String cl = head.header("Content-Length");
        int status = responses ? head.status() : 0;
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        int consumed;
        if (responses && (status == 204 || status == 304 || status / 100 == 1)) {
            consumed = bodyStart;
        } else if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
            int p = bodyStart;
            while (true) {
                int eol = indexOf(data, p, "\r\n");
                if (eol < 0) {
                    return null;
                }
                int size = Integer.parseInt(new String(data, p, eol - p, StandardCharsets.ISO_8859_1).split(";")[0].trim(), 16);
                if (size == 0) {
                    int trailerEnd = indexOf(data, eol, "\r\n\r\n");
                    if (trailerEnd < 0) {
                        return null;
                    }
                    consumed = trailerEnd + 4;
                    break;
                }
                if (eol + 2 + size + 2 > data.length) {
                    return null;
                }
                body.write(data, eol + 2, size);
                p = eol + 2 + size + 2;
            }
        } else if (cl != null) {
            int n = Integer.parseInt(cl.trim());
            if (bodyStart + n > data.length) {
                return null;
            }
            body.write(data, bodyStart, n);
            consumed = bodyStart + n;
        } else if (responses) {
            if (!atClose) {
                return null;
            }
            body.write(data, bodyStart, data.length - bodyStart);
            consumed = data.length;
        } else {
            consumed = bodyStart;
        }
        byte[] raw = java.util.Arrays.copyOf(data, consumed);
        data = java.util.Arrays.copyOfRange(data, consumed, data.length);
        buf.reset();
        buf.writeBytes(data);
        headSeen = data.length > 0;
        return new Message(lines[0], headers, body.toByteArray(), raw, false);
    }

    private static int indexOf(byte[] a, int from, String s) {
        outer:
        for (int i = from; i <= a.length - s.length(); i++) {
            for (int j = 0; j < s.length(); j++) {
                if (a[i + j] != s.charAt(j)) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** A response as bytes: status line, the headers in order, and a body framed by its length. */
    static byte[] response(int status, String reason, List<String[]> headers, byte[] body) {
        StringBuilder b = new StringBuilder("HTTP/1.1 ").append(status).append(' ').append(reason).append("\r\n");
        for (String[] h : headers) {
            b.append(h[0]).append(": ").append(h[1]).append("\r\n");
        }
        b.append("Content-Length: ").append(body.length).append("\r\n\r\n");
        byte[] head = b.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] out = java.util.Arrays.copyOf(head, head.length + body.length);
        System.arraycopy(body, 0, out, head.length, body.length);
        return out;
    }

    static byte[] chunk(String text) {
        byte[] t = text.getBytes(StandardCharsets.UTF_8);
        return (Integer.toHexString(t.length) + "\r\n" + text + "\r\n").getBytes(StandardCharsets.UTF_8);
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
