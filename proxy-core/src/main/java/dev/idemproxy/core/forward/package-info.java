/**
 * The forward proxy (CONTRACT §11, YAML {@code forwardProxy}): CONNECT answered by a blind tunnel,
 * a 403, or an interception that terminates the client's TLS with a certificate of the local CA
 * ({@link dev.idemproxy.core.forward.LocalCa}, BouncyCastle) so that the routes apply to the
 * requests inside. Loaded only when configured. Values are non-null unless a parameter's Javadoc
 * says otherwise.
 */
package dev.idemproxy.core.forward;
