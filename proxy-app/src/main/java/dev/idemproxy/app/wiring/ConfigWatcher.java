package dev.idemproxy.app.wiring;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the config file's directory and calls back when the file's bytes change. An event for
 * the file's own name, or for a name starting with {@code ..} (how a Kubernetes ConfigMap update
 * swaps its {@code ..data} symlink without touching the file's name), or a lost-events overflow,
 * triggers a content check; events for other files in the directory (a log file written beside
 * the config, say) are ignored without reading anything. Runs on a daemon thread of its own.
 * This class is thread-safe.
 */
public final class ConfigWatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConfigWatcher.class);
    private static final long SETTLE_MILLIS = 150;

    private final Path file;
    private final Runnable onChange;
    private final WatchService watch;
    private final Thread thread;
    private byte[] lastDigest;
    /** How many times the file was read and hashed since the start; for tests. */
    private final AtomicInteger contentChecks = new AtomicInteger();

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
                if (!concernsConfig(key)) {
                    continue;
                }
                // Let a burst of events (editor save, symlink swap) settle, then look once.
                WatchKey more;
                while ((more = watch.poll(SETTLE_MILLIS, TimeUnit.MILLISECONDS)) != null) {
                    more.pollEvents();
                    more.reset();
                }
                contentChecks.incrementAndGet();
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

    /** Takes the key's events and re-arms it; true when one of them may have changed the config file. */
    private boolean concernsConfig(WatchKey key) {
        boolean concerns = false;
        for (WatchEvent<?> event : key.pollEvents()) {
            if (event.kind() == StandardWatchEventKinds.OVERFLOW || !(event.context() instanceof Path)) {
                concerns = true;
                continue;
            }
            String name = event.context().toString();
            concerns |= name.equals(file.getFileName().toString()) || name.startsWith("..");
        }
        key.reset();
        return concerns;
    }

    int contentChecks() {
        return contentChecks.get();
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
