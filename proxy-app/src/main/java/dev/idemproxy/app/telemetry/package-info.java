/**
 * The trace export of {@code telemetry.traces} (docs/traces.md): each call's spans in
 * the OpenTelemetry HTTP and MCP conventions, made from what the engine tells a
 * {@link dev.idemproxy.core.call.CallWatch} and sent over OTLP/HTTP off the event loops. Only
 * {@link dev.idemproxy.app.telemetry.Tracing} is used from outside, and only when the config has
 * {@code telemetry}: without it no class of this package or of OpenTelemetry is loaded.
 */
package dev.idemproxy.app.telemetry;
