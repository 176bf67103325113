package dev.idemproxy.app.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import ch.qos.logback.core.encoder.Encoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes log lines to standard output from one thread, a batch per write.
 *
 * <p>The threads that log (the event loops among them) only add the event to a lock-free queue:
 * no lock, no wake-up of the writer, no system call. A full queue drops the event, counted,
 * rather than stall a call (receipts, not logs, are the record of a call). While lines keep
 * coming, the writer wakes every 10 ms, takes whatever is queued, encodes it and writes it with
 * one call; so a busy proxy makes about a hundred wake-ups and writes a second instead of one of
 * each per line (Logback's {@code AsyncAppender} signals its writer on every event). When a wake-up
 * finds nothing, the writer sleeps until the next line, which wakes it: an idle proxy's writer
 * does not wake at all, and a line waits at most about 10 ms either way.
 * {@link #stop()} writes what is queued, waiting up to {@code maxFlushMillis}.
 *
 * <p>Configured by {@link LogConfigurator} (or a logback XML file): {@code encoder}, {@code queueSize} (default 16384) and
 * {@code maxFlushMillis} (default 2000). This class is thread-safe.
 */
public final class BatchingStdoutAppender extends UnsynchronizedAppenderBase<ILoggingEvent> {
    private static final int MAX_BATCH = 1024;
    /** How long the writer sleeps after writing a batch: the longest a line waits to be written. */
    private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** The batch buffer's first size; one grown past {@link #KEPT_CAPACITY} (stack traces) starts over. */
    private static final int BATCH_CAPACITY = 64 * 1024;
    private static final int KEPT_CAPACITY = 1 << 20;

    private Encoder<ILoggingEvent> encoder;
    private int queueSize = 16384;
    private long maxFlushMillis = 2000;
    private final AtomicLong dropped = new AtomicLong();
    private final ConcurrentLinkedQueue<ILoggingEvent> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    /** The writer found nothing and sleeps until a line (or {@link #stop()}) wakes it. */
    private final AtomicBoolean asleep = new AtomicBoolean();
    private Thread writer;
    private volatile boolean stopping;

    public void setEncoder(Encoder<ILoggingEvent> encoder) {
        this.encoder = encoder;
    }

    public void setQueueSize(int queueSize) {
        this.queueSize = queueSize;
    }

    public void setMaxFlushMillis(long maxFlushMillis) {
        this.maxFlushMillis = maxFlushMillis;
    }

    /** Events dropped because the queue was full. */
    public long dropped() {
        return dropped.get();
    }

    @Override
    public void start() {
        if (encoder == null) {
            addError("no encoder for the appender named [" + name + "]");
            return;
        }
        if (queueSize < 1) {
            addError("queueSize " + queueSize + " (expected: >= 1)");
            return;
        }
        stopping = false;
        writer = new Thread(this::writeLoop, "idemproxy-log-writer");
        writer.setDaemon(true);
        writer.start();
        super.start();
    }

    @Override
    protected void append(ILoggingEvent event) {
        event.prepareForDeferredProcessing();
        if (queued.incrementAndGet() > queueSize) {
            queued.decrementAndGet();
            dropped.incrementAndGet();
            return;
        }
        queue.offer(event);
        // Dekker-style with the writer's "asleep, then look at the queue": one of the two sees the other.
        if (asleep.get() && asleep.compareAndSet(true, false)) {
            LockSupport.unpark(writer);
        }
    }

    @Override
    public void stop() {
        if (!isStarted()) {
            return;
        }
        super.stop();
        stopping = true;
        LockSupport.unpark(writer);
        try {
            writer.join(maxFlushMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Logging is stopping, so these go to standard error directly.
        if (writer.isAlive()) {
            System.err.println("idemproxy: the log writer did not finish within " + maxFlushMillis + " ms; "
                    + queue.size() + " log lines unwritten");
        }
        long lost = dropped.get();
        if (lost > 0) {
            System.err.println("idemproxy: " + lost + " log lines were dropped because " + queueSize
                    + " were already waiting to be written");
        }
    }

    private void writeLoop() {
        List<ILoggingEvent> batch = new ArrayList<>(MAX_BATCH);
        // Made with the first batch, not here: this thread starts while Logback is being set up,
        // and Netty's first use logs through SLF4J, which would then print its "intercepted
        // logging calls" warning on stderr (seen as a stray line after validate's problem lines).
        ByteBuf bytes = null;
        while (true) {
            boolean last = stopping;   // read before draining: what was queued before stop() is written
            ILoggingEvent e;
            int taken = 0;
            while ((e = queue.poll()) != null) {
                queued.decrementAndGet();
                taken++;
                batch.add(e);
                if (batch.size() == MAX_BATCH) {
                    bytes = write(batch, bytes);
                }
            }
            if (!batch.isEmpty()) {
                bytes = write(batch, bytes);
            }
            if (last) {
                if (bytes != null) {
                    bytes.release();
                }
                return;
            }
            if (taken > 0) {
                LockSupport.parkNanos(this, PAUSE_NANOS);  // let the next batch gather
            } else {
                sleepUntilALine();
            }
        }
    }

    /** Parks without a deadline until {@link #append} or {@link #stop()} unparks; never past a queued line. */
    private void sleepUntilALine() {
        asleep.set(true);
        if (queue.isEmpty() && !stopping) {
            LockSupport.park(this);
        }
        asleep.set(false);
    }

    /** The writer thread, for tests. */
    Thread writerThread() {
        return writer;
    }

    /** Encodes the batch into {@code buffer} (made now when null), writes it with one call and returns the buffer for the next batch. */
    private ByteBuf write(List<ILoggingEvent> batch, ByteBuf buffer) {
        ByteBuf bytes = buffer != null ? buffer : Unpooled.buffer(BATCH_CAPACITY);
        // Our encoders (text and JSON) write into the batch's buffer; another encoder's bytes are copied in.
        LineEncoder direct = encoder instanceof LineEncoder l ? l : null;
        for (ILoggingEvent e : batch) {
            int mark = bytes.writerIndex();
            try {
                if (direct != null) {
                    direct.encodeInto(e, bytes);
                } else {
                    bytes.writeBytes(encoder.encode(e));
                }
            } catch (RuntimeException ex) {
                bytes.writerIndex(mark);
                addError("cannot encode a log event", ex);
            }
        }
        batch.clear();
        // System.out at each write, so a replaced standard output (System.setOut) is honoured.
        // One write of the whole batch, from the buffer's own array (toByteArray copied the batch
        // first: 7% of this thread's time at 70,000 replays a second).
        PrintStream out = System.out;
        try {
            bytes.readBytes(out, bytes.readableBytes());
        } catch (java.io.IOException ex) {  // PrintStream does not throw: it sets its error flag
            addError("cannot write log lines", ex);
        }
        out.flush();
        if (bytes.capacity() > KEPT_CAPACITY) {
            bytes.release();
            return Unpooled.buffer(BATCH_CAPACITY);
        }
        return bytes.clear();
    }
}
