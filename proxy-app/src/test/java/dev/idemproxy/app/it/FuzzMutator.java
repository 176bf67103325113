package dev.idemproxy.app.it;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Generates fuzz cases: a valid request template (GET, POST with a Content-Length or chunked body,
 * a pipelined pair, a classic CL.TE carrier) with one to three mutations applied, and a way to
 * deliver the bytes (all at once, split, or slowly). Every body carries a smuggling marker
 * ({@code GET <route>/smuggled-<id>}) that no correct parser can take for a request unless a mutation
 * really made it one, which {@link ReferenceHttp} then sees too. Deterministic for a given
 * {@link Random}. Not thread-safe.
 */
final class FuzzMutator {
    enum Category {
        BYTE_FLIP, BYTE_INSERT, BYTE_DELETE, DUPLICATE_FRAMING, CHUNK_SIZE, CHUNK_EXTENSION, OBS_FOLD, HEADER_CASE,
        CONTENT_LENGTH_VALUE, TRANSFER_ENCODING_VALUE, LINE_ENDING, HUGE_HEADER, MANY_HEADERS, REQUEST_LINE, TRUNCATE,
        NUL, SPLIT_WRITES, SLOW_SENDER
    }

    enum Template { GET, POST_LENGTH, POST_CHUNKED, PIPELINED, CL_TE_CARRIER }

    /** One generated case: the bytes, how to send them, and what was done to them. */
    record Case(int id, String route, Template template, Set<Category> categories, byte[] bytes, int[] splits,
            int pauseMillis) {
        String describe() {
            return "case " + id + " (" + route + ", " + template + ", " + categories + ")";
        }
    }

    private static final Category[] CONTENT_MUTATIONS = {
        Category.BYTE_FLIP, Category.BYTE_INSERT, Category.BYTE_DELETE, Category.DUPLICATE_FRAMING, Category.CHUNK_SIZE,
        Category.CHUNK_EXTENSION, Category.OBS_FOLD, Category.HEADER_CASE, Category.CONTENT_LENGTH_VALUE,
        Category.TRANSFER_ENCODING_VALUE, Category.LINE_ENDING, Category.HUGE_HEADER, Category.MANY_HEADERS,
        Category.REQUEST_LINE, Category.TRUNCATE, Category.NUL
    };
    private static final byte[] INTERESTING = " \t\r\n\0:;,=\"/aA0fF9-+xX\u007f\u0080\u00ff".getBytes(StandardCharsets.ISO_8859_1);

    private final Random random;

    FuzzMutator(Random random) {
        this.random = random;
    }

    /** The smuggling marker of case {@code id}: routed, so a proxy that took it for a request would forward it. */
    static String marker(String routePrefix, String id) {
        return routePrefix + "smuggled-" + id;
    }

    static String smuggledRequest(String routePrefix, String id) {
        return "GET " + marker(routePrefix, id) + " HTTP/1.1\r\nHost: a\r\n\r\n";
    }

    Case next(int id, String routePrefix) {
        Template t = Template.values()[random.nextInt(Template.values().length)];
        String path = routePrefix + "f" + id;
        String text = template(t, path, smuggledRequest(routePrefix, "f" + id));
        Set<Category> done = EnumSet.noneOf(Category.class);
        int n = 1 + random.nextInt(3);
        for (int i = 0; i < n; i++) {
            Category c = CONTENT_MUTATIONS[random.nextInt(CONTENT_MUTATIONS.length)];
            String mutated = mutate(c, text);
            if (!mutated.equals(text)) {
                done.add(c);
                text = mutated;
            }
        }
        byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        int[] splits = new int[0];
        int pause = 0;
        int delivery = random.nextInt(10);
        if (delivery >= 6 && bytes.length > 1) {
            int pieces = 1 + random.nextInt(6);
            splits = random.ints(pieces, 1, bytes.length).sorted().distinct().toArray();
            if (delivery >= 8) {
                pause = 1 + random.nextInt(40);
                done.add(Category.SLOW_SENDER);
            } else {
                done.add(Category.SPLIT_WRITES);
            }
        }
        return new Case(id, routePrefix, t, done, bytes, splits, pause);
    }

    static String template(Template t, String path, String body) {
        switch (t) {
            case GET:
                return "GET " + path + " HTTP/1.1\r\nHost: a\r\nUser-Agent: fuzz\r\nAccept: */*\r\n\r\n";
            case POST_LENGTH:
                return "POST " + path + " HTTP/1.1\r\nHost: a\r\nContent-Type: text/plain\r\nContent-Length: "
                        + body.length() + "\r\n\r\n" + body;
            case POST_CHUNKED:
                return "POST " + path + " HTTP/1.1\r\nHost: a\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + chunked(body);
            case PIPELINED:
                return "POST " + path + " HTTP/1.1\r\nHost: a\r\nContent-Length: " + body.length() + "\r\n\r\n" + body
                        + "GET " + path + "b HTTP/1.1\r\nHost: a\r\n\r\n";
            case CL_TE_CARRIER:
                String tail = "0\r\n\r\n" + body;
                return "POST " + path + " HTTP/1.1\r\nHost: a\r\nContent-Length: " + tail.length()
                        + "\r\nTransfer-Encoding: chunked\r\n\r\n" + tail;
            default:
                throw new AssertionError(t);
        }
    }

    static String chunked(String body) {
        int a = body.length() / 3;
        int b = 2 * body.length() / 3;
        return Integer.toHexString(a) + "\r\n" + body.substring(0, a) + "\r\n"
                + Integer.toHexString(b - a) + "\r\n" + body.substring(a, b) + "\r\n"
                + Integer.toHexString(body.length() - b) + "\r\n" + body.substring(b) + "\r\n0\r\n\r\n";
    }

    private int headEnd(String s) {
        int i = s.indexOf("\r\n\r\n");
        return i < 0 ? s.length() : i + 2;
    }

    private String mutate(Category c, String s) {
        int head = headEnd(s);
        switch (c) {
            case BYTE_FLIP: {
                int at = random.nextInt(head);
                return s.substring(0, at) + interesting() + s.substring(at + 1);
            }
            case BYTE_INSERT: {
                int at = random.nextInt(head + 1);
                return s.substring(0, at) + interesting() + s.substring(at);
            }
            case BYTE_DELETE: {
                int at = random.nextInt(head);
                return s.substring(0, at) + s.substring(at + 1);
            }
            case DUPLICATE_FRAMING: {
                String[] extra = {
                    "Content-Length: 0\r\n", "Content-Length: 5\r\n", "Transfer-Encoding: chunked\r\n",
                    "Transfer-Encoding: identity\r\n", "Content-Length: " + (s.length() - head - 2) + "\r\n",
                    "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n", "Content-length: 1\r\n", "transfer-encoding: chunked\r\n"
                };
                return insertHeader(s, extra[random.nextInt(extra.length)]);
            }
            case CHUNK_SIZE: {
                int le = s.indexOf("\r\n\r\n");
                if (le < 0) {
                    return s;
                }
                int start = le + 4;
                int eol = s.indexOf("\r\n", start);
                if (eol < 0) {
                    return s;
                }
                String size = s.substring(start, eol);
                String[] variants = {
                    size.toUpperCase(), "000" + size, "ffffffffffffffff", "1" + "0".repeat(16), "-1", "0x" + size, " " + size,
                    size + " ", size + "\t", "7fffffff", "fffffff", "0", Integer.toHexString(random.nextInt(64)), size + size
                };
                return s.substring(0, start) + variants[random.nextInt(variants.length)] + s.substring(eol);
            }
            case CHUNK_EXTENSION: {
                int le = s.indexOf("\r\n\r\n");
                if (le < 0) {
                    return s;
                }
                int eol = s.indexOf("\r\n", le + 4);
                if (eol < 0) {
                    return s;
                }
                String[] ext = {
                    ";a=b", ";name", "; a = \"quoted;value\"", ";\"bad\"", ";a=\r", ";a\0b", ";" + "x".repeat(5000),
                    ";a=b\nGET " + "/x HTTP/1.1", ";;", " ;a=b", ";a=\"unterminated"
                };
                return s.substring(0, eol) + ext[random.nextInt(ext.length)] + s.substring(eol);
            }
            case OBS_FOLD: {
                int eol = s.indexOf("\r\n", s.indexOf("\r\n") + 2);
                if (eol < 0 || eol >= head) {
                    return s;
                }
                String[] fold = {"\r\n folded", "\r\n\tfolded", "\r\n chunked", "\r\n "};
                return s.substring(0, eol) + fold[random.nextInt(fold.length)] + s.substring(eol);
            }
            case HEADER_CASE: {
                StringBuilder sb = new StringBuilder(s.substring(0, head));
                int firstEol = sb.indexOf("\r\n");
                if (firstEol < 0) {
                    return s;  // an earlier mutation left no header lines to re-case
                }
                for (int i = firstEol; i < sb.length(); i++) {
                    char ch = sb.charAt(i);
                    if (Character.isLetter(ch) && random.nextBoolean()) {
                        int lineStart = sb.lastIndexOf("\n", i) + 1;
                        int colon = sb.indexOf(":", lineStart);
                        if (colon > i) {
                            sb.setCharAt(i, Character.isUpperCase(ch) ? Character.toLowerCase(ch) : Character.toUpperCase(ch));
                        }
                    }
                }
                if (random.nextInt(4) == 0) {
                    int sp = sb.indexOf(" ");
                    sb.replace(0, sp, sb.substring(0, sp).toLowerCase());
                }
                return sb + s.substring(head);
            }
            case CONTENT_LENGTH_VALUE: {
                int at = indexOfIgnoreCase(s, "content-length:", head);
                if (at < 0) {
                    return insertHeader(s, "Content-Length: " + random.nextInt(100) + "\r\n");
                }
                int vs = at + "content-length:".length();
                int eol = s.indexOf("\r\n", vs);
                if (eol < 0) {
                    return s;
                }
                String v = s.substring(vs, eol).trim();
                String[] variants = {
                    " -1", " +" + v, " 0" + v, " " + v + " ", " " + v + "," + v, " " + v + ", 7", " 0x" + v, " 1 2",
                    " 99999999999999999999", " " + (v.replaceAll("[^0-9]", "").length() > 9 ? 1
                            : Integer.parseInt("0" + v.replaceAll("[^0-9]", "")) + 1), " 0", " " + v + "a", "", " 18446744073709551616"
                };
                return s.substring(0, vs) + variants[random.nextInt(variants.length)] + s.substring(eol);
            }
            case TRANSFER_ENCODING_VALUE: {
                int at = indexOfIgnoreCase(s, "transfer-encoding:", head);
                String[] variants = {
                    " Chunked", " chunked, chunked", " xchunked", " chunked;q=1", " identity", " gzip, chunked", "  chunked",
                    "\tchunked", " chunked\0", " chunked, identity", " ", " chunked\u000b", " \"chunked\""
                };
                String v = variants[random.nextInt(variants.length)];
                if (at < 0) {
                    return insertHeader(s, "Transfer-Encoding:" + v + "\r\n");
                }
                int vs = at + "transfer-encoding:".length();
                int eol = s.indexOf("\r\n", vs);
                if (eol < 0) {
                    return s;
                }
                return s.substring(0, vs) + v + s.substring(eol);
            }
            case LINE_ENDING: {
                List<Integer> crlfs = new ArrayList<>();
                for (int i = s.indexOf("\r\n"); i >= 0; i = s.indexOf("\r\n", i + 2)) {
                    crlfs.add(i);
                }
                if (crlfs.isEmpty()) {
                    return s;
                }
                int at = crlfs.get(random.nextInt(crlfs.size()));
                String[] repl = {"\n", "\r", "\n\r", "\r\r\n", "\r\n\r\n"};
                return s.substring(0, at) + repl[random.nextInt(repl.length)] + s.substring(at + 2);
            }
            case HUGE_HEADER: {
                int[] sizes = {1024, 8 * 1024, 15 * 1024, 16 * 1024, 17 * 1024, 40 * 1024, 100 * 1024};
                return insertHeader(s, "X-Huge: " + "h".repeat(sizes[random.nextInt(sizes.length)]) + "\r\n");
            }
            case MANY_HEADERS: {
                int[] counts = {50, 300, 1000, 3000};
                int n = counts[random.nextInt(counts.length)];
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < n; i++) {
                    sb.append("X-F").append(i).append(": v\r\n");
                }
                return insertHeader(s, sb.toString());
            }
            case REQUEST_LINE: {
                int eol = s.indexOf("\r\n");
                if (eol < 0) {
                    return s;
                }
                String[] parts = s.substring(0, eol).split(" ", -1);
                if (parts.length != 3) {
                    return s;
                }
                String m = parts[0];
                String t = parts[1];
                String v = parts[2];
                String[] lines = {
                    m + "  " + t + " " + v, m + "\t" + t + " " + v, m + " " + t + " " + v.toLowerCase(), m + " " + t + " HTTP/1.2",
                    m + " " + t + " HTTP/2.0", m + " " + t + " " + v + " ", m + " " + t, m.toLowerCase() + " " + t + " " + v,
                    m + " http://a" + t + " " + v, m + " http://user:pw@a" + t + " " + v, m + " " + t + "?" + "q".repeat(9000) + " " + v,
                    m + " " + t + " HTTP/1.0", m + " *" + " " + v, "CONNECT a:443 " + v, m + " " + t + "#frag " + v,
                    m + " " + t + "/%00 " + v, " " + m + " " + t + " " + v, m + " " + t + " HTTP/11"
                };
                return lines[random.nextInt(lines.length)] + s.substring(eol);
            }
            case TRUNCATE: {
                int at = head + random.nextInt(Math.max(1, s.length() - head));
                if (random.nextInt(3) == 0) {
                    at = random.nextInt(s.length());
                }
                return s.substring(0, Math.max(1, at));
            }
            case NUL: {
                int at = random.nextInt(head);
                return s.substring(0, at) + "\0" + s.substring(at);
            }
            default:
                throw new AssertionError(c);
        }
    }

    private String insertHeader(String s, String lines) {
        int first = s.indexOf("\r\n");
        if (first < 0) {
            return s;
        }
        // After the request line or at the end of the head, at random.
        int head = headEnd(s);
        int at = random.nextBoolean() ? first + 2 : head;
        if (at > s.length()) {
            return s;
        }
        return s.substring(0, at) + lines + s.substring(at);
    }

    private char interesting() {
        if (random.nextInt(4) == 0) {
            return (char) random.nextInt(256);
        }
        return (char) (INTERESTING[random.nextInt(INTERESTING.length)] & 0xff);
    }

    private static int indexOfIgnoreCase(String s, String what, int limit) {
        String lower = s.substring(0, Math.min(limit, s.length())).toLowerCase();
        return lower.indexOf(what);
    }
}
