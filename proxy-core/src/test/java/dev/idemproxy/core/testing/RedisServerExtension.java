package dev.idemproxy.core.testing;

import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A private redis-server for one test class: started before its first test, stopped after its
 * last. Register it in a static field with {@code @RegisterExtension}; a subclass gets a server of
 * its own. Not thread-safe: test classes that share one run one after another.
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback {
    private final Supplier<RedisServerFixture> start;
    private RedisServerFixture server;

    public RedisServerExtension(Supplier<RedisServerFixture> start) {
        this.start = start;
    }

    /** A standalone server with the fixture's defaults. */
    public static RedisServerExtension standalone() {
        return new RedisServerExtension(RedisServerFixture::startStandalone);
    }

    public RedisServerFixture server() {
        return server;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server = start.get();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (server != null) {
            server.close();
            server = null;
        }
    }
}
