/**
 * Loads {@code idemproxy.yaml} onto the core config records, reporting every problem as
 * {@code FILE:LINE:COL: path.to.key: message}, and describes an effective config for people and
 * for the admin {@code /config} endpoint. Everything is non-null unless documented otherwise.
 */
package dev.idemproxy.app.config;
