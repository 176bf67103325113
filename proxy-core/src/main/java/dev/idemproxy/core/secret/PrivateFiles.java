package dev.idemproxy.core.secret;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Owner-only files and directories (CONTRACT §12 "Files"): the data directory and every
 * directory under it have no group or other permission bits, nor does any file in it. New ones
 * are created so (0700, 0600), so they are never readable by others, not even for a moment;
 * existing ones lose those bits at start. Symbolic links are never followed below the data
 * directory. On a file system without POSIX permissions only the creation is done.
 *
 * <p>A path the process may not change (not its owner: a volume's mount point owned by root,
 * say) is not an error: it is returned, for the caller to say so, and the files the proxy
 * creates inside are still 0600. Blocking: call it at start-up. This class is stateless.
 */
public final class PrivateFiles {
    /** rwx------ */
    public static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    /** rw------- */
    public static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> GROUP_AND_OTHERS = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private PrivateFiles() {}

    /**
     * Makes {@code dir} private: creates it as 0700 when absent (missing parents with the
     * default mode), then takes the group and other bits off it and off every directory and
     * regular file under it.
     *
     * @return what could not be changed, each with the reason; empty when all is private
     * @throws IOException when {@code dir} cannot be created or walked
     */
    public static List<String> secureDirectory(Path dir) throws IOException {
        Path abs = dir.toAbsolutePath();
        if (!Files.isDirectory(abs)) {
            Path parent = abs.getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            try {
                if (supportsPosix(parent != null ? parent : abs)) {
                    Files.createDirectory(abs, PosixFilePermissions.asFileAttribute(DIRECTORY));
                } else {
                    Files.createDirectory(abs);
                }
            } catch (FileAlreadyExistsException e) {
                if (!Files.isDirectory(abs)) {
                    throw e;
                }
            }
        }
        Path root = abs.toRealPath();  // a data directory that is a link: its target is the directory
        if (!supportsPosix(root)) {
            return List.of();
        }
        List<String> unchanged = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
                restrict(d, unchanged);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) {
                if (attrs.isRegularFile()) {
                    restrict(f, unchanged);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;  // gone meanwhile
                }
                throw e;
            }
        });
        return List.copyOf(unchanged);
    }

    /**
     * Creates {@code file} empty as 0600 when absent, so that whatever writes it afterwards writes
     * a private file; takes the group and other bits off an existing one.
     *
     * @return what could not be changed, with the reason; empty when the file is private
     */
    public static List<String> privateFile(Path file) throws IOException {
        boolean posix = supportsPosix(file.toAbsolutePath().getParent());
        try {
            if (posix) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(FILE));
            } else {
                Files.createFile(file);
            }
            return List.of();
        } catch (FileAlreadyExistsException e) {
            List<String> unchanged = new ArrayList<>();
            if (posix) {
                restrict(file, unchanged);
            }
            return List.copyOf(unchanged);
        }
    }

    /** Whether {@code path}'s file system has POSIX permissions. */
    public static boolean supportsPosix(Path path) throws IOException {
        return Files.getFileStore(path).supportsFileAttributeView(PosixFileAttributeView.class);
    }

    /** Takes the group and other bits off {@code p} (a link itself is never changed); records a failure. */
    private static void restrict(Path p, List<String> unchanged) {
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
            if (perms.removeAll(GROUP_AND_OTHERS)) {
                Files.setPosixFilePermissions(p, perms);
            }
        } catch (NoSuchFileException e) {
            // gone meanwhile: nothing to keep private
        } catch (FileSystemException e) {
            unchanged.add(p + " (" + (e.getReason() != null ? e.getReason() : e.getClass().getSimpleName()) + ")");
        } catch (IOException | UnsupportedOperationException e) {
            unchanged.add(p + " (" + e + ")");
        }
    }
}
