/**
 * {@code idemproxy demo}: a flaky, non-idempotent "tickets" upstream ({@link dev.idemproxy.app.demo.DemoUpstream}),
 * a scripted agent that times out and retries the way agent SDKs do ({@link dev.idemproxy.app.demo.DemoAgent}),
 * and the two runs, through the proxy and direct, whose counts {@link dev.idemproxy.app.demo.DemoReport} prints
 * side by side ({@link dev.idemproxy.app.demo.Demo} runs them).
 */
package dev.idemproxy.app.demo;
