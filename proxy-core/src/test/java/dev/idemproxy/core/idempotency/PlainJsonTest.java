package dev.idemproxy.core.idempotency;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The plain-JSON shortcut gives exactly what the full parser gives: on hand-picked edge cases,
 * on random documents in and around the plain subset, and on random mutations of them (which
 * must fall back whenever the shortcut is not sure).
 */
class PlainJsonTest {
    private static final String[] EDGES = {
        "{\"userId\":42,\"op\":\"create\"}",
        "  { \"b\" : [ 1 , 2 ,3 ], \"a\" : { \"z\" : null , \"y\" : true } , \"c\" : false }\n",
        "{}", "[]", "[{}]", "{\"a\":[]}", "42", "-0", "0", "-5", "\"s\"", "true", "null", "false",
        "01", "-", "1.0", "1e5", "1E+2", "10", "100", "123456789012345678", "1234567890123456789",
        "-123456789012345678", "{\"a\":1,\"a\":2}", "{\"a\":1,}", "[1,]", "{\"a\" 1}", "{\"a\":1}}",
        "\uFEFF{\"a\":1}", "{\"a\":\"\\n\"}", "{\"a\":\"\u00e9\"}", "{\"a\":\"x\u007fy\"}", "{\"a\":\"tab\there\"}",
        "{\"\":1}", "{\"a\":1} x", "[1 2]", "tru", "truex", "[true,false,null]", "nul", " ", "",
        "{\"A\":1,\"a\":2,\"_\":3,\"0\":4}", "{\"ab\":1,\"a\":2}", "[-0,-0]", "{\"a\":-0}",
        "{\"x\":1}\u0000", "[\"a\",\"b\"]", "{\"k\":\"" + "v".repeat(999) + "\"}",
        "{\"k\":\"" + "v".repeat(1000) + "\"}", "{\"k\":\"" + "v".repeat(2000) + "\"}",
        "{\"" + "k".repeat(60_000) + "\":1}", "[".repeat(70) + "]".repeat(70), "[".repeat(60) + "]".repeat(60),
        "{\"a\":[1,{\"b\":[2,{\"c\":3}]}]}", "/* c */ {}", "{'a':1}", "{a:1}", "NaN", "[1,\r\n\t2]",
    };

    @Test
    void edgeCasesGiveWhatTheFullParserGives() {
        for (String doc : EDGES) {
            assertSame(doc.getBytes(UTF_8));
        }
    }

    @Test
    void theCommonShapesTakeTheShortcut() {
        assertThat(new String(PlainJson.canonical("{\"userId\":42,\"op\":\"create\"}".getBytes(UTF_8)), UTF_8))
                .isEqualTo("{\"op\":\"create\",\"userId\":42}");
        assertThat(new String(PlainJson.canonical(" [ -0 , {\"b\":1, \"a\" : [ ] } ] ".getBytes(UTF_8)), UTF_8))
                .isEqualTo("[0,{\"a\":[],\"b\":1}]");
        assertThat(PlainJson.canonical("{\"a\":1.5}".getBytes(UTF_8))).as("a fraction: the full parser").isNull();
        assertThat(PlainJson.canonical("{\"a\":\"\\u0041\"}".getBytes(UTF_8))).as("an escape: the full parser").isNull();
    }

    @Test
    void randomDocumentsAndTheirMutationsGiveWhatTheFullParserGives() {
        Random random = new Random(20261201L);
        int plain = 0;
        for (int i = 0; i < 20_000; i++) {
            StringBuilder sb = new StringBuilder();
            value(random, sb, 0);
            byte[] doc = sb.toString().getBytes(UTF_8);
            if (PlainJson.canonical(doc) != null) {
                plain++;
            }
            assertSame(doc);
            for (int m = 0; m < 3; m++) {
                assertSame(mutate(random, doc));
            }
        }
        assertThat(plain).as("documents that took the shortcut").isGreaterThan(5_000);
    }

    @Test
    void objectsOfEverySizeHaveTheirNamesInTheFullParsersOrder() {
        // up to 16 names are sorted by insertion, more by Arrays.sort: both must give one order
        Random random = new Random(1712);
        String[] names = {"a", "b", "ab", "A", "id", "userId", "op", "z", "_x", "0", "", "a b"};  // no escapes: the shortcut's
        for (int n = 0; n <= 40; n++) {
            for (int round = 0; round < 20; round++) {
                StringBuilder sb = new StringBuilder("{");
                java.util.Set<String> used = new java.util.HashSet<>();
                for (int i = 0; i < n; i++) {
                    String name = names[random.nextInt(names.length)] + random.nextInt(n * 3 + 1);
                    if (round % 4 != 0) {  // one round in four may repeat a name: not JSON the parser accepts
                        while (!used.add(name)) {
                            name = name + "x";
                        }
                    }
                    sb.append(i > 0 ? "," : "").append('"').append(name).append("\":").append(random.nextInt(100));
                }
                byte[] doc = sb.append('}').toString().getBytes(UTF_8);
                assertSame(doc);
                if (round % 4 != 0) {
                    assertThat(PlainJson.canonical(doc)).as("%d distinct names", n).isNotNull();
                }
            }
        }
    }

    private static void assertSame(byte[] doc) {
        Optional<byte[]> fast = CanonicalJson.canonicalize(doc);
        Optional<byte[]> full = CanonicalJson.canonicalizeFully(doc);
        String shown = new String(doc, UTF_8);
        assertThat(fast.isPresent()).as("is JSON: %s", shown.length() > 200 ? shown.substring(0, 200) + "…" : shown)
                .isEqualTo(full.isPresent());
        if (full.isPresent()) {
            assertThat(new String(fast.get(), UTF_8)).as("canonical form of %s", shown.length() > 200 ? shown.substring(0, 200) : shown)
                    .isEqualTo(new String(full.get(), UTF_8));
        }
    }

    private static final String[] NAMES = {"a", "b", "ab", "A", "id", "userId", "op", "z", "_x", "0", "", "a b", "é", "k\\n"};
    private static final String[] STRINGS = {"", "x", "create", "hello world", "a/b", "<>", "\\\"", "\\u00e9", "é", "tab\\t",
        "x\u007f"};
    private static final String[] NUMBERS = {"0", "-0", "1", "-1", "42", "100", "1.5", "1.0", "1e3", "-2E-2", "007",
        "123456789012345678", "99999999999999999999"};
    private static final String[] SPACE = {"", "", "", " ", "\n", "\t", " \r\n "};

    private static void value(Random r, StringBuilder sb, int depth) {
        int kind = depth > 4 ? 2 + r.nextInt(4) : r.nextInt(6);
        switch (kind) {
            case 0 -> {
                sb.append('{').append(space(r));
                int n = r.nextInt(5);
                for (int i = 0; i < n; i++) {
                    if (i > 0) {
                        sb.append(',').append(space(r));
                    }
                    sb.append('"').append(NAMES[r.nextInt(NAMES.length)]).append('"').append(space(r)).append(':').append(space(r));
                    value(r, sb, depth + 1);
                    sb.append(space(r));
                }
                sb.append('}');
            }
            case 1 -> {
                sb.append('[').append(space(r));
                int n = r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    if (i > 0) {
                        sb.append(',').append(space(r));
                    }
                    value(r, sb, depth + 1);
                    sb.append(space(r));
                }
                sb.append(']');
            }
            case 2 -> sb.append('"').append(STRINGS[r.nextInt(STRINGS.length)]).append('"');
            case 3 -> sb.append(NUMBERS[r.nextInt(NUMBERS.length)]);
            case 4 -> sb.append(new String[] {"true", "false", "null"}[r.nextInt(3)]);
            default -> sb.append(r.nextInt(1000));
        }
    }

    private static String space(Random r) {
        return SPACE[r.nextInt(SPACE.length)];
    }

    private static final byte[] ALPHABET = "{}[]\":,-0123456789.eE truefalsnl\\/\t\n\r\u007f".getBytes(UTF_8);

    private static byte[] mutate(Random r, byte[] doc) {
        List<Byte> b = new ArrayList<>();
        for (byte x : doc) {
            b.add(x);
        }
        int edits = 1 + r.nextInt(3);
        for (int e = 0; e < edits; e++) {
            int at = b.isEmpty() ? 0 : r.nextInt(b.size() + 1);
            byte c = r.nextInt(20) == 0 ? (byte) (0x80 + r.nextInt(0x80)) : ALPHABET[r.nextInt(ALPHABET.length)];
            switch (r.nextInt(3)) {
                case 0 -> b.add(at, c);
                case 1 -> {
                    if (at < b.size()) {
                        b.remove(at);
                    }
                }
                default -> {
                    if (at < b.size()) {
                        b.set(at, c);
                    } else {
                        b.add(c);
                    }
                }
            }
        }
        byte[] out = new byte[b.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = b.get(i);
        }
        return out;
    }
}
