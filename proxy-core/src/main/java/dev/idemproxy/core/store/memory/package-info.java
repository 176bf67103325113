/** The in-memory store backend: Caffeine, bounded, lost on restart; for tests and single-process use. */
package dev.idemproxy.core.store.memory;
