package dev.idemproxy.core.upstream;

import java.io.IOException;

/**
 * The upstream's response head did not parse as HTTP/1.1 (a status that is not a number, a
 * header line without a colon, a bare line feed, a head over the limits...): the exchange ends
 * as if the upstream had closed the connection (failure class {@code reset}: the request was
 * sent), and the answer's detail says what was wrong instead of naming a decoder exception.
 */
public final class MalformedResponseException extends IOException {
    private static final long serialVersionUID = 1L;

    MalformedResponseException(Throwable decoderFailure) {
        super("the upstream's response could not be parsed as HTTP/1.1"
                + (decoderFailure.getMessage() == null ? "" : " (" + decoderFailure.getMessage() + ")"), decoderFailure);
    }
}
