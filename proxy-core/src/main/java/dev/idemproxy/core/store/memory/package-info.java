/**
 * The in-memory store backend: Caffeine, bounded, lost on restart; for tests and single-process
 * use. {@link dev.idemproxy.core.store.memory.MemoryStore} hands out its four stores.
 */
package dev.idemproxy.core.store.memory;
