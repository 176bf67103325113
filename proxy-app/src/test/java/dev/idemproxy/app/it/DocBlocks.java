package dev.idemproxy.app.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The fenced code blocks of the repository's Markdown (README.md, docs/*.md), for the tests that
 * run what the docs say. A block keeps its file, the line its first line is on, its language
 * ({@code sh}, {@code text}, or empty) and the heading it sits under. This class is stateless.
 */
final class DocBlocks {
    /** The clone's root, from the module folder the tests run in. */
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private DocBlocks() {}

    /** One fenced block: {@code lines.get(i)} is on line {@code firstLine + i} of {@code file}. */
    record Block(Path file, int firstLine, String language, String heading, List<String> lines) {
        String where(int index) {
            return ROOT.relativize(file) + ":" + (firstLine + index);
        }
    }

    /** README.md and every docs/*.md, in name order. */
    static List<Path> markdownFiles() {
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    static List<Block> of(Path file) {
        List<String> all;
        try {
            all = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Block> blocks = new ArrayList<>();
        String heading = "";
        for (int i = 0; i < all.size(); i++) {
            String line = all.get(i);
            if (line.startsWith("#")) {
                heading = line.replaceFirst("^#+\\s*", "");
            }
            String trimmed = line.strip();
            if (!trimmed.startsWith("```")) {
                continue;
            }
            String language = trimmed.substring(3).strip();
            List<String> lines = new ArrayList<>();
            int first = i + 2;
            for (i++; i < all.size() && !all.get(i).strip().startsWith("```"); i++) {
                lines.add(all.get(i));
            }
            blocks.add(new Block(file, first, language, heading, lines));
        }
        return blocks;
    }

    /** The blocks of every Markdown file. */
    static List<Block> all() {
        List<Block> blocks = new ArrayList<>();
        markdownFiles().forEach(f -> blocks.addAll(of(f)));
        return blocks;
    }
}
