package dev.idemproxy.core.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoop;
import io.netty.resolver.AddressResolver;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Redis host names resolve off the loop, literals too; an unknown name fails as the JDK says. */
class OffLoopAddressResolverGroupTest {
    @Test
    void namesResolveOnTheLookupThreadLiteralsAtOnceAndUnknownNamesFail() throws Exception {
        DefaultEventLoop loop = new DefaultEventLoop();
        OffLoopAddressResolverGroup group = new OffLoopAddressResolverGroup();
        try {
            AddressResolver<InetSocketAddress> resolver = group.getResolver(loop);

            Future<InetSocketAddress> literal = resolver.resolve(InetSocketAddress.createUnresolved("127.0.0.1", 6379));
            assertThat(literal.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(literal.getNow().getAddress().isLoopbackAddress()).isTrue();

            Future<InetSocketAddress> named = resolver.resolve(InetSocketAddress.createUnresolved("localhost", 6380));
            assertThat(named.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(named.getNow().getAddress().isLoopbackAddress()).isTrue();
            assertThat(named.getNow().getPort()).isEqualTo(6380);

            Future<InetSocketAddress> unknown = resolver.resolve(InetSocketAddress.createUnresolved("no-such-host.invalid", 6379));
            assertThat(unknown.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(unknown.cause()).isInstanceOf(UnknownHostException.class);
        } finally {
            group.close();
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }
}
