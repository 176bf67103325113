package dev.idemproxy.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The package dependency graph of a source tree, read from the sources' imports and qualified
 * names of the project's own classes, and its cycles (strongly connected components of more than
 * one package). Comments and string literals are left out.
 */
public final class PackageGraph {
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);

    private final Map<String, Set<String>> edges = new TreeMap<>();

    private PackageGraph() {}

    /** Reads every {@code .java} file under {@code root}; {@code prefix} names the project's own packages. */
    public static PackageGraph of(Path root, String prefix) {
        PackageGraph g = new PackageGraph();
        Pattern ref = Pattern.compile("(" + Pattern.quote(prefix) + "(?:\\.[a-z]\\w*)*)\\.[A-Z]");
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
                String src = Files.readString(f);
                Matcher pm = PACKAGE.matcher(src);
                if (!pm.find()) {
                    continue;
                }
                String pkg = pm.group(1);
                Set<String> to = g.edges.computeIfAbsent(pkg, k -> new TreeSet<>());
                Matcher m = ref.matcher(code(src));
                while (m.find()) {
                    if (!m.group(1).equals(pkg)) {
                        to.add(m.group(1));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return g;
    }

    /** The source without its comments, string and character literals. */
    static String code(String src) {
        StringBuilder b = new StringBuilder(src.length());
        int i = 0;
        int n = src.length();
        while (i < n) {
            char c = src.charAt(i);
            if (c == '/' && i + 1 < n && src.charAt(i + 1) == '*') {
                int end = src.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
                b.append(' ');
            } else if (c == '/' && i + 1 < n && src.charAt(i + 1) == '/') {
                int end = src.indexOf('\n', i);
                i = end < 0 ? n : end;
            } else if (c == '"' || c == '\'') {
                i++;
                while (i < n && src.charAt(i) != c) {
                    i += src.charAt(i) == '\\' ? 2 : 1;
                }
                i++;
                b.append(' ');
            } else {
                b.append(c);
                i++;
            }
        }
        return b.toString();
    }

    /** Each cycle as the packages in it, each with the packages of the cycle it depends on. */
    public List<Map<String, Set<String>>> cycles() {
        List<Map<String, Set<String>>> out = new ArrayList<>();
        for (Set<String> comp : components()) {
            if (comp.size() < 2) {
                continue;
            }
            Map<String, Set<String>> c = new TreeMap<>();
            for (String p : comp) {
                Set<String> in = new TreeSet<>(edges.getOrDefault(p, Set.of()));
                in.retainAll(comp);
                c.put(p, in);
            }
            out.add(c);
        }
        return out;
    }

    /** Tarjan's strongly connected components. */
    private List<Set<String>> components() {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> result = new ArrayList<>();
        int[] counter = {0};
        for (String v : edges.keySet()) {
            if (!index.containsKey(v)) {
                connect(v, index, low, stack, onStack, result, counter);
            }
        }
        return result;
    }

    private void connect(String v, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
            Set<String> onStack, List<Set<String>> result, int[] counter) {
        index.put(v, counter[0]);
        low.put(v, counter[0]++);
        stack.push(v);
        onStack.add(v);
        for (String w : edges.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                connect(w, index, low, stack, onStack, result, counter);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> comp = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                comp.add(w);
            } while (!w.equals(v));
            result.add(comp);
        }
    }
}
