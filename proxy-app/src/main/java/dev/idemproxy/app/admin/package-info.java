/**
 * The admin listener (CONTRACT §7): probes, Prometheus metrics, the effective config and a route
 * table that later features extend with receipts and DLQ endpoints; plus {@link
 * dev.idemproxy.app.admin.MetricsSetup}, the one place the Prometheus registry is created.
 */
package dev.idemproxy.app.admin;
