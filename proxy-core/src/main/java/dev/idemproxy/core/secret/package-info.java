/**
 * Keeping secrets in (CONTRACT §12): what is redacted wherever the proxy shows a request, a URL
 * or a config ({@link dev.idemproxy.core.secret.Redactor}), and the owner-only modes of the files
 * and directories it writes ({@link dev.idemproxy.core.secret.PrivateFiles}).
 */
package dev.idemproxy.core.secret;
