/**
 * The embedded store backend: H2 MVStore in one file under the data directory, one process per
 * directory, every operation on one dedicated store thread.
 */
package dev.idemproxy.core.store.embedded;
