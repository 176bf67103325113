package dev.idemproxy.app.admin;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** A plain socket speaking hand-written HTTP/1.1, for what {@code HttpClient} will not send. Not thread-safe. */
final class RawHttp implements AutoCloseable {
    /** Guards against a hang; the tests never wait for it to pass. */
    private static final int READ_GUARD_MS = 10_000;

    private final Socket socket;
    private final InputStream in;

    RawHttp(int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), READ_GUARD_MS);
        socket.setSoTimeout(READ_GUARD_MS);
        in = socket.getInputStream();
    }

    void write(String text) throws IOException {
        socket.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
    }

    /** Everything until the server closes the connection; a read timeout fails the test. */
    String readToEnd() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toString(StandardCharsets.ISO_8859_1);
    }

    /** One response with a Content-Length body: head and body as text. */
    String readResponse() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed mid-head: " + head);
            }
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String headText = head.toString(StandardCharsets.ISO_8859_1);
        int length = 0;
        for (String line : headText.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring("content-length:".length()).trim());
            }
        }
        return headText + new String(in.readNBytes(length), StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
