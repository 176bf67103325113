package dev.idemproxy.app.it;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The fuzz suite's oracle: a deliberately small, strict HTTP/1.1 request parser written from
 * RFC 9112 (and the proxy's documented policy), that splits a byte stream into requests and says
 * how the stream ends. It never guesses: wherever the RFC lets a server either accept or reject
 * (obs-fold, a bare LF, a duplicate identical Content-Length, a transfer coding before chunked,
 * a NUL in a field value, …) it stops with {@link Verdict#LENIENT}, and the fuzz then asserts
 * nothing about that request beyond "no crash, no hang, no leak, no smuggling".
 * Stateless; {@link #parse} is a pure function.
 */
final class ReferenceHttp {
    /** How the byte stream ends, after the {@link Parse#requests()} that parsed cleanly. */
    enum Verdict {
        /** Every byte belongs to a complete, valid request. */
        CLEAN,
        /** The next request is invalid: the proxy must not answer it 2xx nor forward it. */
        INVALID,
        /** The next request is cut short: it must not be forwarded as complete. */
        INCOMPLETE,
        /** The next request is one a server may accept or reject: no assertion. */
        LENIENT
    }

    /**
     * One complete request. {@code lenient} names what a server may accept or reject in it without
     * any doubt about where it ends (whitespace in the request line, obs-fold or odd octets in a
     * field that does not frame the message), or is null when it is plainly valid.
     */
    record Request(String method, String target, byte[] body, boolean http10, String lenient) {
        /** The target as an upstream sees it: absolute-form reduced to its path and query. */
        String originTarget() {
            if (target.regionMatches(true, 0, "http://", 0, 7)) {
                int slash = target.indexOf('/', 7);
                int query = target.indexOf('?', 7);
                int at = slash < 0 ? query : query < 0 ? slash : Math.min(slash, query);
                return at < 0 ? "/" : target.charAt(at) == '?' ? "/" + target.substring(at) : target.substring(at);
            }
            return target;
        }
    }

    /** The requests that parsed cleanly, then how the stream ends and why. */
    record Parse(List<Request> requests, Verdict verdict, String reason) {
        /** True when {@code path} is the target of one of the clean requests. */
        boolean hasTarget(String path) {
            for (Request r : requests) {
                if (r.originTarget().equals(path)) {
                    return true;
                }
            }
            return false;
        }
    }

    static final int MAX_INITIAL_LINE = 8 * 1024;
    static final int MAX_HEADER_SIZE = 16 * 1024;
    /** Near a size limit exact byte accounting differs between parsers; anything there is lenient. */
    private static final int LIMIT_SLACK = 512;

    private final byte[] in;
    private int pos;
    /** Why the request being parsed is lenient (see {@link Request#lenient()}), or null. */
    private String soft;

    private ReferenceHttp(byte[] in) {
        this.in = in;
    }

    static Parse parse(byte[] bytes) {
        return new ReferenceHttp(bytes).run();
    }

    private static final class Stop extends Exception {
        final Verdict verdict;

        Stop(Verdict verdict, String reason) {
            super(reason, null, false, false);
            this.verdict = verdict;
        }
    }

    private static Stop invalid(String why) {
        return new Stop(Verdict.INVALID, why);
    }

    private static Stop lenient(String why) {
        return new Stop(Verdict.LENIENT, why);
    }

    private static Stop incomplete(String why) {
        return new Stop(Verdict.INCOMPLETE, why);
    }

    private Parse run() {
        List<Request> out = new ArrayList<>();
        try {
            while (pos < in.length) {
                Request r = request();
                out.add(r);
                if (r.http10() && pos < in.length) {
                    throw lenient("bytes after an HTTP/1.0 request (the server may close after answering it)");
                }
            }
            return new Parse(out, Verdict.CLEAN, "");
        } catch (Stop s) {
            return new Parse(out, s.verdict, s.getMessage());
        }
    }

    private Request request() throws Stop {
        soft = null;
        while (pos + 1 < in.length && in[pos] == '\r' && in[pos + 1] == '\n') {
            pos += 2;
            soft = "empty line before the request line (RFC 9112 2.2: SHOULD ignore)";
        }
        if (pos >= in.length) {
            throw lenient("only empty lines after the last request");
        }
        if (in[pos] == '\r' || in[pos] == '\n') {
            throw lenient("bare CR or LF before the request line");
        }
        int lineStart = pos;
        String line = line(MAX_INITIAL_LINE + LIMIT_SLACK, "request line");
        if (pos - lineStart > MAX_INITIAL_LINE - LIMIT_SLACK) {
            throw lenient("request line near the limit");
        }
        String[] parts = line.split(" ", -1);
        if (parts.length != 3 || line.indexOf('\t') >= 0) {
            String[] words = line.trim().split("[ \t]+", -1);
            if (words.length != 3 || line.trim().isEmpty() || line.indexOf('\u000b') >= 0 || line.indexOf('\f') >= 0) {
                throw invalid("request line is not method SP target SP version");
            }
            soft = "request line split by other whitespace (RFC 9112 3: MAY split on whitespace)";
            parts = words;
        }
        String method = parts[0];
        String target = parts[1];
        String version = parts[2];
        if (!isToken(method)) {
            throw invalid("method is not a token");
        }
        if (version.matches("(?i)HTTP/[0-9]\\.[0-9]") && !version.startsWith("HTTP/")) {
            soft = "HTTP-name in the wrong case (RFC 9112 3: SHOULD 400)";
            version = version.toUpperCase(Locale.ROOT);
        }
        if (!version.matches("HTTP/[0-9]\\.[0-9]")) {
            throw invalid("bad HTTP-version");
        }
        boolean laterMinor = version.startsWith("HTTP/1.") && !version.equals("HTTP/1.0") && !version.equals("HTTP/1.1");
        if (laterMinor) {
            soft = "HTTP version " + version + " (RFC 9110 2.5: handle as 1.1, or 505)";
        } else if (!version.equals("HTTP/1.0") && !version.equals("HTTP/1.1")) {
            throw lenient("HTTP version " + version + " (505 or accept)");
        }
        if (target.isEmpty()) {
            throw invalid("empty target");
        }
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c <= 0x20 || c == 0x7f) {
                throw invalid("control or space in target");
            }
            if (c > 0x7f || "\"<>\\^`{|}#".indexOf(c) >= 0) {
                soft = "character outside the URI grammar in target";
            }
        }
        if (method.equals("CONNECT")) {
            throw invalid("CONNECT (the proxy answers 405)");
        }
        // The target's form never changes where the message ends: any oddity here is soft.
        if (target.startsWith("/")) {
            if (target.startsWith("//")) {
                soft = "target starting with //";
            }
        } else if (target.regionMatches(true, 0, "http://", 0, 7)) {
            String authority = target.substring(7).split("[/?#]", 2)[0];
            soft = authority.contains("@") ? "userinfo in absolute-form (RFC 9110 4.2.4: SHOULD treat as an error)"
                    : "absolute-form (routes match on its host)";
        } else {
            soft = "neither origin-form nor http absolute-form";
        }

        // Field lines.
        int headStart = pos;
        List<String[]> fields = new ArrayList<>();
        for (;;) {
            boolean fold = pos < in.length && (in[pos] == ' ' || in[pos] == '\t') && !fields.isEmpty();
            String f = line(Integer.MAX_VALUE, "field line");
            if (f.isEmpty()) {
                break;
            }
            if (pos - headStart > MAX_HEADER_SIZE + LIMIT_SLACK) {
                throw invalid("header block over " + MAX_HEADER_SIZE + " bytes (431)");
            }
            if (fold) {
                String[] last = fields.get(fields.size() - 1);
                if (isFraming(last[0])) {
                    throw lenient("obs-fold continuing " + last[0]);
                }
                checkValue(last[0], f.trim());
                soft = "obs-fold (RFC 9112 5.2: reject or replace with SP)";
                last[1] = last[1] + " " + f.trim();
                continue;
            }
            fields.add(field(f));
        }
        int headSize = pos - headStart;
        if (headSize > MAX_HEADER_SIZE + LIMIT_SLACK) {
            throw invalid("header block over " + MAX_HEADER_SIZE + " bytes (431)");
        }
        if (headSize > MAX_HEADER_SIZE - LIMIT_SLACK) {
            throw lenient("header block near the limit");
        }

        List<String> hosts = values(fields, "host");
        if (laterMinor && hosts.isEmpty()) {
            soft = "no Host on " + version + " (required only of HTTP/1.1 by the letter of RFC 9112 3.2)";
        } else if (version.equals("HTTP/1.1") && hosts.size() != 1) {
            throw invalid(hosts.isEmpty() ? "no Host" : "several Host fields");
        }
        if (hosts.size() > 1) {
            throw invalid("several Host fields");
        }
        if (!hosts.isEmpty() && !hosts.get(0).matches("[A-Za-z0-9.\\-]*(:[0-9]*)?")) {
            soft = "unusual Host value";
        }
        for (String[] f : fields) {
            String n = f[0].toLowerCase(Locale.ROOT);
            if (n.equals("expect") || n.equals("connection") || n.equals("upgrade") || n.equals("te")
                    || n.equals("trailer") || n.equals("keep-alive") || n.equals("idempotency-key")) {
                throw lenient("field " + n + " changes how the exchange goes");
            }
        }

        List<String> te = values(fields, "transfer-encoding");
        List<String> cl = values(fields, "content-length");
        byte[] body;
        if (!te.isEmpty()) {
            if (!cl.isEmpty()) {
                throw invalid("Content-Length with Transfer-Encoding");
            }
            List<String> codings = new ArrayList<>();
            for (String v : te) {
                for (String c : v.split(",", -1)) {
                    codings.add(c.trim().toLowerCase(Locale.ROOT));
                }
            }
            if (version.equals("HTTP/1.0")) {
                throw lenient("Transfer-Encoding in HTTP/1.0");
            }
            if (!codings.get(codings.size() - 1).equals("chunked")) {
                throw invalid("final transfer coding is not chunked (RFC 9112 6.3: 400 and close)");
            }
            if (codings.stream().filter("chunked"::equals).count() > 1) {
                throw invalid("chunked applied more than once (RFC 9112 6.1: MUST NOT)");
            }
            if (codings.size() > 1) {
                soft = "transfer codings before chunked (501 or accept; framing is still chunked)";
            }
            body = chunked();
        } else if (!cl.isEmpty()) {
            long n = -1;
            for (String v : cl) {
                for (String part : v.split(",", -1)) {
                    String p = part.trim();
                    if (!p.matches("[0-9]{1,18}")) {
                        throw invalid("Content-Length is not 1*DIGIT: '" + p + "'");
                    }
                    long k = Long.parseLong(p);
                    if (n >= 0 && k != n) {
                        throw invalid("conflicting Content-Lengths");
                    }
                    n = k;
                }
            }
            if (cl.size() > 1 || cl.get(0).contains(",")) {
                throw lenient("repeated identical Content-Length (reject or accept)");
            }
            if (n > in.length - pos) {
                throw incomplete("body shorter than Content-Length " + n);
            }
            body = java.util.Arrays.copyOfRange(in, pos, pos + (int) n);
            pos += (int) n;
        } else {
            body = new byte[0];
        }
        return new Request(method, target, body, version.equals("HTTP/1.0"), soft);
    }

    private byte[] chunked() throws Stop {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (;;) {
            int lineStart = pos;
            String line = line(MAX_INITIAL_LINE + LIMIT_SLACK, "chunk-size line");
            if (pos - lineStart > 1024) {
                throw lenient("a long chunk-size line (servers limit it differently)");
            }
            int semi = line.indexOf(';');
            String size = semi < 0 ? line : line.substring(0, semi);
            String ext = semi < 0 ? "" : line.substring(semi);
            if (size.isEmpty()) {
                throw invalid("empty chunk size");
            }
            String trimmed = size.replaceAll("[ \t]+$", "");
            if (!trimmed.matches("[0-9A-Fa-f]+")) {
                throw invalid("chunk size is not 1*HEXDIG: '" + size + "'");
            }
            if (!trimmed.equals(size)) {
                throw lenient("whitespace after chunk size");
            }
            String digits = trimmed.replaceFirst("^0+(?=.)", "");
            if (digits.length() > 7) {
                throw digits.length() > 15 ? invalid("chunk size overflows") : lenient("chunk size too large to send");
            }
            if (!ext.isEmpty() && !ext.matches("(;[ \t]*[!#$%&'*+\\-.^_`|~0-9A-Za-z]+([ \t]*=[ \t]*([!#$%&'*+\\-.^_`|~0-9A-Za-z]+|\"[^\"\\\\\\x00-\\x08\\x0a-\\x1f\\x7f]*\"))?[ \t]*)+")) {
                soft = "chunk extension outside the grammar (ignored or rejected; the size is certain)";
            }
            int n = Integer.parseInt(digits, 16);
            if (n == 0) {
                // Trailer section.
                for (;;) {
                    if (pos < in.length && (in[pos] == ' ' || in[pos] == '\t')) {
                        throw lenient("obs-fold in trailers");
                    }
                    String t = line(MAX_HEADER_SIZE, "trailer line");
                    if (t.isEmpty()) {
                        return body.toByteArray();
                    }
                    field(t); // a valid trailer field, even Content-Length, never frames anything (RFC 9112 7.1.2)
                }
            }
            if (in.length - pos < n) {
                throw incomplete("chunk data cut short");
            }
            body.write(in, pos, n);
            pos += n;
            if (in.length - pos < 2) {
                if (in.length - pos == 1 && in[pos] != '\r') {
                    throw invalid("chunk data not followed by CRLF");
                }
                throw incomplete("CRLF after chunk data cut short");
            }
            if (in[pos] != '\r' || in[pos + 1] != '\n') {
                throw in[pos] == '\n' ? lenient("bare LF after chunk data") : invalid("chunk data not followed by CRLF");
            }
            pos += 2;
        }
    }

    private static boolean isFraming(String name) {
        return name.equalsIgnoreCase("content-length") || name.equalsIgnoreCase("transfer-encoding");
    }

    /** A field line as {name, value}, or the reason it is not one. */
    private String[] field(String f) throws Stop {
        int colon = f.indexOf(':');
        if (colon < 0) {
            throw invalid("field line without a colon");
        }
        String name = f.substring(0, colon);
        if (name.isEmpty()) {
            throw invalid("empty field name");
        }
        if (name.endsWith(" ") || name.endsWith("\t")) {
            throw invalid("whitespace between field name and colon (RFC 9112 5.1: MUST 400)");
        }
        if (!isToken(name)) {
            throw invalid("field name is not a token");
        }
        String value = f.substring(colon + 1).replaceAll("^[ \t]+|[ \t]+$", "");
        checkValue(name, value);
        return new String[] {name, value};
    }

    /** Odd octets in a value: lenient, and only softly so when the field does not frame the message. */
    private void checkValue(String name, String value) throws Stop {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            String why = null;
            if (c == 0 || c == '\r' || c == '\n') {
                why = "CR, LF or NUL in a field value (RFC 9110 5.5: reject or replace with SP)";
            } else if ((c < 0x20 && c != '\t') || c == 0x7f) {
                why = "control character in a field value";
            } else if (c > 0x7f) {
                why = "obs-text in a field value";
            }
            if (why != null) {
                if (isFraming(name)) {
                    throw lenient(why + " of " + name);
                }
                soft = why;
            }
        }
    }

    /**
     * The next line without its CRLF. A bare LF or bare CR makes the request lenient (RFC 9112 2.2
     * lets a recipient accept a bare LF and either reject or replace a bare CR).
     */
    private String line(int max, String what) throws Stop {
        int start = pos;
        for (int i = pos; i < in.length; i++) {
            byte b = in[i];
            if (b == '\n') {
                throw lenient("bare LF ending a " + what);
            }
            if (b == '\r') {
                if (i + 1 >= in.length) {
                    throw incomplete(what + " cut after CR");
                }
                if (in[i + 1] != '\n') {
                    throw lenient("bare CR in a " + what);
                }
                pos = i + 2;
                return new String(in, start, i - start, StandardCharsets.ISO_8859_1);
            }
            if (i - start > max) {
                throw invalid(what + " over " + max + " bytes");
            }
        }
        if (in.length - start > max) {
            throw invalid(what + " over " + max + " bytes");
        }
        throw incomplete(what + " cut short");
    }

    private static List<String> values(List<String[]> fields, String name) {
        List<String> vs = new ArrayList<>();
        for (String[] f : fields) {
            if (f[0].equalsIgnoreCase(name)) {
                vs.add(f[1]);
            }
        }
        return vs;
    }

    static boolean isToken(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
