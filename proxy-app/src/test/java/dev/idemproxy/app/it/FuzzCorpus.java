package dev.idemproxy.app.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The hand-written fuzz corpus under {@code src/test/resources/fuzz/corpus/*.http}. A file is
 * metadata lines, then the request:
 *
 * <pre>
 * # A one-line description
 * # expect: MUST_REJECT          (or MAY_ACCEPT)
 * # status: 400                  (optional: the exact status required)
 * # close: true                  (optional: the proxy must close the connection after answering)
 * # closeOk: true                (optional: closing without any response also passes)
 * # shutdown: true               (optional: the client half-closes after sending)
 * POST {{path}} HTTP/1.1\r\n
 * Host: a\r\n
 * Content-Length: {{cl}}\r\n
 * \r\n
 * {{smuggled}}
 * </pre>
 *
 * The newlines of the file are not part of the request: write {@code \r\n}. Escapes: {@code \r
 * \n \t \0 \\ \xHH}. Macros: {@code {{path}}} the case's own path on the route under test,
 * {@code {{smuggled}}} a complete {@code GET <route>/smuggled-<case>} request (the marker the
 * upstream must never see), {@code {{N*text}}} text repeated N times, {@code {{cl}}} the number of
 * bytes after the first empty line. Stateless.
 */
final class FuzzCorpus {
    enum Expect { MUST_REJECT, MAY_ACCEPT }

    record Entry(String name, String description, Expect expect, Integer status, boolean close, boolean closeOk,
            boolean shutdown, String template) {
        /** The request bytes for this entry on the route under {@code routePrefix}, as case {@code id}. */
        byte[] bytes(String routePrefix, String id) {
            String s = template.replace("{{path}}", routePrefix + id)
                    .replace("{{smuggled}}", FuzzMutator.smuggledRequest(routePrefix, id));
            Matcher m = REPEAT.matcher(s);
            StringBuilder sb = new StringBuilder();
            while (m.find()) {
                m.appendReplacement(sb, Matcher.quoteReplacement(m.group(2).repeat(Integer.parseInt(m.group(1)))));
            }
            m.appendTail(sb);
            String text = unescape(sb.toString());
            int blank = text.indexOf("\r\n\r\n");
            if (text.contains("{{cl}}")) {
                int bodyLength = blank < 0 ? 0 : text.length() - blank - 4;
                text = text.replace("{{cl}}", Integer.toString(bodyLength));
            }
            return text.getBytes(StandardCharsets.ISO_8859_1);
        }
    }

    private static final Pattern REPEAT = Pattern.compile("\\{\\{(\\d+)\\*(.*?)\\}\\}");

    private FuzzCorpus() {
    }

    static List<Entry> load() {
        URL url = FuzzCorpus.class.getClassLoader().getResource("fuzz/corpus");
        if (url == null) {
            throw new IllegalStateException("fuzz/corpus is not on the test classpath");
        }
        try (Stream<Path> files = Files.list(Path.of(url.toURI()))) {
            List<Entry> out = new ArrayList<>();
            for (Path p : files.filter(f -> f.toString().endsWith(".http")).sorted().toList()) {
                out.add(parse(p.getFileName().toString(), Files.readString(p, StandardCharsets.UTF_8)));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Entry parse(String name, String file) {
        Map<String, String> meta = new HashMap<>();
        String description = "";
        StringBuilder body = new StringBuilder();
        boolean inMeta = true;
        for (String line : file.split("\n", -1)) {
            String l = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
            if (inMeta && l.startsWith("#")) {
                String c = l.substring(1).trim();
                int colon = c.indexOf(':');
                if (colon > 0 && c.substring(0, colon).matches("[a-zA-Z]+")) {
                    meta.put(c.substring(0, colon).trim(), c.substring(colon + 1).trim());
                } else if (description.isEmpty()) {
                    description = c;
                }
                continue;
            }
            inMeta = false;
            body.append(l);
        }
        String expect = meta.get("expect");
        if (expect == null) {
            throw new IllegalArgumentException(name + ": no '# expect:' line");
        }
        return new Entry(name, description, Expect.valueOf(expect),
                meta.containsKey("status") ? Integer.valueOf(meta.get("status")) : null,
                Boolean.parseBoolean(meta.get("close")), Boolean.parseBoolean(meta.get("closeOk")),
                Boolean.parseBoolean(meta.get("shutdown")), body.toString());
    }

    static String unescape(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 >= s.length()) {
                sb.append(c);
                continue;
            }
            char e = s.charAt(++i);
            switch (e) {
                case 'r' -> sb.append('\r');
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case '0' -> sb.append('\0');
                case '\\' -> sb.append('\\');
                case 'x' -> {
                    sb.append((char) Integer.parseInt(s.substring(i + 1, i + 3), 16));
                    i += 2;
                }
                default -> throw new IllegalArgumentException("unknown escape \\" + e);
            }
        }
        return sb.toString();
    }
}
