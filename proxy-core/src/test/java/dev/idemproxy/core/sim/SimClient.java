package dev.idemproxy.core.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A simulated agent: sends its intents one after another on a keep-alive connection to a
 * proxy, each request in one or two pieces, and waits for the answer up to a timeout of its own;
 * on a timeout it hangs up and, while it has tries left, sends the same intent again on a new
 * connection (maybe to the other proxy): a duplicate, with a new JSON-RPC id and session for an
 * MCP call. Every request it sent is kept with what came back, for the invariants.
 * Not thread-safe.
 */
final class SimClient {
    /** One request sent, and every response that came back on its connection for it. */
    static final class Sent {
        final Intent intent;
        final int proxy;
        final int rpcId;
        final List<HttpBytes.Message> answers = new ArrayList<>(1);
        /** The client hung up before an answer. */
        boolean abandoned;
        /** The proxy closed the connection before an answer. */
        boolean closedUnanswered;

        Sent(Intent intent, int proxy, int rpcId) {
            this.intent = intent;
            this.proxy = proxy;
            this.rpcId = rpcId;
        }
    }

    /** One connection of this client. */
    private final class Conn implements SimChannel.Peer {
        final int id;
        final int proxy;
        final HttpBytes reader = new HttpBytes(true);
        final List<Sent> sent = new ArrayList<>();
        SimChannel channel;
        boolean closed;
        final String session;

        Conn(int id, int proxy) {
            this.id = id;
            this.proxy = proxy;
            this.session = "s" + id;
        }

        @Override
        public void bytes(byte[] data) {
            world.trace.bytes(id, data);
            for (HttpBytes.Message m : reader.add(data)) {
                answered(this, m);
            }
        }

        @Override
        public void closedByProxy() {
            closed = true;
            HttpBytes.Message last = reader.closed();
            if (last != null) {
                answered(this, last);
            }
            for (Sent s : sent) {
                if (s.answers.isEmpty() && !s.abandoned) {
                    s.closedUnanswered = true;
                }
            }
            world.trace.step("clientClosed", id, 0, null);
            if (current != null && current.conn == this) {
                world.at(0, "clientRetry", () -> gaveUp(current));
            }
        }

        @Override
        public void writeAfterClose(boolean byPeer) {
            if (!byPeer) {
                world.violation("write after close: the proxy wrote to client connection #" + id + " after closing it");
            }
        }
    }

    /** The intent being tried now and where. */
    private record Try(Sent sent, Conn conn, int tries) {}

    private final World world;
    private final SplittableRandom random;
    private final List<Intent> plan;
    private final long timeoutNanos;
    private final int retries;
    private final List<Sent> all = new ArrayList<>();
    private int next;
    private Conn conn;
    private Try current;
    private boolean done;

    SimClient(World world, SplittableRandom random, List<Intent> plan) {
        this.world = world;
        this.random = random;
        this.plan = plan;
        this.timeoutNanos = random.nextInt(3) == 0 ? 0 : 1_000_000L * (100 + random.nextInt(12000));
        this.retries = random.nextInt(3);
    }

    private SimClient(World world, SplittableRandom random, List<Intent> plan, long timeoutNanos, int retries) {
        this.world = world;
        this.random = random;
        this.plan = plan;
        this.timeoutNanos = timeoutNanos;
        this.retries = retries;
    }

    /** A client that waits for every answer and never sends an intent twice (the checks' own). */
    static SimClient patient(World world, SplittableRandom random, List<Intent> plan) {
        return new SimClient(world, random, plan, 0, 0);
    }

    List<Sent> sent() {
        return all;
    }

    boolean done() {
        return done;
    }

    void start(long delayNanos) {
        world.at(delayNanos, "clientStart", () -> send(0));
    }

    /** Its proxy crashed: a request waiting there is given up after a while (the agent's own timeout, or 10 s). */
    void proxyCrashed(int proxy) {
        Try t = current;
        if (t != null && t.conn.proxy == proxy) {
            world.at(timeoutNanos > 0 ? timeoutNanos : 10_000_000_000L, "clientGivesUp", () -> {
                if (current == t) {
                    hangUp();
                    gaveUp(t);
                }
            });
        }
    }

    private void send(int tries) {
        if (next >= plan.size()) {
            done = true;
            if (conn != null && !conn.closed && random.nextBoolean()) {
                conn.channel.peerClose();
            }
            return;
        }
        Intent intent = plan.get(next);
        if (world.down()) {  // the proxy's process is starting again: the connection is refused, the try lost
            world.trace.step("clientRefused", 0, tries, intent.toString());
            world.at(100_000_000L, "clientRefused", () -> {
                if (tries < retries) {
                    send(tries + 1);
                } else {
                    next++;
                    send(0);
                }
            });
            return;
        }
        if (conn == null || conn.closed || world.crashed(conn.proxy) || random.nextInt(4) == 0) {
            hangUp();
            int proxy = world.liveProxy(random);
            conn = new Conn(world.nextChannelId(), proxy);
            conn.channel = world.connectClient(conn, conn.id, proxy);
        }
        Sent s = new Sent(intent, conn.proxy, world.nextRpcId());
        all.add(s);
        conn.sent.add(s);
        current = new Try(s, conn, tries);
        byte[] req = intent.request(s.rpcId, conn.session);
        world.trace.step("clientSend", conn.id, intent.index(), intent.toString());
        if (req.length > 40 && random.nextInt(3) == 0) {
            int cut = 1 + random.nextInt(req.length - 1);
            conn.channel.send(java.util.Arrays.copyOfRange(req, 0, cut));
            conn.channel.send(java.util.Arrays.copyOfRange(req, cut, req.length));
        } else {
            conn.channel.send(req);
        }
        if (timeoutNanos > 0) {
            Try t = current;
            world.at(timeoutNanos, "clientTimeout", () -> {
                if (current == t) {
                    t.sent.abandoned = t.sent.answers.isEmpty();
                    hangUp();
                    gaveUp(t);
                }
            });
        }
    }

    /** The try ended without an answer (a timeout, or the proxy closed): again, or the next intent. */
    private void gaveUp(Try t) {
        if (current != t) {
            return;
        }
        current = null;
        if (t.tries < retries) {
            send(t.tries + 1);
        } else {
            next++;
            send(0);
        }
    }

    private void hangUp() {
        if (conn != null && !conn.closed) {
            conn.closed = true;
            for (Sent s : conn.sent) {
                if (s.answers.isEmpty()) {
                    s.abandoned = true;
                }
            }
            conn.channel.peerClose();
        }
    }

    private void answered(Conn c, HttpBytes.Message m) {
        Sent s = null;
        for (Sent x : c.sent) {
            if (x.answers.isEmpty()) {
                s = x;
                break;
            }
        }
        if (s == null) {
            world.violation("an answer with no request waiting on client connection #" + c.id + ": " + m.line());
            if (!c.sent.isEmpty()) {
                c.sent.get(c.sent.size() - 1).answers.add(m);
            }
            return;
        }
        s.answers.add(m);
        world.trace.step("clientAnswer", c.id, m.status(), m.line());
        if (current != null && current.sent == s) {
            current = null;
            next++;
            long think = random.nextInt(3) == 0 ? 1_000_000L * random.nextInt(3000) : 0;
            world.at(think, "clientNext", () -> send(0));
        }
    }
}
