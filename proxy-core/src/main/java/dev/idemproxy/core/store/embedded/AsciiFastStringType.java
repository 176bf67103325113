package dev.idemproxy.core.store.embedded;

import java.nio.charset.StandardCharsets;
import org.h2.mvstore.WriteBuffer;
import org.h2.mvstore.type.StringDataType;

/**
 * MVStore's {@link StringDataType} with a faster write for strings that are all ASCII (every key
 * of this store, and the receipt index's values, in practice): MVStore writes a string as its
 * length in chars and then each char in turn, through a bounds-checked one-byte put per char, which
 * made writing keys half of the page serialisation of a protected call. An all-ASCII string's
 * chars are its UTF-8 bytes, one each, so this writes the same length and the same bytes in one
 * copy; any other string goes through {@link StringDataType#write} unchanged. The bytes on disk
 * are therefore exactly {@link StringDataType}'s (reading, comparing and sizing are inherited), and
 * a file written by either type reads with the other.
 */
final class AsciiFastStringType extends StringDataType {
    static final AsciiFastStringType INSTANCE = new AsciiFastStringType();

    private AsciiFastStringType() {
    }

    @Override
    public void write(WriteBuffer buff, String s) {
        if (!isAscii(s)) {
            super.write(buff, s);
            return;
        }
        buff.putVarInt(s.length()).put(s.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * Every char below U+0080. (Comparing the UTF-8 length with the char count would not do: a
     * lone surrogate encodes as the one byte '?', where MVStore writes its three bytes.)
     */
    private static boolean isAscii(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }
}
