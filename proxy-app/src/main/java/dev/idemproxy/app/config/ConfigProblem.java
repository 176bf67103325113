package dev.idemproxy.app.config;

import static java.util.Objects.requireNonNull;

/**
 * One thing wrong with a config file, rendered as {@code FILE:LINE:COL: path.to.key: message}.
 * Line and column are 1-based; 0 when the problem has no position (the file could not be read).
 * The path is empty for problems of the whole document (YAML syntax errors). This class is immutable.
 *
 * @param file    the config file as the user named it
 * @param path    dotted key path with list indexes, such as {@code routes[0].retry.maxAttempts}
 * @param message what is wrong, in the {@code got (expected: …)} style
 */
public record ConfigProblem(String file, int line, int column, String path, String message) {

    public ConfigProblem {
        requireNonNull(file, "file");
        requireNonNull(path, "path");
        requireNonNull(message, "message");
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(file);
        if (line > 0) {
            sb.append(':').append(line).append(':').append(column);
        }
        sb.append(": ");
        if (!path.isEmpty()) {
            sb.append(path).append(": ");
        }
        return sb.append(message).toString();
    }
}
