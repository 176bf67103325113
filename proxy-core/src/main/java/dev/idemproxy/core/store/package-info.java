/**
 * The store SPIs, one per job: idempotency records claimed under a lease with an owner token
 * (fencing) ({@link dev.idemproxy.core.store.RecordStore}), receipts, dead letters and task retry
 * counters, all asynchronous; a backend hands out the four together ({@link dev.idemproxy.core.store.Stores}).
 * Three backends: {@code memory} (Caffeine), {@code embedded} (H2 MVStore on disk) and
 * {@code redis} (Lettuce). Decorators (metering, the near-cache) sit on forwarding bases. Values are
 * non-null unless their Javadoc says otherwise.
 */
package dev.idemproxy.core.store;
