package dev.idemproxy.core.pipeline;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What every request pays before route matching: {@link RequestTarget#of}, the path normalised.
 * A normal path should cost one scan and, without a query, allocate only the record (run with
 * {@code -prof gc} to see bytes per operation); a dot-segment or an escaped unreserved
 * character takes the copying path. In this package because the class is package-private.
 * Scores are ns per request target.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RequestTargetBenchmark {
    String origin = "/api/tickets/T-1234/comments";
    String originWithQuery = "/api/tickets/T-1234/comments?page=2&size=50";
    String absolute = "http://tickets.internal:8080/api/tickets/T-1234/comments";
    String keptEscapes = "/files/annual%20report%202026/%C3%A9t%C3%A9.pdf";
    String dotSegments = "/api/tickets/../admin/./users";
    String host = "tickets.internal:8080";

    @Benchmark
    public RequestTarget originForm() {
        return RequestTarget.of(origin, host);
    }

    @Benchmark
    public RequestTarget originFormWithQuery() {
        return RequestTarget.of(originWithQuery, host);
    }

    @Benchmark
    public RequestTarget absoluteForm() {
        return RequestTarget.of(absolute, host);
    }

    @Benchmark
    public RequestTarget keptEscapes() {
        return RequestTarget.of(keptEscapes, host);
    }

    @Benchmark
    public RequestTarget dotSegments() {
        return RequestTarget.of(dotSegments, host);
    }
}
