package dev.idemproxy.core.store.redis;

import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.protocol.RedisProtocolException;
import io.netty.handler.ssl.NotSslRecordException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Whether a failed connection failed because the server speaks another protocol than the URI
 * says: a {@code redis://} URI at a TLS port (Redis resets the connection without a byte of RESP),
 * a {@code rediss://} URI at a plain port (the handshake times out: Redis reads the ClientHello as
 * the start of an inline command), or an endpoint that is no Redis at all (an answer that is not
 * RESP). Each is a setting the operator must fix, never an outage that passes, so it is reported as
 * such ({@link WrongProtocolException}) with what to change. A connection refused, reset or closed
 * by a server that speaks neither TLS nor RESP stays an ordinary failure, retried: a Redis behind a
 * TCP proxy while it is down looks like that. Stateless; its probes block, on the connector's thread.
 */
final class ProtocolMismatch {
    private ProtocolMismatch() {
    }

    /** A connect failure that trying again will not mend: the server speaks another protocol. */
    static final class WrongProtocolException extends RedisException {
        private static final long serialVersionUID = 1L;

        WrongProtocolException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * {@code failure} as a {@link WrongProtocolException} when it was one, else {@code failure}
     * itself. A standalone URI's server is probed (once, for at most {@code timeout}) when the
     * failure looks like a TLS server met in plain text or the other way round; in the other modes
     * only an answer that was not RESP is recognised.
     */
    static RedisException classify(RedisException failure, String mode, String uri, Duration timeout) {
        boolean notResp = has(failure, RedisProtocolException.class);
        RedisURI target = mode.equals("standalone") ? parse(uri) : null;
        if (target == null) {
            return notResp ? new WrongProtocolException(notRespMessage("the server", failure), failure) : failure;
        }
        String where = "the server at " + target.getHost() + ":" + target.getPort();
        if (!target.isSsl() && (notResp || droppedUnanswered(failure)) && speaksTls(target, timeout)) {
            return new WrongProtocolException(where + " speaks TLS, not plain RESP: use a rediss:// URI", failure);
        }
        if (target.isSsl() && (isHandshakeFailure(failure) || initializationTimedOut(failure)) && speaksPlainResp(target, timeout)) {
            return new WrongProtocolException(where + " speaks plain RESP, not TLS: use a redis:// URI", failure);
        }
        return notResp ? new WrongProtocolException(notRespMessage(where, failure), failure) : failure;
    }

    private static String notRespMessage(String where, Throwable failure) {
        return where + " did not answer in RESP (" + rootOf(failure).getMessage()
                + "): is it a Redis? (a TLS port wants a rediss:// URI)";
    }

    private static RedisURI parse(String uri) {
        try {
            return RedisURI.create(uri);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The connection ended before any answer: reset by the peer, or closed before the handshake's reply. */
    private static boolean droppedUnanswered(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = String.valueOf(t.getMessage());
            if (m.contains("Connection reset") || m.contains("Connection closed prematurely")) {  // NIO says only "reset"
                return true;
            }
        }
        return false;
    }

    /**
     * Lettuce gave up on the connection's initialization (its TLS handshake and then {@code HELLO})
     * after the URI's timeout. At a plain port the TLS handshake hangs until one of two timers of
     * the same length ends it, Lettuce's or the handshake's own; which comes first depends on the
     * machine's load, so either is probed.
     */
    private static boolean initializationTimedOut(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (String.valueOf(t.getMessage()).contains("initialization timed out")) {
                return true;
            }
        }
        return false;
    }

    /** A TLS handshake that failed for another reason than the certificate (which is reported as it is). */
    private static boolean isHandshakeFailure(Throwable failure) {
        return !has(failure, GeneralSecurityException.class) && (has(failure, SSLException.class)
                || has(failure, NotSslRecordException.class));
    }

    private static boolean has(Throwable failure, Class<? extends Throwable> type) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static Throwable rootOf(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }

    /**
     * Whether the server answers a TLS handshake with a certificate. The probe trusts nothing: its
     * trust manager notes that a certificate came and refuses it, so the handshake ends there,
     * before any byte of application data.
     */
    static boolean speaksTls(RedisURI target, Duration timeout) {
        AtomicBoolean sawCertificate = new AtomicBoolean();
        X509TrustManager noteAndRefuse = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
                throw new CertificateException("a probe trusts no one");
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
                sawCertificate.set(chain != null && chain.length > 0);
                throw new CertificateException("a probe trusts no one");
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        int millis = (int) Math.max(1, timeout.toMillis());
        try {
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(null, new TrustManager[] {noteAndRefuse}, null);
            try (SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket()) {
                s.connect(new InetSocketAddress(target.getHost(), target.getPort()), millis);
                s.setSoTimeout(millis);
                s.startHandshake();
            }
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            // the refusal above, or no TLS at all
        }
        return sawCertificate.get();
    }

    /** Whether the server answers an inline {@code PING} in RESP ({@code +PONG}, or an error such as {@code -NOAUTH}). */
    static boolean speaksPlainResp(RedisURI target, Duration timeout) {
        int millis = (int) Math.max(1, timeout.toMillis());
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(target.getHost(), target.getPort()), millis);
            s.setSoTimeout(millis);
            s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            int first = in.read();
            return first == '+' || first == '-';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
