package dev.idemproxy.core.store.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Random;
import org.h2.mvstore.WriteBuffer;
import org.h2.mvstore.type.StringDataType;
import org.junit.jupiter.api.Test;

class AsciiFastStringTypeTest {

    @Test
    void writesTheBytesOfMvstoresStringTypeForEveryKindOfString() {
        Random random = new Random(20261201);
        for (int i = 0; i < 5_000; i++) {
            String s = randomString(random);
            assertThat(bytes(AsciiFastStringType.INSTANCE, s)).as("%s", s).isEqualTo(bytes(StringDataType.INSTANCE, s));
        }
    }

    @Test
    void writesAPageOfKeysAsMvstoreDoesAndReadsItBack() {
        Random random = new Random(7);
        String[] keys = new String[48];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = randomString(random);
        }
        WriteBuffer fast = new WriteBuffer();
        AsciiFastStringType.INSTANCE.write(fast, keys, keys.length);
        WriteBuffer plain = new WriteBuffer();
        StringDataType.INSTANCE.write(plain, keys, keys.length);
        assertThat(array(fast)).isEqualTo(array(plain));

        String[] read = new String[keys.length];
        StringDataType.INSTANCE.read(ByteBuffer.wrap(array(fast)), read, read.length);
        assertThat(read).containsExactly(keys);
    }

    @Test
    void anAsciiRecordIdIsWrittenAsItsLengthAndItsBytes() {
        String id = "4:idem32:0123456789abcdef0123456789abcdefpp-key-1";
        byte[] written = bytes(AsciiFastStringType.INSTANCE, id);
        assertThat(written[0]).isEqualTo((byte) id.length());
        assertThat(new String(written, 1, written.length - 1, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo(id);
    }

    private static byte[] bytes(StringDataType type, String s) {
        WriteBuffer buff = new WriteBuffer();
        type.write(buff, s);
        return array(buff);
    }

    private static byte[] array(WriteBuffer buff) {
        ByteBuffer b = buff.getBuffer();
        b.flip();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /** ASCII (mostly, as keys are), Latin-1, other BMP chars, surrogate pairs, lone surrogates, NUL, long strings. */
    private static String randomString(Random random) {
        int kind = random.nextInt(8);
        int length = kind == 7 ? 200 + random.nextInt(20_000) : random.nextInt(80);
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            switch (kind) {
                case 0, 1, 2, 7 -> sb.append((char) (0x20 + random.nextInt(0x5f)));
                case 3 -> sb.append((char) random.nextInt(0x100));
                case 4 -> sb.append((char) random.nextInt(0x800));
                case 5 -> sb.appendCodePoint(random.nextInt(0x10ffff));
                default -> sb.append(random.nextBoolean() ? (char) (0xd800 + random.nextInt(0x800)) : (char) random.nextInt(0x80));
            }
        }
        return sb.toString();
    }
}
