package dev.idemproxy.app.packaging;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code .Values} paths a Helm template reads, found without Helm: {@code .Values.a.b} in
 * every action, and inside {@code {{ with .Values.a }}} the paths relative to it ({@code .b} is
 * {@code a.b}). Comments and string literals are skipped; inside {@code range} (whose {@code .}
 * is an item) relative paths are not followed. Enough for this chart's templates, not a Go
 * template parser. Stateless.
 */
final class TemplateValueRefs {
    private static final Pattern ACTION = Pattern.compile("\\{\\{-?\\s*(.*?)\\s*-?}}", Pattern.DOTALL);
    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`");
    private static final Pattern ABSOLUTE = Pattern.compile("(?<![\\w$)\\]])\\.Values((?:\\.\\w+)+)");
    private static final Pattern RELATIVE = Pattern.compile("(?<![\\w$.)\\]])\\.(\\w+(?:\\.\\w+)*)");
    private static final Pattern WITH_VALUES = Pattern.compile("^with\\s+\\.Values((?:\\.\\w+)+)\\s*$");
    private static final Set<String> OPENERS = Set.of("if", "with", "range", "define", "block");
    /** Context of a block: the Values path its {@code .} stands for; ROOT for the chart's root; null when unknown. */
    private static final String ROOT = "";

    private TemplateValueRefs() {
    }

    /** Every {@code .Values} path {@code template} reads, dot-separated ({@code probes.startup.enabled}). */
    static Set<String> of(String template) {
        Set<String> paths = new TreeSet<>();
        Deque<Frame> frames = new ArrayDeque<>();
        frames.push(new Frame("root", ROOT, ROOT));
        Matcher m = ACTION.matcher(template);
        while (m.find()) {
            String action = m.group(1);
            if (action.startsWith("/*")) {
                continue;
            }
            String code = STRING.matcher(action).replaceAll("\"\"");
            String keyword = code.split("[\\s(]", 2)[0];
            String context = frames.peek().context;
            collect(code, context, paths);
            if (OPENERS.contains(keyword)) {
                Matcher with = WITH_VALUES.matcher(code);
                String inner = keyword.equals("range") ? null
                        : keyword.equals("with") ? (with.matches() ? with.group(1).substring(1) : null)
                        : keyword.equals("define") || keyword.equals("block") ? ROOT : context;
                frames.push(new Frame(keyword, context, inner));
            } else if (keyword.equals("else")) {
                Frame f = frames.peek();
                if (f.keyword.equals("with")) {
                    f.context = f.outer;  // the else branch of a with runs in the outer context
                }
            } else if (keyword.equals("end")) {
                if (frames.size() == 1) {
                    throw new IllegalArgumentException("unbalanced {{ end }} at offset " + m.start());
                }
                frames.pop();
            }
        }
        if (frames.size() != 1) {
            throw new IllegalArgumentException("unclosed block: " + frames.peek().keyword);
        }
        return paths;
    }

    private static void collect(String code, String context, Set<String> paths) {
        Matcher abs = ABSOLUTE.matcher(code);
        while (abs.find()) {
            paths.add(abs.group(1).substring(1));
        }
        if (context == null || context.equals(ROOT)) {
            return;  // at the root, relative names are .Values, .Release, .Chart, …: the absolute ones are all there is
        }
        Matcher rel = RELATIVE.matcher(code);
        while (rel.find()) {
            if (!rel.group(1).startsWith("Values")) {
                paths.add(context + "." + rel.group(1));
            }
        }
    }

    /** {@code path} as the list of its keys. */
    static List<String> keys(String path) {
        return new ArrayList<>(List.of(path.split("\\.")));
    }

    private static final class Frame {
        final String keyword;
        final String outer;
        String context;

        Frame(String keyword, String outer, String context) {
            this.keyword = keyword;
            this.outer = outer;
            this.context = context;
        }
    }
}
