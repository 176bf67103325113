package dev.idemproxy.core.testing;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** A counter that test threads can wait on until it reaches a value. Thread-safe. */
final class AwaitableCounter {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private long value;

    long increment() {
        lock.lock();
        try {
            value++;
            changed.signalAll();
            return value;
        } finally {
            lock.unlock();
        }
    }

    long get() {
        lock.lock();
        try {
            return value;
        } finally {
            lock.unlock();
        }
    }

    /** Waits until the value is at least {@code target}; returns false on timeout. */
    boolean awaitAtLeast(long target, Duration timeout) throws InterruptedException {
        long remaining = timeout.toNanos();
        lock.lock();
        try {
            while (value < target) {
                if (remaining <= 0) {
                    return false;
                }
                remaining = changed.awaitNanos(remaining);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }
}
