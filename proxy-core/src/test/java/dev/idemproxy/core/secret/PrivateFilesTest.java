package dev.idemproxy.core.secret;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateFilesTest {
    @TempDir
    Path tmp;

    @BeforeEach
    void posixOnly() throws Exception {
        assumeTrue(PrivateFiles.supportsPosix(tmp), "the temp directory's file system has no POSIX permissions");
    }

    @Test
    void aNewDirectoryIsCreatedOwnerOnlyWithItsParents() throws Exception {
        Path dir = tmp.resolve("a/b/data");
        assertThat(PrivateFiles.secureDirectory(dir)).isEmpty();
        assertThat(mode(dir)).isEqualTo("rwx------");
    }

    @Test
    void anExistingTreeLosesItsGroupAndOtherBitsAndLinksAreNotFollowed() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("data"));
        Path sub = Files.createDirectory(dir.resolve("sub"));
        Path file = Files.writeString(dir.resolve("store.db"), "x");
        Path deep = Files.writeString(sub.resolve("ca.key"), "k");
        Path outside = Files.writeString(tmp.resolve("outside"), "o");
        Files.createSymbolicLink(dir.resolve("link"), outside);
        chmod(dir, "rwxr-xr-x");
        chmod(sub, "rwxrwxr-x");
        chmod(file, "rw-r--r--");
        chmod(deep, "rwxrw-rw-");
        chmod(outside, "rw-rw-rw-");

        assertThat(PrivateFiles.secureDirectory(dir)).isEmpty();

        assertThat(mode(dir)).isEqualTo("rwx------");
        assertThat(mode(sub)).isEqualTo("rwx------");
        assertThat(mode(file)).isEqualTo("rw-------");
        assertThat(mode(deep)).isEqualTo("rwx------");  // owner bits are the owner's
        assertThat(mode(outside)).isEqualTo("rw-rw-rw-");
    }

    @Test
    void aPrivateFileIsCreated0600OrLosesItsGroupAndOtherBits() throws Exception {
        Path created = tmp.resolve("new.db");
        assertThat(PrivateFiles.privateFile(created)).isEmpty();
        assertThat(mode(created)).isEqualTo("rw-------");
        assertThat(Files.size(created)).isZero();

        Path existing = Files.writeString(tmp.resolve("old.db"), "data");
        chmod(existing, "rw-rw-r--");
        assertThat(PrivateFiles.privateFile(existing)).isEmpty();
        assertThat(mode(existing)).isEqualTo("rw-------");
        assertThat(Files.readString(existing)).isEqualTo("data");
    }

    @Test
    void aDirectoryThatIsALinkHasItsTargetSecured() throws Exception {
        Path target = Files.createDirectory(tmp.resolve("real"));
        chmod(target, "rwxr-xr-x");
        Path link = Files.createSymbolicLink(tmp.resolve("data"), target);
        assertThat(PrivateFiles.secureDirectory(link)).isEmpty();
        assertThat(mode(target)).isEqualTo("rwx------");
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    private static void chmod(Path p, String mode) throws Exception {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
    }
}
