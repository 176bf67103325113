package dev.idemproxy.core.tries;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.idemproxy.core.secret.Redactor;
import dev.idemproxy.core.util.ByteOut;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A call's request head and the head of the answer its client got, as they may be shown
 * (docs/security.md), kept with its receipt in one compact encoded form: credential header values,
 * secret query values and user-info as {@value Redactor#MASK} (through the config's
 * {@link Redactor}; a response's {@code Set-Cookie} too; a URL in any other value as
 * {@link Redactor#text} shows it). A value longer than {@value #MAX_VALUE} characters is cut
 * (with {@code …}); at most {@value #MAX_FIELDS} headers of each head are kept. Written once per
 * call straight from the headers (no object per header), read back into {@link RequestHead} and
 * {@link ResponseHead} only when shown. Layout, big-endian, strings as int32 length + UTF-8:
 * {@code byte 1, method, uri, int32 n, (name, value)*} then {@code byte 0 | byte 1, int32 status,
 * int32 n, (name, value)*}. This class is immutable.
 */
public final class CallHeads {
    static final int MAX_VALUE = 512;
    static final int MAX_FIELDS = 64;
    /** Headers the proxy itself set on the forwarded request; the client's request had its own or none. */
    private static final List<String> REWRITTEN = List.of("Host", "X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host");
    private static final String SET_COOKIE = "Set-Cookie";
    /**
     * Each thread's scratch buffer for {@link #of(String, String, String, Iterable, int, Iterable,
     * Function, Function, Redactor)}: a call's heads are written into it and copied out once at
     * their size (a fresh 512-byte buffer per call was half of what they cost).
     */
    private static final ThreadLocal<ByteOut> SCRATCH = ThreadLocal.withInitial(() -> new ByteOut(1024, 16 * 1024));
    /** U+2026, what a cut value ends with. */
    private static final byte[] ELLIPSIS = {(byte) 0xE2, (byte) 0x80, (byte) 0xA6};

    private final byte[] bytes;

    private CallHeads(byte[] bytes) {
        this.bytes = bytes;
    }

    /**
     * The heads of a call: its request ({@code method}, {@code target} as the client sent it, and
     * {@code requestHeaders} less those the proxy rewrote for the upstream; {@code host}, when not
     * null, shown as the client's {@code Host}) and, when {@code responseHeaders} is not null, the
     * answer's {@code status} and headers ({@code name} and {@code value} read each one).
     */
    public static <H> CallHeads of(String method, String target, String host,
            Iterable<Map.Entry<CharSequence, CharSequence>> requestHeaders, int status, Iterable<H> responseHeaders,
            Function<H, String> name, Function<H, String> value, Redactor redactor) {
        ByteOut out = SCRATCH.get().take();
        try {
            return write(out, method, target, host, requestHeaders, status, responseHeaders, name, value, redactor);
        } finally {
            out.give();
        }
    }

    private static <H> CallHeads write(ByteOut out, String method, String target, String host,
            Iterable<Map.Entry<CharSequence, CharSequence>> requestHeaders, int status, Iterable<H> responseHeaders,
            Function<H, String> name, Function<H, String> value, Redactor redactor) {
        out.writeByte(1);
        writeString(out, method, false);
        writeString(out, redactor.url(target), true);
        int count = out.reserveInt();
        int n = 0;
        if (host != null) {
            writeString(out, "Host", false);
            writeString(out, host, true);
            n++;
        }
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = requestHeaders.iterator(); it.hasNext() && n < MAX_FIELDS; ) {
            Map.Entry<CharSequence, CharSequence> h = it.next();
            if (!rewritten(h.getKey())) {
                field(out, h.getKey(), h.getValue(), redactor.isSecretHeaderName(h.getKey()), redactor);
                n++;
            }
        }
        out.patchInt(count, n);
        if (responseHeaders == null) {
            out.writeByte(0);
            return new CallHeads(out.toByteArray());
        }
        out.writeByte(1);
        out.writeInt(status);
        count = out.reserveInt();
        n = 0;
        for (Iterator<H> it = responseHeaders.iterator(); it.hasNext() && n < MAX_FIELDS; n++) {
            H h = it.next();
            String hn = name.apply(h);
            field(out, hn, value.apply(h), redactor.isSecretHeaderName(hn) || SET_COOKIE.equalsIgnoreCase(hn), redactor);
        }
        out.patchInt(count, n);
        return new CallHeads(out.toByteArray());
    }

    /** Heads already as they may be shown (what a test writes, or a view read back), encoded. */
    public static CallHeads of(RequestHead request, ResponseHead response) {
        ByteOut out = new ByteOut(256, 256);
        out.writeByte(1);
        writeString(out, request.method(), false);
        writeString(out, request.uri(), false);
        writeFields(out, request.headers());
        out.writeByte(response == null ? 0 : 1);
        if (response != null) {
            out.writeInt(response.status());
            writeFields(out, response.headers());
        }
        return new CallHeads(out.toByteArray());
    }

    /** Heads in the encoded form {@link #bytes()} gave (a store's value); checked as they are read. */
    public static CallHeads fromBytes(byte[] encoded) {
        return new CallHeads(encoded.clone());
    }

    /** The encoded form; a copy. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** The encoded form's length. */
    public int size() {
        return bytes.length;
    }

    /** The request head. */
    public RequestHead request() {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        in.get();
        return new RequestHead(readString(in), readString(in), readFields(in));
    }

    /** The answer's head, or null when the call has none. */
    public ResponseHead response() {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        in.get();
        readString(in);
        readString(in);
        readFields(in);
        if (in.get() == 0) {
            return null;
        }
        int status = in.getInt();
        return new ResponseHead(status, readFields(in));
    }

    private static void writeFields(ByteOut out, List<HeadField> fields) {
        out.writeInt(fields.size());
        for (HeadField f : fields) {
            writeString(out, f.name(), false);
            writeString(out, f.value(), false);
        }
    }

    private static boolean rewritten(CharSequence name) {
        for (String r : REWRITTEN) {
            if (r.length() == name.length() && sameIgnoringCase(r, name)) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameIgnoringCase(String a, CharSequence b) {
        for (int i = 0; i < a.length(); i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y && Character.toLowerCase(x) != Character.toLowerCase(y)) {
                return false;
            }
        }
        return true;
    }

    private static void field(ByteOut out, CharSequence name, CharSequence value, boolean secret, Redactor redactor) {
        writeString(out, name, false);
        if (secret) {
            writeString(out, Redactor.MASK, false);
        } else if (value == null) {
            writeString(out, "", false);
        } else if (mayHoldUrl(value)) {
            writeString(out, redactor.text(value.toString()), true);
        } else {
            writeString(out, value, true);
        }
    }

    /** Whether {@link Redactor#text} could change {@code v}: it has a {@code ?} or {@code ://}. */
    private static boolean mayHoldUrl(CharSequence v) {
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '?' || (c == ':' && i + 2 < v.length() && v.charAt(i + 1) == '/' && v.charAt(i + 2) == '/')) {
                return true;
            }
        }
        return false;
    }

    private static List<HeadField> readFields(ByteBuffer in) {
        int n = in.getInt();
        if (n < 0 || n > in.remaining() / 8) {
            throw new IllegalStateException("corrupt heads: " + n + " headers with " + in.remaining() + " bytes left");
        }
        List<HeadField> fields = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            fields.add(new HeadField(readString(in), readString(in)));
        }
        return fields;
    }

    private static String readString(ByteBuffer in) {
        int n = in.getInt();
        if (n < 0 || n > in.remaining()) {
            throw new IllegalStateException("corrupt heads: a length of " + n + " with " + in.remaining() + " bytes left");
        }
        String s = new String(in.array(), in.position(), n, UTF_8);
        in.position(in.position() + n);
        return s;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CallHeads other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "CallHeads[" + request() + ", " + response() + "]";
    }

    /** {@code s} as UTF-8 behind its length; with {@code cut}, at most MAX_VALUE characters (the last an ellipsis). */
    private static void writeString(ByteOut out, CharSequence s, boolean cut) {
        int len = s.length();
        boolean cutting = cut && len > MAX_VALUE;
        int at = out.reserveInt();
        int start = out.size();
        out.writeUtf8(s, cutting ? MAX_VALUE - 1 : len);
        if (cutting) {
            out.write(ELLIPSIS, 0, ELLIPSIS.length);
        }
        out.patchInt(at, out.size() - start);
    }
}
