package dev.idemproxy.core.pipeline;

import io.netty.handler.codec.http.HttpHeaders;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Request header names containing {@code _} ({@code limits.underscoreHeaders}). CGI-style
 * servers (PHP, WSGI, Rack and the like) read {@code Transfer_Encoding} or {@code X_Forwarded_Host}
 * as the header with dashes, so forwarding them lets a client smuggle framing or forwarding
 * headers past checks made on the dashed names; nginx and Envoy drop them by default.
 * Pure functions over Netty headers. This class is stateless.
 */
final class UnderscoreNames {
    private UnderscoreNames() {}

    /** The first header name with an {@code _}, or null when there is none. */
    static CharSequence first(HttpHeaders headers) {
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); ) {
            CharSequence name = it.next().getKey();
            if (has(name)) {
                return name;
            }
        }
        return null;
    }

    /** Removes every header whose name has an {@code _}. */
    static void drop(HttpHeaders headers) {
        List<CharSequence> names = new ArrayList<>(2);
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); ) {
            CharSequence name = it.next().getKey();
            if (has(name)) {
                names.add(name);
            }
        }
        for (CharSequence name : names) {
            headers.remove(name);
        }
    }

    static boolean has(CharSequence name) {
        for (int i = 0, n = name.length(); i < n; i++) {
            if (name.charAt(i) == '_') {
                return true;
            }
        }
        return false;
    }
}
