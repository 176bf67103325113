/**
 * Real, mock-free test fixtures shared by proxy-core's tests and, through the test-jar, by
 * proxy-app's black-box ITs: a scriptable loopback origin ({@link dev.idemproxy.core.testing.TestUpstream}),
 * generated TLS material ({@link dev.idemproxy.core.testing.TestCertificates}), a Netty leak check
 * ({@link dev.idemproxy.core.testing.LeakDetection}), a raw-socket HTTP client
 * ({@link dev.idemproxy.core.testing.RawHttp}) and {@link dev.idemproxy.core.testing.FreePorts}.
 */
package dev.idemproxy.core.testing;
