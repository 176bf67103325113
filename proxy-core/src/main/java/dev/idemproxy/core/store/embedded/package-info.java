/**
 * The embedded store backend: H2 MVStore in one file under the data directory, one process per
 * directory, every operation on one dedicated store thread with group commit.
 * {@link dev.idemproxy.core.store.embedded.EmbeddedStore} opens it and hands out its four stores.
 */
package dev.idemproxy.core.store.embedded;
