package dev.idemproxy.app.it;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * An agent's side of the forward proxy for the ITs: a JDK {@link HttpClient} whose proxy is the
 * listener (it sends CONNECT for https URIs) and which trusts a given PEM CA only; a raw socket
 * that sends a CONNECT and reads the answer's head, then carries bytes; and the
 * {@code idemproxy_connect_total} counts from {@code /metrics}. Not thread-safe.
 */
final class ConnectClient implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private ConnectClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /** Connects to the proxy and sends {@code CONNECT target HTTP/1.1} with {@code early} bytes right after its head. */
    static ConnectClient connect(int proxyPort, String target, byte[] early) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", proxyPort), 5000);
        s.setSoTimeout(15_000);
        ConnectClient c = new ConnectClient(s);
        c.out.write(("CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n").getBytes(ISO_8859_1));
        c.out.write(early);
        c.out.flush();
        return c;
    }

    /** The answer's head, up to and with the blank line (the bytes after it are the tunnel's). */
    String readHead() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed after " + head.toString(ISO_8859_1));
            }
            head.write(b);
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(ISO_8859_1);
    }

    /** The body of a problem answer (read to the connection's close). */
    String readToClose() throws IOException {
        return new String(in.readAllBytes(), ISO_8859_1);
    }

    InputStream in() {
        return in;
    }

    OutputStream out() {
        return out;
    }

    Socket socket() {
        return socket;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** An HTTP/1.1 client that sends everything through the proxy and trusts only the CA in {@code caPem}. */
    static HttpClient client(int proxyPort, Path caPem) throws Exception {
        return client(proxyPort, caPem, HttpClient.Version.HTTP_1_1);
    }

    static HttpClient client(int proxyPort, Path caPem, HttpClient.Version version) throws Exception {
        return HttpClient.newBuilder()
                .version(version)
                .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxyPort)))
                .sslContext(trusting(caPem))
                .connectTimeout(Duration.ofSeconds(10))
                .build();
    }

    static SSLContext trusting(Path caPem) throws Exception {
        X509Certificate ca;
        try (InputStream pem = Files.newInputStream(caPem)) {
            ca = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(pem);
        }
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", ca);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    /** {@code idemproxy_connect_total{result}} as the admin API shows it now. */
    static double connects(RunningProxy proxy, String result) throws Exception {
        String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(proxy.admin("/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("^idemproxy_connect_total\\{result=\"" + result + "\"} (\\S+)$", Pattern.MULTILINE)
                .matcher(metrics);
        if (!m.find()) {
            throw new AssertionError("no idemproxy_connect_total{result=\"" + result + "\"} in /metrics");
        }
        return Double.parseDouble(m.group(1));
    }

    static URI https(String host, int port, String path) {
        return URI.create("https://" + host + ":" + port + path);
    }
}
