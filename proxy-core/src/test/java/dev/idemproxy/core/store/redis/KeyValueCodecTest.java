package dev.idemproxy.core.store.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class KeyValueCodecTest {
    private final KeyValueCodec codec = KeyValueCodec.INSTANCE;

    @Test
    void keysAreWrittenAsTheirUtf8BytesWithAnExactLength() {
        for (String key : new String[] {"idemproxy:rec:{4:idem0:k}", "t:receipt:{Zoë-日本-\uD83D\uDE00}", ""}) {
            ByteBuf buf = Unpooled.buffer();
            codec.encodeKey(key, buf);
            byte[] written = new byte[buf.readableBytes()];
            buf.readBytes(written);
            assertThat(written).isEqualTo(key.getBytes(UTF_8));
            assertThat(codec.estimateSize(key)).isEqualTo(written.length);
            assertThat(codec.encodeKey(key)).isEqualTo(ByteBuffer.wrap(key.getBytes(UTF_8)));
            assertThat(codec.decodeKey(ByteBuffer.wrap(written))).isEqualTo(key);
        }
        assertThat(codec.isEstimateExact()).isTrue();
    }

    @Test
    void valuesAreWrittenAsTheyAreAndReadBackAsACopy() {
        byte[] value = {'C', '\n', 0, (byte) 0xff, 'x'};
        ByteBuf buf = Unpooled.buffer();
        codec.encodeValue(value, buf);
        assertThat(buf.readableBytes()).isEqualTo(codec.estimateSize(value)).isEqualTo(value.length);
        ByteBuffer read = ByteBuffer.wrap(new byte[] {9, 'C', '\n', 0, (byte) 0xff, 'x'}, 1, 5);
        assertThat(codec.decodeValue(read)).isEqualTo(value);
        assertThat(codec.encodeValue(value)).isEqualTo(ByteBuffer.wrap(value));
    }
}
