/**
 * Pure idempotency-key logic (docs/configuration.md, docs/idempotency.md): resolving the client's, a derived or a generated
 * key ({@link dev.idemproxy.core.idempotency.KeyResolver}), the principal's
 * {@link dev.idemproxy.core.idempotency.Scope}, the payload
 * {@link dev.idemproxy.core.idempotency.Fingerprint} over canonical JSON, and JSON pointers. It
 * reads requests through {@link dev.idemproxy.core.idempotency.RequestView}, never a Netty type.
 * Values are non-null unless a parameter's Javadoc says otherwise.
 */
package dev.idemproxy.core.idempotency;
