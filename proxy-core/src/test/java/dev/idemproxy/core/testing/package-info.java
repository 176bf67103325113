/**
 * Real, mock-free test fixtures shared by proxy-core's tests and, through the test-jar, by
 * proxy-app's black-box ITs: a scriptable loopback origin ({@link dev.idemproxy.core.testing.TestUpstream}),
 * generated TLS material ({@link dev.idemproxy.core.testing.TestCertificates}), a Netty leak check
 * ({@link dev.idemproxy.core.testing.LeakDetection}), a raw-socket HTTP client
 * ({@link dev.idemproxy.core.testing.RawHttp}), {@link dev.idemproxy.core.testing.FreePorts}, a hand-advanced
 * {@link dev.idemproxy.core.testing.TestClock}, and real {@code redis-server} child processes:
 * {@link dev.idemproxy.core.testing.RedisServerFixture} (standalone, restartable) and
 * {@link dev.idemproxy.core.testing.RedisClusterFixture} (three masters).
 */
package dev.idemproxy.core.testing;
