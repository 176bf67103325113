package dev.idemproxy.core.store.embedded;

import java.util.concurrent.TimeUnit;
import org.h2.mvstore.WriteBuffer;
import org.h2.mvstore.type.StringDataType;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Writing the keys of one B-tree page of the embedded store's record map as MVStore serialises a
 * changed page: 48 record ids of the bench's shape ({@code <route>:<scope hash><key>}, 58-59
 * chars), through MVStore's {@link StringDataType} and through {@link AsciiFastStringType}, which
 * writes the same bytes. In this package because that type is package-private. Scores are µs per
 * page.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class StringKeyWriteBenchmark {
    private final String[] keys = new String[48];
    private final WriteBuffer buffer = new WriteBuffer(1 << 16);

    @Setup
    public void keys() {
        for (int i = 0; i < keys.length; i++) {
            keys[i] = "4:idem32:0123456789abcdef0123456789abcdefpp-n12345678-1-" + (100_000 + 37 * i);
        }
    }

    @Benchmark
    public WriteBuffer mvstoreStringType() {
        buffer.clear();
        StringDataType.INSTANCE.write(buffer, keys, keys.length);
        return buffer;
    }

    @Benchmark
    public WriteBuffer asciiFastStringType() {
        buffer.clear();
        AsciiFastStringType.INSTANCE.write(buffer, keys, keys.length);
        return buffer;
    }
}
