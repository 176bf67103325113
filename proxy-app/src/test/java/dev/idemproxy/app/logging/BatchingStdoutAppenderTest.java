package dev.idemproxy.app.logging;

import dev.idemproxy.core.testing.Await;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BatchingStdoutAppenderTest {
    final PrintStream realOut = System.out;
    final PrintStream realErr = System.err;
    final LoggerContext context = new LoggerContext();

    @AfterEach
    void restore() {
        System.setOut(realOut);
        System.setErr(realErr);
    }

    BatchingStdoutAppender appender(int queueSize) {
        if (context.getMDCAdapter() == null) {
            context.setMDCAdapter(new LogbackMDCAdapter());
        }
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%msg%n");
        encoder.start();
        BatchingStdoutAppender a = new BatchingStdoutAppender();
        a.setContext(context);
        a.setName("test");
        a.setEncoder(encoder);
        a.setQueueSize(queueSize);
        a.start();
        assertThat(a.isStarted()).isTrue();
        return a;
    }

    LoggingEvent event(String message) {
        return new LoggingEvent("test", context.getLogger("t"), Level.INFO, message, null, null);
    }

    @Test
    void everyLineFromManyThreadsIsWrittenInEachThreadsOrderAndStopWritesWhatIsQueued() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, UTF_8));
        BatchingStdoutAppender a = appender(100_000);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int id = t;
            threads.add(new Thread(() -> {
                for (int i = 0; i < 5_000; i++) {
                    a.doAppend(event("t" + id + " " + i));
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        a.stop();
        String[] lines = captured.toString(UTF_8).split("\n");
        assertThat(lines).hasSize(20_000);
        int[] next = new int[4];
        for (String line : lines) {
            String[] parts = line.split(" ");
            int id = Integer.parseInt(parts[0].substring(1));
            assertThat(Integer.parseInt(parts[1])).isEqualTo(next[id]++);
        }
        assertThat(a.dropped()).isZero();
    }

    @Test
    void anIdleWriterSleepsWithoutADeadlineAndTheNextLineWakesIt() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, UTF_8));
        BatchingStdoutAppender a = appender(100);
        try {
            for (int round = 1; round <= 3; round++) {
                // Idle: the writer parks with no timeout (WAITING), not a 10 ms sleep (TIMED_WAITING).
                awaitState(a.writerThread(), Thread.State.WAITING);
                a.doAppend(event("line " + round));
                String expected = "line " + round + "\n";
                Await.until("the line written", java.time.Duration.ofSeconds(5),
                        () -> captured.toString(UTF_8).endsWith(expected));
                assertThat(captured.toString(UTF_8)).as("round %d", round).endsWith(expected);
            }
        } finally {
            a.stop();
        }
        assertThat(captured.toString(UTF_8)).isEqualTo("line 1\nline 2\nline 3\n");
        assertThat(a.writerThread().isAlive()).as("stop() woke the sleeping writer, which finished").isFalse();
    }

    private static void awaitState(Thread t, Thread.State state) {
        Await.until(t.getName() + " in state " + state, java.time.Duration.ofSeconds(5), () -> t.getState() == state);
    }

    @Test
    void aFullQueueDropsAndCountsInsteadOfBlockingTheCaller() throws Exception {
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                writing.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                captured.write(b, off, len);
            }
        }, true, UTF_8));
        BatchingStdoutAppender a = appender(10);
        a.doAppend(event("first"));
        assertThat(writing.await(5, TimeUnit.SECONDS)).isTrue();   // the writer is stuck writing "first"
        long start = System.nanoTime();
        for (int i = 0; i < 50; i++) {
            a.doAppend(event("line " + i));
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(1_000);
        assertThat(a.dropped()).isEqualTo(40);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, UTF_8));
        release.countDown();
        a.stop();
        assertThat(err.toString(UTF_8)).contains("40 log lines were dropped because 10 were already waiting to be written");
        String out = captured.toString(UTF_8);
        assertThat(out).startsWith("first\n").contains("line 0\n", "line 9\n").doesNotContain("line 10\n");
    }
}
