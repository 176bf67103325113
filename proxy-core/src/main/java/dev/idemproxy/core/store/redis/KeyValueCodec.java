package dev.idemproxy.core.store.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.ToByteBufEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.ByteBuffer;

/**
 * The stores' codec: keys are strings (UTF-8), values byte arrays, both written straight into the
 * command's buffer with their exact length. Lettuce's composition of its string and byte-array
 * codecs ({@code RedisCodec.of}) is not a {@link ToByteBufEncoder}, so it encoded every key into
 * a new heap buffer (and wrapped every value in one) before copying it into the command's; the
 * event loop encodes about ten keys and values per protected call. Stateless; thread-safe.
 */
final class KeyValueCodec implements RedisCodec<String, byte[]>, ToByteBufEncoder<String, byte[]> {
    static final KeyValueCodec INSTANCE = new KeyValueCodec();
    private static final byte[] EMPTY = new byte[0];

    private KeyValueCodec() {
    }

    @Override
    public String decodeKey(ByteBuffer bytes) {
        return UTF_8.decode(bytes).toString();
    }

    @Override
    public byte[] decodeValue(ByteBuffer bytes) {
        if (bytes == null) {
            return EMPTY;
        }
        byte[] b = new byte[bytes.remaining()];
        bytes.get(b);
        return b;
    }

    @Override
    public ByteBuffer encodeKey(String key) {
        return key == null ? ByteBuffer.wrap(EMPTY) : ByteBuffer.wrap(key.getBytes(UTF_8));
    }

    @Override
    public ByteBuffer encodeValue(byte[] value) {
        return ByteBuffer.wrap(value == null ? EMPTY : value);
    }

    @Override
    public void encodeKey(String key, ByteBuf target) {
        if (key != null) {
            ByteBufUtil.writeUtf8(target, key);
        }
    }

    @Override
    public void encodeValue(byte[] value, ByteBuf target) {
        if (value != null) {
            target.writeBytes(value);
        }
    }

    /** The exact length: a key's UTF-8 bytes, a value's bytes. */
    @Override
    public int estimateSize(Object keyOrValue) {
        if (keyOrValue instanceof byte[] b) {
            return b.length;
        }
        return keyOrValue == null ? 0 : ByteBufUtil.utf8Bytes((CharSequence) keyOrValue);
    }

    @Override
    public boolean isEstimateExact() {
        return true;
    }
}
