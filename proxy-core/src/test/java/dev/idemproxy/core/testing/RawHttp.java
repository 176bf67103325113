package dev.idemproxy.core.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * A tiny blocking HTTP/1.1 client on a raw socket, for what {@code HttpClient} cannot send:
 * malformed requests, slow writes, pipelining, and checking how the server ends the connection.
 * Writes exactly the bytes it is given; reads one response at a time (status line, headers, and a
 * body framed by Content-Length, chunked encoding, or the end of the connection). Every read gives
 * up after the read timeout. Not thread-safe: one test thread drives it.
 *
 * <pre>{@code
 * try (RawHttp raw = RawHttp.connect("127.0.0.1", port)) {
 *     raw.write("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n");
 *     assertThat(raw.readResponse().status()).isEqualTo(400);
 *     assertThat(raw.isClosedByPeer(Duration.ofSeconds(5))).isTrue();
 * }
 * }</pre>
 */
public final class RawHttp implements AutoCloseable {

    /** How the peer left the connection, as seen by {@link #awaitPeerClose}. */
    public enum PeerClose {
        /** Nothing arrived (or only more data) within the timeout: still open. */
        OPEN,
        /** An orderly close (FIN): the read saw end of stream. */
        CLOSED,
        /** An abortive close (RST): the read failed with "connection reset". */
        RESET
    }

    /** One response. {@code headers} keep their wire casing; trailers of a chunked body are dropped. */
    public record Response(String version, int status, String reason, List<Header> headers, byte[] body) {

        public Response {
            headers = List.copyOf(headers);
        }

        /** The first value of header {@code name} (case-insensitive), or {@code null}. */
        public String header(String name) {
            return Header.first(headers, name);
        }

        public List<String> headerValues(String name) {
            return Header.all(headers, name);
        }

        public String bodyAsString() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(10);
    private static final int MAX_LINE = 64 * 1024;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final int readTimeoutMillis;

    private RawHttp(Socket socket, Duration readTimeout) throws IOException {
        this.socket = socket;
        this.readTimeoutMillis = Math.toIntExact(Math.max(1, readTimeout.toMillis()));
        socket.setSoTimeout(readTimeoutMillis);
        socket.setTcpNoDelay(true);
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** Connects with a 10 s connect and read timeout. */
    public static RawHttp connect(String host, int port) throws IOException {
        return connect(host, port, DEFAULT_READ_TIMEOUT);
    }

    /** Connects; {@code readTimeout} also bounds the connect. */
    public static RawHttp connect(String host, int port, Duration readTimeout) throws IOException {
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress(host, port), Math.toIntExact(readTimeout.toMillis()));
            return new RawHttp(s, readTimeout);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    public int localPort() {
        return socket.getLocalPort();
    }

    // ------------------------------------------------------------------ writing

    /** Writes {@code bytes} as they are and flushes. */
    public RawHttp write(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /** Writes {@code text} as ISO-8859-1 bytes (CRLFs are the caller's) and flushes. */
    public RawHttp write(String text) throws IOException {
        return write(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    /**
     * Writes {@code bytes} {@code chunkSize} at a time, flushing each and pausing {@code pause}
     * between them: a slow client (the pause paces the sender; it synchronises nothing).
     */
    public RawHttp writeSlowly(byte[] bytes, int chunkSize, Duration pause) throws IOException {
        if (chunkSize < 1) {
            throw new IllegalArgumentException("chunkSize: " + chunkSize + " (expected: >= 1)");
        }
        for (int off = 0; off < bytes.length; off += chunkSize) {
            if (off > 0) {
                LockSupport.parkNanos(pause.toNanos());
            }
            out.write(bytes, off, Math.min(chunkSize, bytes.length - off));
            out.flush();
        }
        return this;
    }

    /** Half-closes: sends FIN, keeps reading possible. */
    public RawHttp shutdownOutput() throws IOException {
        socket.shutdownOutput();
        return this;
    }

    // ------------------------------------------------------------------ reading

    /**
     * Reads the next response, including a {@code 1xx} interim one. Bodies: none for 1xx, 204 and
     * 304; else chunked, Content-Length, or everything until the peer closes.
     *
     * @throws EOFException when the connection ends before a complete response
     */
    public Response readResponse() throws IOException {
        return read(false);
    }

    /** Reads the next response to a {@code HEAD} request: the head only, whatever it announces. */
    public Response readHeadResponse() throws IOException {
        return read(true);
    }

    /** Reads responses until one is not {@code 1xx}, and returns that final one. */
    public Response readFinalResponse() throws IOException {
        Response r;
        do {
            r = readResponse();
        } while (r.status() >= 100 && r.status() < 200);
        return r;
    }

    /** Reads whatever arrives until the peer closes or resets; returns it (a reset ends it quietly). */
    public byte[] readUntilClose() throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        try {
            for (int n; (n = in.read(buf)) != -1; ) {
                all.write(buf, 0, n);
            }
        } catch (SocketException e) {
            if (!isReset(e)) {
                throw e;
            }
        }
        return all.toByteArray();
    }

    /** True when the peer closed or reset the connection within {@code timeout}; data waiting stays unread. */
    public boolean isClosedByPeer(Duration timeout) throws IOException {
        return awaitPeerClose(timeout) != PeerClose.OPEN;
    }

    /**
     * Waits up to {@code timeout} for the peer to end the connection and says how it did. When data
     * arrives instead, returns {@link PeerClose#OPEN} and leaves the data to be read.
     */
    public PeerClose awaitPeerClose(Duration timeout) throws IOException {
        socket.setSoTimeout(Math.toIntExact(Math.max(1, timeout.toMillis())));
        try {
            in.mark(1);
            int b = in.read();
            if (b == -1) {
                return PeerClose.CLOSED;
            }
            in.reset();
            return PeerClose.OPEN;
        } catch (SocketTimeoutException e) {
            return PeerClose.OPEN;
        } catch (SocketException e) {
            if (isReset(e)) {
                return PeerClose.RESET;
            }
            throw e;
        } finally {
            if (!socket.isClosed()) {
                socket.setSoTimeout(readTimeoutMillis);
            }
        }
    }

    /**
     * True when at least one byte arrives within {@code timeout} (it stays unread); false when
     * nothing did. For "nothing is answered yet" checks, which can only wait a while.
     */
    public boolean awaitData(Duration timeout) throws IOException {
        socket.setSoTimeout(Math.toIntExact(Math.max(1, timeout.toMillis())));
        try {
            in.mark(1);
            int b = in.read();
            if (b == -1) {
                return false;
            }
            in.reset();
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } finally {
            if (!socket.isClosed()) {
                socket.setSoTimeout(readTimeoutMillis);
            }
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private static boolean isReset(SocketException e) {
        String m = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
        return m.contains("reset") || m.contains("broken pipe");
    }

    private Response read(boolean headRequest) throws IOException {
        String statusLine = readLine();
        if (statusLine == null) {
            throw new EOFException("connection closed before a response");
        }
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
            throw new IOException("not an HTTP status line: " + statusLine);
        }
        int status = Integer.parseInt(parts[1]);
        String reason = parts.length > 2 ? parts[2] : "";
        List<Header> headers = readHeaders();
        byte[] body;
        String te = Header.first(headers, "transfer-encoding");
        String cl = Header.first(headers, "content-length");
        if (headRequest || status < 200 || status == 204 || status == 304) {
            body = new byte[0];
        } else if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
            body = readChunked();
        } else if (cl != null) {
            body = in.readNBytes(Integer.parseInt(cl.trim()));
            if (body.length < Integer.parseInt(cl.trim())) {
                throw new EOFException("connection closed after " + body.length + " of " + cl + " body bytes");
            }
        } else {
            body = readUntilClose();
        }
        return new Response(parts[0], status, reason, headers, body);
    }

    private List<Header> readHeaders() throws IOException {
        List<Header> headers = new ArrayList<>();
        for (String line; ; ) {
            line = readLine();
            if (line == null) {
                throw new EOFException("connection closed inside a header block");
            }
            if (line.isEmpty()) {
                return headers;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IOException("malformed header line: " + line);
            }
            headers.add(new Header(line.substring(0, colon), line.substring(colon + 1).trim()));
        }
    }

    private byte[] readChunked() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (;;) {
            String sizeLine = readLine();
            if (sizeLine == null) {
                throw new EOFException("connection closed inside a chunked body");
            }
            int semi = sizeLine.indexOf(';');
            int size = Integer.parseInt((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
            if (size == 0) {
                readHeaders(); // trailers, dropped
                return body.toByteArray();
            }
            byte[] chunk = in.readNBytes(size);
            if (chunk.length < size) {
                throw new EOFException("connection closed inside a chunk");
            }
            body.writeBytes(chunk);
            if (!"".equals(readLine())) {
                throw new IOException("chunk not followed by CRLF");
            }
        }
    }

    /** A line without its CRLF (a bare LF is accepted), or {@code null} at end of stream before any byte. */
    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (;;) {
            int b = in.read();
            if (b == -1) {
                if (line.size() == 0) {
                    return null;
                }
                throw new EOFException("connection closed mid-line: " + line.toString(StandardCharsets.ISO_8859_1));
            }
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int len = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, len, StandardCharsets.ISO_8859_1);
            }
            if (line.size() >= MAX_LINE) {
                throw new IOException("line longer than " + MAX_LINE + " bytes");
            }
            line.write(b);
        }
    }

    @Override
    public String toString() {
        return "RawHttp[" + socket.getLocalPort() + " -> " + socket.getRemoteSocketAddress() + "]";
    }
}
