package dev.idemproxy.app.wiring;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the config file's directory and calls back when the file's bytes change. Any event
 * in the directory triggers a content check, so Kubernetes ConfigMap updates (an atomic
 * symlink swap that never touches the file's own name) are seen too. Runs on a daemon thread
 * of its own. This class is thread-safe.
 */
public final class ConfigWatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConfigWatcher.class);
    private static final long SETTLE_MILLIS = 150;

    private final Path file;
    private final Runnable onChange;
    private final WatchService watch;
    private final Thread thread;
    private byte[] lastDigest;

    public ConfigWatcher(Path file, Runnable onChange) throws IOException {
        this.file = file.toAbsolutePath();
        this.onChange = onChange;
        this.watch = FileSystems.getDefault().newWatchService();
        this.file.getParent().register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                StandardWatchEventKinds.ENTRY_DELETE);
        this.lastDigest = digest();
        this.thread = new Thread(this::loop, "idemproxy-config-watch");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void loop() {
        try {
            while (true) {
                WatchKey key = watch.take();
                // Let a burst of events (editor save, symlink swap) settle, then look once.
                WatchKey more;
                do {
                    key.pollEvents();
                    key.reset();
                    more = watch.poll(SETTLE_MILLIS, TimeUnit.MILLISECONDS);
                    if (more != null) {
                        key = more;
                    }
                } while (more != null);
                byte[] now = digest();
                if (now != null && !Arrays.equals(now, lastDigest)) {
                    lastDigest = now;
                    LOG.info("config file {} changed; reloading", file);
                    onChange.run();
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closed
        }
    }

    private byte[] digest() {
        try {
            return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
        } catch (IOException e) {
            return null;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        try {
            watch.close();
        } catch (IOException e) {
            LOG.debug("closing the config watch: {}", e.toString());
        }
        thread.interrupt();
    }
}
