/**
 * Pure retry decisions (docs/configuration.md, docs/http-reference.md, docs/idempotency.md): outcome classes, backoff, Retry-After, deadlines, the
 * per-route and per-task retry budgets, and {@link dev.idemproxy.core.retry.RetryRules}, which
 * turns one finished attempt into a {@link dev.idemproxy.core.retry.RetryDecision}. No Netty and
 * no I/O here: time comes from an injected {@link dev.idemproxy.core.util.Ticker} or
 * {@link java.time.Clock}, randomness from an injected {@link java.util.random.RandomGenerator}.
 * Values are non-null unless a parameter's Javadoc says otherwise.
 */
package dev.idemproxy.core.retry;
