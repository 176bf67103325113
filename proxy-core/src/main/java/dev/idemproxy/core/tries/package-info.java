/**
 * Each protected call's tries, kept with its receipt (docs/admin-api.md {@code GET /calls/{callId}}):
 * the immutable values a receipt carries ({@link CallTries}, {@link Try}, the redacted
 * {@link RequestHead} and {@link ResponseHead}) and the accumulator a call feeds as its tries
 * start, end and are decided on ({@link TryLog}). Pure Java: no Netty, no store.
 */
package dev.idemproxy.core.tries;
