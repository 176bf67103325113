/**
 * The admin listener (docs/admin-api.md): probes, Prometheus metrics, the effective config, and the
 * receipts and dead-letter endpoints ({@link dev.idemproxy.app.admin.CallRecordsEndpoints}) that
 * the wiring adds to its route table; plus {@link dev.idemproxy.app.admin.MetricsSetup}, the one
 * place the Prometheus registry is created.
 */
package dev.idemproxy.app.admin;
