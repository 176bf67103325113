/**
 * The store SPI: idempotency records claimed under a lease with an owner token (fencing), receipts
 * and dead letters, all asynchronous, with three backends: {@code memory} (Caffeine), {@code embedded}
 * (H2 MVStore on disk) and {@code redis} (Lettuce). Values are non-null unless their Javadoc says
 * otherwise.
 */
package dev.idemproxy.core.store;
