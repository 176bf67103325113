package dev.idemproxy.app.chaos;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A non-idempotent "intents" service on a loopback port for the chaos suite. {@code POST /intents}
 * with a JSON body carrying {@code "intentId":"i-N"} performs the intent's side effect (counted
 * per intent) or fails, as a {@link Fault} drawn per request from the seed, the intent and the
 * request's arrival number (so a run replays from its seed, whatever the thread timing). It
 * ignores {@code Idempotency-Key}: every request that commits executes again. It remembers which
 * {@code X-Call-Id}s committed and answers {@code GET /receipts/{callId}} with {@code SUCCESS} (and
 * the result) or {@code NOT_FOUND}, for routes that configure a receipt check. Thread-safe.
 */
public final class ChaosUpstream implements AutoCloseable {
    private static final Pattern INTENT = Pattern.compile("\"intentId\"\\s*:\\s*\"i-(\\d+)\"");

    /** What the service does with one request. "Commits" means the side effect happened. */
    public enum Fault {
        OK("commits, answers 201", true, 40),
        COMMIT_LATE("commits, answers late", true, 9),
        COMMIT_DROP("commits, drops the connection", true, 9),
        RESET("resets before committing", false, 8),
        UNAVAILABLE("503, nothing committed", false, 9),
        FAIL_AFTER_COMMIT("commits, then answers 500", true, 8),
        THROTTLED("429 Retry-After: 0", false, 9),
        THROTTLED_LONG("429 Retry-After: 1", false, 8);

        final String description;
        final boolean commits;
        final int weight;

        Fault(String description, boolean commits, int weight) {
            this.description = description;
            this.commits = commits;
            this.weight = weight;
        }

        static Fault draw(long seed, int intent, int arrival) {
            SplittableRandom r = new SplittableRandom(seed * 1_000_003L + intent * 7919L + arrival);
            int total = 0;
            for (Fault f : values()) {
                total += f.weight;
            }
            int x = r.nextInt(total);
            for (Fault f : values()) {
                x -= f.weight;
                if (x < 0) {
                    return f;
                }
            }
            throw new AssertionError();
        }
    }

    private final long seed;
    private final Duration lateBy;
    private final EventLoopGroup group;
    private final Channel server;
    private final Map<Integer, AtomicInteger> arrivals = new ConcurrentHashMap<>();
    private final Map<Integer, AtomicInteger> executions = new ConcurrentHashMap<>();
    private final Map<Integer, List<String>> histories = new ConcurrentHashMap<>();
    private final Map<String, String> committedCalls = new ConcurrentHashMap<>();
    private final Map<Fault, AtomicInteger> served = new EnumMap<>(Fault.class);
    private final Set<Channel> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger receiptChecks = new AtomicInteger();
    private final AtomicInteger pending = new AtomicInteger();

    public ChaosUpstream(long seed, Duration lateBy) throws InterruptedException {
        this.seed = seed;
        this.lateBy = lateBy;
        for (Fault f : Fault.values()) {
            served.put(f, new AtomicInteger());
        }
        group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("chaos-upstream", true), NioIoHandler.newFactory());
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        open.add(ch);
                        ch.closeFuture().addListener(f -> open.remove(ch));
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(64 * 1024), new Handler());
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort());
    }

    public int requests() {
        return requests.get();
    }

    int receiptChecks() {
        return receiptChecks.get();
    }

    /** Requests received and not yet answered, dropped or reset (late answers still to come). */
    int pending() {
        return pending.get();
    }

    int executions(int intent) {
        AtomicInteger n = executions.get(intent);
        return n == null ? 0 : n.get();
    }

    Map<Fault, Integer> served() {
        Map<Fault, Integer> m = new EnumMap<>(Fault.class);
        served.forEach((f, n) -> m.put(f, n.get()));
        return m;
    }

    List<String> history(int intent) {
        List<String> h = histories.get(intent);
        if (h == null) {
            return List.of();
        }
        synchronized (h) {
            return List.copyOf(h);
        }
    }

    @Override
    public void close() {
        server.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly();
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            if (HttpMethod.GET.equals(req.method()) && req.uri().startsWith("/receipts/")) {
                receiptChecks.incrementAndGet();
                pending.incrementAndGet();
                String callId = req.uri().substring("/receipts/".length());
                String result = committedCalls.get(callId);
                send(ctx, json(HttpResponseStatus.OK, result == null ? "{\"status\":\"NOT_FOUND\"}"
                        : "{\"status\":\"SUCCESS\",\"result\":" + result + "}"), keepAlive);
                return;
            }
            requests.incrementAndGet();
            pending.incrementAndGet();
            Matcher m = INTENT.matcher(req.content().toString(StandardCharsets.UTF_8));
            if (!HttpMethod.POST.equals(req.method()) || !req.uri().startsWith("/intents") || !m.find()) {
                send(ctx, json(HttpResponseStatus.BAD_REQUEST, "{\"error\":\"POST /intents with an intentId\"}"), keepAlive);
                return;
            }
            int intent = Integer.parseInt(m.group(1));
            String attempt = req.headers().get("X-Attempt");
            String callId = req.headers().get("X-Call-Id");
            int arrival = arrivals.computeIfAbsent(intent, k -> new AtomicInteger()).getAndIncrement();
            Fault fault = Fault.draw(seed, intent, arrival);
            served.get(fault).incrementAndGet();
            List<String> history = histories.computeIfAbsent(intent, k -> new ArrayList<>());
            String result = "{\"intentId\":\"i-" + intent + "\",\"execution\":" + (arrival + 1) + "}";
            if (fault.commits) {
                int n = executions.computeIfAbsent(intent, k -> new AtomicInteger()).incrementAndGet();
                if (callId != null) {
                    committedCalls.put(callId, result);
                }
                result = "{\"intentId\":\"i-" + intent + "\",\"execution\":" + n + "}";
            }
            synchronized (history) {
                history.add("upstream #" + (arrival + 1) + " call=" + callId + " X-Attempt=" + attempt + ": " + fault.description);
            }
            switch (fault) {
                case OK -> send(ctx, json(HttpResponseStatus.CREATED, result), keepAlive);
                case COMMIT_LATE -> {
                    String late = result;
                    ctx.executor().schedule(() -> send(ctx, json(HttpResponseStatus.CREATED, late), keepAlive),
                            lateBy.toMillis(), TimeUnit.MILLISECONDS);
                }
                case COMMIT_DROP -> {
                    pending.decrementAndGet();
                    ctx.close();
                }
                case RESET -> {
                    pending.decrementAndGet();
                    ctx.channel().config().setOption(ChannelOption.SO_LINGER, 0);
                    ctx.close();
                }
                case UNAVAILABLE -> send(ctx, json(HttpResponseStatus.SERVICE_UNAVAILABLE, "{\"error\":\"unavailable\"}"), keepAlive);
                case FAIL_AFTER_COMMIT -> send(ctx, json(HttpResponseStatus.INTERNAL_SERVER_ERROR, "{\"error\":\"oops\"}"), keepAlive);
                case THROTTLED, THROTTLED_LONG -> {
                    FullHttpResponse r = json(HttpResponseStatus.TOO_MANY_REQUESTS, "{\"error\":\"slow down\"}");
                    r.headers().set(HttpHeaderNames.RETRY_AFTER, fault == Fault.THROTTLED ? "0" : "1");
                    send(ctx, r, keepAlive);
                }
                default -> throw new AssertionError(fault);
            }
        }

        private FullHttpResponse json(HttpResponseStatus status, String body) {
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                    Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
            r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, r.content().readableBytes());
            return r;
        }

        private void send(ChannelHandlerContext ctx, FullHttpResponse r, boolean keepAlive) {
            HttpUtil.setKeepAlive(r, keepAlive);
            var f = ctx.writeAndFlush(r);
            if (!keepAlive) {
                f.addListener(ChannelFutureListener.CLOSE);
            }
            pending.decrementAndGet();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
