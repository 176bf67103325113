package dev.idemproxy.core.store.redis;

import dev.idemproxy.core.util.Ticker;
import dev.idemproxy.core.retry.Backoff;
import dev.idemproxy.core.store.StorePolicy.RedisPolicy;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.Stores;
import io.lettuce.core.RedisCommandExecutionException;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redis stores that connect in the background ({@link RedisStore#start}): attempts run one after
 * another on a thread of their own (a connect blocks, and never on an event loop), paced by
 * {@link ConnectAttempts}; the first that succeeds yields the {@link RedisStore} every operation
 * then goes to. The four stores this hands out ({@link #stores()}, {@link LateStores}) forward to
 * the connected backend's, and until then fail every operation at once with
 * {@link StoreUnavailableException}, so the proxy answers as for a Redis outage
 * ({@code onUnavailable}, 503 on the admin's receipts and DLQ), and is not available
 * ({@code /readyz} 503). After that first connection, Lettuce reconnects by itself, as before.
 * {@link #start} waits for the first attempt (up to {@link #FIRST_ATTEMPT_WAIT}), but not while
 * it has made no TCP connection after {@link #CONNECT_GRACE}. Thread-safe.
 */
final class ConnectingRedisStore implements AutoCloseable {
    /** How long {@link #start} waits for the first attempt, so that a Redis that is up is connected when it returns. */
    static final Duration FIRST_ATTEMPT_WAIT = Duration.ofSeconds(5);
    /**
     * How long {@link #start} waits, once the first attempt has sent its first TCP connect, for
     * that connection: a Redis that is up answers a connect within a round trip, while an address
     * that drops SYNs (a firewall, a host gone from the network) holds the attempt until its
     * connect times out (the command timeout, 2 s, as the URI's own), and the proxy would not
     * listen meanwhile. The grace starts at the connect itself, not before: a cold JVM's first use
     * of Lettuce and Netty before it (and the host name's resolution) can take longer than 500 ms,
     * and a start that went on then would not see a wrong password, found only once connected
     * (before, the grace ran from Lettuce's bootstrap and ended at its {@code ConnectedEvent},
     * which reaches its subscribers later on another thread). What comes before the connect is
     * bounded by {@link #FIRST_ATTEMPT_WAIT}.
     */
    static final Duration CONNECT_GRACE = Duration.ofMillis(500);
    private static final Logger log = LoggerFactory.getLogger(RedisStore.class);

    private final RedisPolicy policy;
    private final Duration commandTimeout;
    /** The connected backend's time sources and randomness. */
    private final Clock clock;
    private final Ticker ticker;
    private final RandomGenerator random;
    /** Made once for every attempt; the connected store owns them, else this store closes them. */
    private final LettuceResources lettuce;
    private final ScheduledExecutorService connector;
    /** Connector thread only. */
    private final ConnectAttempts attempts;
    /**
     * The first attempt's outcome for {@link #start}: null when it connected, else its failure.
     * Completed by {@link #start} itself (with null) when it stops waiting first.
     */
    private final CompletableFuture<StoreUnavailableException> first = new CompletableFuture<>();
    private volatile RedisStore store;
    private volatile boolean closed;
    /** The stores handed out: the connected backend's once {@link #store} is set. */
    private final LateStores late = new LateStores(this, this::notConnectedYet);
    /** {@link ConnectAttempts#failures()}, readable from any thread: for tests. */
    private volatile int failedAttempts;

    private ConnectingRedisStore(RedisPolicy policy, Duration commandTimeout, LettuceResources lettuce, Clock clock, Ticker ticker,
            RandomGenerator random) {
        this.policy = policy;
        this.commandTimeout = commandTimeout;
        this.lettuce = lettuce;
        this.clock = clock;
        this.ticker = ticker;
        this.random = random;
        this.attempts = new ConnectAttempts(random);
        this.connector = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "idemproxy-redis-connect");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts connecting on {@code lettuce} (which it then owns); see {@link RedisStore#start}. */
    static ConnectingRedisStore start(RedisPolicy policy, Duration commandTimeout, LettuceResources lettuce, Clock clock,
            Ticker ticker, RandomGenerator random) {
        return start(policy, commandTimeout, lettuce, clock, ticker, random, CONNECT_GRACE, FIRST_ATTEMPT_WAIT);
    }

    /**
     * As {@link #start(RedisPolicy, Duration, LettuceResources, Clock, Ticker, RandomGenerator)} on the
     * system's time sources, with another grace and wait; for tests.
     */
    static ConnectingRedisStore start(RedisPolicy policy, Duration commandTimeout, LettuceResources lettuce, Duration connectGrace,
            Duration wait) {
        return start(policy, commandTimeout, lettuce, Clock.systemUTC(), Ticker.system(), Backoff.threadLocalRandom(),
                connectGrace, wait);
    }

    /**
     * As {@link #start(RedisPolicy, Duration, LettuceResources, Clock, Ticker, RandomGenerator)}:
     * waits for the first attempt's outcome up to {@code wait}, but only up to {@code connectGrace} after its first TCP
     * connect was sent ({@link LettuceResources#connecting}) while that connection is not made
     * ({@link LettuceResources#connected}); then it goes on in the background.
     */
    static ConnectingRedisStore start(RedisPolicy policy, Duration commandTimeout, LettuceResources lettuce, Clock clock,
            Ticker ticker, RandomGenerator random, Duration connectGrace, Duration wait) {
        ConnectingRedisStore s = new ConnectingRedisStore(policy, commandTimeout, lettuce, clock, ticker, random);
        StoreUnavailableException failure;
        try {
            s.connector.execute(s::attempt);
            failure = s.awaitFirst(connectGrace, wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            s.close();
            throw new StoreUnavailableException("interrupted while connecting to Redis at " + policy.redactedUri(), e);
        }
        if (failure != null) {  // only a settings error is handed over; any other was logged, and is retried
            s.close();
            throw failure;
        }
        return s;
    }

    /** The first attempt's settings error, or null: it connected, failed otherwise, or was not waited for. */
    private StoreUnavailableException awaitFirst(Duration connectGrace, Duration wait)
            throws InterruptedException {
        long deadline = ticker.nanos() + wait.toNanos();
        try {
            // the grace runs from the first TCP connect on: a cold JVM's first use of Lettuce and Netty takes time too
            CompletableFuture.anyOf(first, lettuce.connecting()).get(wait.toNanos(), TimeUnit.NANOSECONDS);
            if (!first.isDone()) {
                try {
                    return first.get(Math.min(connectGrace.toNanos(), left(deadline)), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    if (!lettuce.connected().isDone()) {
                        return goOn("no connection to Redis at {} within {} ms: starting without it; /readyz is 503 until it"
                                + " connects", connectGrace.toMillis());
                    }
                }
            }
            return first.get(left(deadline), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return goOn("still connecting to Redis at {} after {} s: starting without it; /readyz is 503 until it connects",
                    wait.toSeconds());
        } catch (ExecutionException e) {
            throw new IllegalStateException("the first attempt cannot fail its future", e);
        }
    }

    private long left(long deadlineNanos) {
        return Math.max(0, deadlineNanos - ticker.nanos());
    }

    /** Stops waiting for the first attempt (logging why, unless it has just ended); its settings error, if it had one. */
    private StoreUnavailableException goOn(String why, long howLong) {
        if (first.complete(null)) {
            log.info(why, policy.redactedUri(), howLong);
        }
        return first.getNow(null);
    }

    /** One attempt, on the connector thread; a failed one schedules the next. */
    private void attempt() {
        if (closed) {
            return;
        }
        RedisStore connected;
        try {
            connected = RedisStore.connectOnce(policy, commandTimeout, lettuce, clock, ticker, random);
        } catch (StoreUnavailableException e) {
            failed(e);
            return;
        } catch (RuntimeException e) {  // not Lettuce's: still tried again, never lost in the executor
            failed(new StoreUnavailableException("cannot connect to Redis at " + policy.redactedUri() + ": " + e, e));
            return;
        }
        store = connected;
        late.connected(connected.stores());
        if (!first.complete(null)) {  // start() went on without it: say that it is here now
            if (attempts.failures() > 0) {
                log.info("connected to Redis at {} after {} failed attempts in {} s", policy.redactedUri(), attempts.failures(),
                        attempts.failingFor(ticker.nanos()).toSeconds());
            } else {
                log.info("connected to Redis at {}", policy.redactedUri());
            }
        }
        connector.shutdown();  // its work is done; Lettuce reconnects by itself from now on
    }

    private void failed(StoreUnavailableException e) {
        if (closed) {
            return;
        }
        long now = ticker.nanos();
        Duration pause = attempts.failed(now);
        failedAttempts = attempts.failures();
        if (attempts.failures() == 1 && isSettingsError(e) && first.complete(e)) {
            return;  // start() is still waiting: it fails the start with this
        }
        if (attempts.logNow(now)) {
            if (isSettingsError(e)) {  // found after the start (Redis came back so): it waits for the operator
                log.error("{}: fix store.redis.uri or the server; trying again meanwhile ({} attempts in {} s)", e.getMessage(),
                        attempts.failures(), attempts.failingFor(now).toSeconds());
            } else if (attempts.failures() == 1) {
                log.warn("{}; trying again in the background, with pauses growing to {} s: until it connects /readyz is 503"
                        + " and protected calls follow store.onUnavailable", e.getMessage(), ConnectAttempts.PAUSES.max().toSeconds());
            } else {
                log.warn("still cannot connect to Redis at {} ({} attempts in {} s): {}", policy.redactedUri(),
                        attempts.failures(), attempts.failingFor(now).toSeconds(), e.getMessage());
            }
        }
        first.complete(null);  // start() goes on without Redis (after the line above, so the log reads in order)
        try {
            connector.schedule(this::attempt, pause.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            // closed meanwhile
        }
    }

    /**
     * Whether trying again cannot mend the failure: Redis refused the credentials, the TLS
     * certificate did not verify (a security exception in the chain), the server speaks another
     * protocol than the URI says ({@link ProtocolMismatch}: TLS at a {@code redis://} URI, plain
     * RESP at a {@code rediss://} one, or no RESP at all), or Lettuce would not take
     * the URI (what the config loader does not check already). A refused or timed-out
     * connection, an unknown host, a Redis still loading its data, or a cluster or Sentinel not
     * yet answering may all mend.
     */
    static boolean isSettingsError(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof GeneralSecurityException || t instanceof IllegalArgumentException
                    || t instanceof ProtocolMismatch.WrongProtocolException) {
                return true;
            }
            if (t instanceof RedisCommandExecutionException) {
                String m = String.valueOf(t.getMessage());
                if (m.startsWith("WRONGPASS") || m.startsWith("NOAUTH") || m.startsWith("NOPERM") || m.startsWith("ERR AUTH")
                        || m.contains("invalid password") || m.contains("invalid username-password")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Attempts that failed so far; for tests. */
    int failedAttempts() {
        return failedAttempts;
    }

    /** The four stores: each forwards to the connected backend's, or fails while there is none ({@link LateStores}). */
    Stores stores() {
        return late.stores();
    }

    /** The connector behind {@code stores}, which {@link RedisStore#start} made; for tests. */
    static ConnectingRedisStore of(Stores stores) {
        return LateStores.connectorOf(stores);
    }

    private StoreUnavailableException notConnectedYet() {
        return new StoreUnavailableException(closed ? "Redis store is closed"
                : "Redis at " + policy.redactedUri() + " is not connected yet");
    }

    /**
     * Stops connecting (an attempt under way is interrupted) and closes the connected store, or
     * else Lettuce's resources. Blocking.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        connector.shutdownNow();
        try {
            if (!connector.awaitTermination(10, TimeUnit.SECONDS)) {
                log.warn("an attempt to connect to Redis at {} did not stop within 10 s; closing anyway", policy.redactedUri());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        RedisStore s = store;  // published before the connector ended
        if (s != null) {
            s.close();
        } else {
            lettuce.close();
        }
    }
}
