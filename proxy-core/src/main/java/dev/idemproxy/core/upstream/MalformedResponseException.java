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

    /** A one-line description of an upstream failure for problem details and logs. */
    public static String describe(Throwable t) {
        if (t instanceof MalformedResponseException) {
            return t.getMessage();
        }
        Throwable c = t;
        while (c.getCause() != null && c.getMessage() == null) {
            c = c.getCause();
        }
        return c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage());
    }
}
