package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.secret.PrivateFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The real {@link LogFiles}: segment {@code id} is the file {@code <16 hex digits of id>.log} in the
 * data directory, created owner-only. Thread-safe as {@link LogFiles} says.
 */
final class DirectoryLogFiles implements LogFiles {
    static final String SUFFIX = ".log";

    private final Path directory;

    DirectoryLogFiles(Path directory) {
        this.directory = directory;
    }

    static String name(long id) {
        return String.format("%016x%s", id, SUFFIX);
    }

    @Override
    public List<Long> list() throws IOException {
        List<Long> ids = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*" + SUFFIX)) {
            for (Path f : files) {
                String n = f.getFileName().toString();
                String hex = n.substring(0, n.length() - SUFFIX.length());
                if (hex.length() == 16 && hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                    ids.add(Long.parseUnsignedLong(hex, 16));
                }
            }
        }
        Collections.sort(ids);
        return ids;
    }

    @Override
    public Segment open(long id) throws IOException {
        Path file = directory.resolve(name(id));
        if (!Files.exists(file)) {
            PrivateFiles.privateFile(file);
        }
        return new FileSegment(FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE));
    }

    @Override
    public void delete(long id) throws IOException {
        try {
            Files.delete(directory.resolve(name(id)));
        } catch (NoSuchFileException e) {
            // already gone
        }
    }

    @Override
    public void syncDirectory() throws IOException {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // some file systems refuse to open a directory; the segments' own force still holds
        }
    }

    @Override
    public void close() {
    }

    private static final class FileSegment implements Segment {
        private final FileChannel channel;
        private long size;

        FileSegment(FileChannel channel) throws IOException {
            this.channel = channel;
            this.size = channel.size();
        }

        @Override
        public long size() {
            return size;
        }

        @Override
        public void append(ByteBuffer src) throws IOException {
            while (src.hasRemaining()) {
                size += channel.write(src, size);
            }
        }

        @Override
        public int read(long position, ByteBuffer dst) throws IOException {
            int n = 0;
            while (dst.hasRemaining()) {
                int r = channel.read(dst, position + n);
                if (r < 0) {
                    break;
                }
                n += r;
            }
            return n;
        }

        @Override
        public void force() throws IOException {
            channel.force(false);
        }

        @Override
        public void truncate(long newSize) throws IOException {
            channel.truncate(newSize);
            size = newSize;
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
