package dev.idemproxy.core.route;

import static java.util.Objects.requireNonNull;

/**
 * The upstream's receipt endpoint, asked before retrying an unknown outcome. This class is immutable.
 *
 * @param url           template with {@code {callId}}, {@code {key}}, {@code {bizId}}
 * @param statusPointer JSON pointer to SUCCESS | FAILED | PROCESSING | NOT_FOUND
 * @param resultPointer JSON pointer to the result answered on SUCCESS
 */
public record ReceiptPolicy(String url, String statusPointer, String resultPointer) {
    public ReceiptPolicy {
        requireNonNull(url, "url");
        statusPointer = statusPointer == null ? "/status" : statusPointer;
        resultPointer = resultPointer == null ? "/result" : resultPointer;
    }
}
