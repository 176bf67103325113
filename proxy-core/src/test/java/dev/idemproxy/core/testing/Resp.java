package dev.idemproxy.core.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import javax.net.SocketFactory;

/**
 * A one-shot RESP client for test fixtures: sends one command to a loopback Redis port and
 * returns the reply as text: a status, error or integer line as sent ({@code +PONG},
 * {@code -ERR …}, {@code :1}), a bulk string's content, {@code null} for a null bulk string, and an
 * array as its elements' texts, one per line (nested arrays flattened). Optionally over TLS (a
 * socket factory from an {@code SSLContext}) and after an {@code AUTH}. Stateless.
 */
final class Resp {
    private Resp() {
    }

    static String command(int port, String... args) throws IOException {
        return command(SocketFactory.getDefault(), null, port, args);
    }

    /**
     * @param sockets  plain or TLS sockets
     * @param password sent with {@code AUTH} first when not null; an error reply to it is returned
     */
    static String command(SocketFactory sockets, String password, int port, String... args) throws IOException {
        try (Socket s = sockets.createSocket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
            s.setSoTimeout(2000);
            OutputStream out = s.getOutputStream();
            InputStream in = new BufferedInputStream(s.getInputStream());
            if (password != null) {
                send(out, "AUTH", password);
                String auth = reply(in);
                if (!"+OK".equals(auth)) {
                    return auth;
                }
            }
            send(out, args);
            return reply(in);
        }
    }

    private static void send(OutputStream out, String... args) throws IOException {
        StringBuilder cmd = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            cmd.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
        }
        out.write(cmd.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static String reply(InputStream in) throws IOException {
        String line = readLine(in);
        if (line.startsWith("$")) {
            int n = Integer.parseInt(line.substring(1));
            if (n < 0) {
                return null;
            }
            byte[] b = in.readNBytes(n + 2);
            return new String(b, 0, n, StandardCharsets.UTF_8);
        }
        if (line.startsWith("*")) {
            int n = Integer.parseInt(line.substring(1));
            StringBuilder items = new StringBuilder();
            for (int i = 0; i < n; i++) {
                items.append(i == 0 ? "" : "\n").append(reply(in));
            }
            return n < 0 ? null : items.toString();
        }
        return line;
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            if (c != '\r') {
                line.write(c);
            }
        }
        if (c == -1 && line.size() == 0) {
            throw new IOException("connection closed before a reply");
        }
        return line.toString(StandardCharsets.UTF_8);
    }
}
