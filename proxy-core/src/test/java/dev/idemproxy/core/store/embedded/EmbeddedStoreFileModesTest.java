package dev.idemproxy.core.store.embedded;

import dev.idemproxy.core.store.Stores;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idemproxy.core.secret.PrivateFiles;
import dev.idemproxy.core.store.Receipt;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** docs/security.md "Files" for the embedded store: its directory 0700 and its file 0600, new or already there. */
class EmbeddedStoreFileModesTest {
    @TempDir
    Path tmp;

    @BeforeEach
    void posixOnly() throws Exception {
        assumeTrue(PrivateFiles.supportsPosix(tmp), "the temp directory's file system has no POSIX permissions");
    }

    @Test
    void aNewDataDirectoryAndItsStoreFileAreOwnerOnly() throws Exception {
        Path dir = tmp.resolve("idemproxy-data");
        try (Stores store = EmbeddedStore.open(dir, Clock.systemUTC())) {
            writeSomething(store);
        }
        assertThat(mode(dir)).isEqualTo("rwx------");
        assertThat(mode(dir.resolve(EmbeddedStore.LOCK_NAME))).isEqualTo("rw-------");
    }

    @Test
    void anExistingDataDirectoryWithOpenModesIsMadeOwnerOnlyAndItsRecordsKept() throws Exception {
        Path dir = tmp.resolve("idemproxy-data");
        String key;
        try (Stores store = EmbeddedStore.open(dir, Clock.systemUTC())) {
            key = writeSomething(store);
        }
        Path sub = Files.createDirectory(dir.resolve("ca"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(sub, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setPosixFilePermissions(dir.resolve(EmbeddedStore.LOCK_NAME), PosixFilePermissions.fromString("rw-r--r--"));

        try (Stores store = EmbeddedStore.open(dir, Clock.systemUTC())) {
            assertThat(store.receipts().receipt(key).toCompletableFuture().get()).isPresent();
        }

        assertThat(mode(dir)).isEqualTo("rwx------");
        assertThat(mode(sub)).isEqualTo("rwx------");
        assertThat(mode(dir.resolve(EmbeddedStore.LOCK_NAME))).isEqualTo("rw-------");
    }

    private static String writeSomething(Stores store) throws Exception {
        Receipt r = new Receipt("call-1", "order-1", "k-1", "orders", "SUCCESS", null, 201, 1, Instant.now(), Instant.now());
        store.receipts().putReceipt(r, Duration.ofHours(1)).toCompletableFuture().get();
        return r.callId();
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }
}
