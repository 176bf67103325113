package dev.idemproxy.app.config;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.ProxyConfig;
import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Loads a YAML config file (docs/configuration.md) onto {@link ProxyConfig}, reporting every problem at
 * once as {@code FILE:LINE:COL: path.to.key: message}. {@code ${NAME}} and {@code ${NAME:-default}}
 * are expanded in values. This class is immutable and thread-safe.
 */
public final class YamlConfigLoader {
    private final Function<String, String> env;

    /** A loader that expands variables from the process environment. */
    public YamlConfigLoader() {
        this(System::getenv);
    }

    /** @param env looks an environment variable up; returns null when it is unset */
    public YamlConfigLoader(Function<String, String> env) {
        this.env = requireNonNull(env, "env");
    }

    /**
     * Reads and checks {@code file}. An empty file, or one with only comments, is {@link ProxyConfig#empty()}.
     *
     * @throws InvalidConfigException with every problem found, or the single line
     *         {@code FILE: cannot read: reason} when the file cannot be read
     */
    public ProxyConfig load(Path file) throws InvalidConfigException {
        requireNonNull(file, "file");
        Problems problems = new Problems(file.toString());
        String text;
        try {
            text = read(file);
        } catch (IOException e) {
            problems.addUnpositioned("cannot read: " + reason(e));
            throw new InvalidConfigException(problems.inDocumentOrder());
        }
        Path baseDir = file.getParent() != null ? file.getParent() : Path.of("");
        return parse(text, new Reading(problems, new EnvExpander(env), baseDir));
    }

    /** Loads config text; {@code file} names it in problems, relative paths resolve against {@code baseDir}. */
    ProxyConfig parse(String text, String file, Path baseDir) throws InvalidConfigException {
        return parse(text, new Reading(new Problems(file), new EnvExpander(env), baseDir));
    }

    /** Every key path the loader knows, list items as {@code []}: {@code routes[].retry.maxAttempts}. */
    public static List<String> knownKeyPaths() {
        return ConfigSchema.keyPaths();
    }

    private ProxyConfig parse(String text, Reading reading) throws InvalidConfigException {
        Problems problems = reading.problems();
        Node root = compose(text, problems);
        if (problems.isEmpty() && Reading.isNullNode(root)) {
            return ProxyConfig.empty();
        }
        ProxyConfig config = problems.isEmpty() ? ConfigReader.read(MapReader.root(reading, root)) : null;
        if (config == null || !problems.isEmpty()) {
            throw new InvalidConfigException(problems.inDocumentOrder());
        }
        return config;
    }

    /** The document's node tree with positions; null when empty or when it is not valid YAML (reported). */
    private static Node compose(String text, Problems problems) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(true);
        options.setProcessComments(false);
        try {
            return new Yaml(options).compose(new StringReader(text));
        } catch (MarkedYAMLException e) {
            Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            problems.add(mark, "", "YAML syntax error: " + syntaxMessage(e));
        } catch (YAMLException e) {
            problems.add((Mark) null, "", "YAML syntax error: " + e.getMessage());
        }
        return null;
    }

    private static String syntaxMessage(MarkedYAMLException e) {
        String problem = e.getProblem() == null ? "invalid YAML" : e.getProblem().trim();
        if (e.getContext() == null || e.getContextMark() == null || e.getProblemMark() == null) {
            return problem;
        }
        Mark c = e.getContextMark();
        return problem + " (" + e.getContext().trim() + " at " + (c.getLine() + 1) + ":" + (c.getColumn() + 1) + ")";
    }

    private static String read(Path file) throws IOException {
        if (Files.isDirectory(file)) {
            throw new IOException("is a directory");
        }
        byte[] bytes = Files.readAllBytes(file);
        try {
            String text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
            return text.startsWith("\uFEFF") ? text.substring(1) : text;
        } catch (CharacterCodingException e) {
            throw new IOException("not UTF-8 text", e);
        }
    }

    /** A short reason for a read failure, without the file name the line already starts with. */
    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }
}
