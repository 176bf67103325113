package dev.idemproxy.app.demo;

import static java.util.Objects.requireNonNull;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
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
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo's "tickets" service: {@code POST /tickets} with a JSON body carrying
 * {@code intentId} creates a ticket (the side effect counted per intent), or fails as the
 * {@link FaultPlan} says; any other {@code POST /tickets} creates a ticket and answers 201 at
 * once ({@code {"ticketId":"T-0001","ticketsCreated":1}}), and {@code GET /tickets} answers how
 * many were created ({@code {"ticketsCreated":1}}). Like most real services it ignores
 * {@code Idempotency-Key}: every request that commits creates another ticket. It also counts
 * what it saw: requests, the proxy's retries ({@code X-Attempt} above 1) and the faults it
 * injected. Warm-up calls ({@code intentId} {@code warm-up-N}) are answered 200 and counted
 * nowhere. This class is thread-safe.
 */
public final class DemoUpstream implements AutoCloseable {
    static final String PATH = "/tickets";
    private static final Pattern INTENT = Pattern.compile("\"intentId\"\\s*:\\s*\"intent-(\\d+)\"");
    private static final Pattern WARM_UP = Pattern.compile("\"intentId\"\\s*:\\s*\"warm-up-\\d+\"");

    private final FaultPlan plan;
    private final Duration lateBy;
    private final EventLoopGroup group;
    private final Channel server;
    private final Map<Integer, AtomicInteger> arrivals = new ConcurrentHashMap<>();
    private final Map<Integer, AtomicInteger> executions = new ConcurrentHashMap<>();
    private final Map<Integer, List<String>> histories = new ConcurrentHashMap<>();
    private final Map<Fault, AtomicInteger> faults = new EnumMap<>(Fault.class);
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger proxyRetries = new AtomicInteger();
    private final AtomicInteger pending = new AtomicInteger();
    private final AtomicInteger tickets = new AtomicInteger();
    private final Consumer<String> onTicket;

    private DemoUpstream(FaultPlan plan, Duration lateBy, InetSocketAddress bind, Consumer<String> onTicket)
            throws InterruptedException {
        this.plan = requireNonNull(plan, "plan");
        this.lateBy = requireNonNull(lateBy, "lateBy");
        this.onTicket = requireNonNull(onTicket, "onTicket");
        for (Fault f : Fault.values()) {
            faults.put(f, new AtomicInteger());
        }
        this.group = new MultiThreadIoEventLoopGroup(2, new DefaultThreadFactory("demo-upstream", true),
                NioIoHandler.newFactory());
        try {
            this.server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(64 * 1024), new TicketsHandler());
                        }
                    })
                    .bind(requireNonNull(bind, "bind")).sync().channel();
        } catch (Exception e) {  // a failed bind's BindException too, which sync() throws undeclared
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
    }

    /** Starts the service on a free loopback port. */
    public static DemoUpstream start(FaultPlan plan, Duration lateBy) throws InterruptedException {
        return new DemoUpstream(plan, lateBy, new InetSocketAddress("127.0.0.1", 0), line -> { });
    }

    /**
     * Starts the service on {@code bind}; {@code onTicket} is told of each ticket created, e.g.
     * {@code created ticket T-0001 (1 in all)}, on the service's thread.
     *
     * @throws io.netty.channel.ChannelException (or another exception of the bind) when the address cannot be bound
     */
    public static DemoUpstream start(FaultPlan plan, Duration lateBy, InetSocketAddress bind, Consumer<String> onTicket)
            throws InterruptedException {
        return new DemoUpstream(plan, lateBy, bind, onTicket);
    }

    public URI uri() {
        InetSocketAddress a = (InetSocketAddress) server.localAddress();
        String host = a.getAddress().getHostAddress();
        return URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort());
    }

    /** Tickets created so far, intents' and others'. */
    public int ticketsCreated() {
        return tickets.get();
    }

    /** Requests received, whatever became of them. */
    public int requests() {
        return requests.get();
    }

    /** Requests that carried {@code X-Attempt} above 1: the proxy's own retries. */
    public int proxyRetries() {
        return proxyRetries.get();
    }

    /** Requests received and not yet answered or dropped. */
    public int pending() {
        return pending.get();
    }

    /** Tickets created for intent number {@code intent}. */
    public int executions(int intent) {
        AtomicInteger n = executions.get(intent);
        return n == null ? 0 : n.get();
    }

    /** How often each behaviour was served. */
    public Map<Fault, Integer> faultsServed() {
        Map<Fault, Integer> m = new EnumMap<>(Fault.class);
        faults.forEach((f, n) -> m.put(f, n.get()));
        return m;
    }

    /** Per intent, what each of its requests met, in arrival order (e.g. {@code "#1 try=1: answers 201"}). */
    public Map<Integer, List<String>> histories() {
        Map<Integer, List<String>> m = new TreeMap<>();
        histories.forEach((k, v) -> {
            synchronized (v) {
                m.put(k, List.copyOf(v));
            }
        });
        return m;
    }

    @Override
    public void close() {
        server.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly();
    }

    /** One per connection: reads a whole request, then acts out the plan's fault for it. */
    private final class TicketsHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            String body = req.content().toString(StandardCharsets.UTF_8);
            if (WARM_UP.matcher(body).find()) {
                pending.incrementAndGet();
                send(ctx, respond(HttpResponseStatus.OK, "{\"warmUp\":true}"), keepAlive);
                return;
            }
            requests.incrementAndGet();
            pending.incrementAndGet();
            Matcher m = INTENT.matcher(body);
            if (!req.uri().startsWith(PATH) || !(HttpMethod.POST.equals(req.method()) || HttpMethod.GET.equals(req.method()))) {
                send(ctx, respond(HttpResponseStatus.NOT_FOUND,
                        "{\"error\":\"POST /tickets creates a ticket, GET /tickets counts them\"}"), keepAlive);
                return;
            }
            if (HttpMethod.GET.equals(req.method())) {
                send(ctx, respond(HttpResponseStatus.OK, "{\"ticketsCreated\":" + tickets.get() + "}"), keepAlive);
                return;
            }
            if (!m.find()) {
                send(ctx, respond(HttpResponseStatus.CREATED, created(newTicket())), keepAlive);
                return;
            }
            int intent = Integer.parseInt(m.group(1));
            String attempt = req.headers().get("X-Attempt");
            if (attempt != null && !"1".equals(attempt)) {
                proxyRetries.incrementAndGet();
            }
            int arrival = arrivals.computeIfAbsent(intent, k -> new AtomicInteger()).getAndIncrement();
            Fault fault = plan.faultFor(intent, arrival);
            faults.get(fault).incrementAndGet();
            List<String> history = histories.computeIfAbsent(intent, k -> new ArrayList<>());
            synchronized (history) {
                history.add("#" + (arrival + 1) + (attempt == null ? "" : " X-Attempt=" + attempt) + ": " + fault.description());
            }
            String ticket = null;
            if (fault.commits()) {
                executions.computeIfAbsent(intent, k -> new AtomicInteger()).incrementAndGet();
                ticket = newTicket();
            }
            String created = "{\"ticketId\":\"" + ticket + "\",\"intentId\":\"intent-" + intent + "\"}";
            switch (fault) {
                case ANSWER:
                    send(ctx, respond(HttpResponseStatus.CREATED, created), keepAlive);
                    break;
                case ANSWER_LATE:
                    ctx.executor().schedule(() -> send(ctx, respond(HttpResponseStatus.CREATED, created), keepAlive),
                            lateBy.toMillis(), TimeUnit.MILLISECONDS);
                    break;
                case COMMIT_AND_DROP:
                    ctx.close();
                    pending.decrementAndGet();
                    break;
                case UNAVAILABLE:
                    send(ctx, respond(HttpResponseStatus.SERVICE_UNAVAILABLE, "{\"error\":\"try again later\"}"), keepAlive);
                    break;
                case THROTTLED:
                case THROTTLED_LONG:
                    FullHttpResponse r = respond(HttpResponseStatus.TOO_MANY_REQUESTS, "{\"error\":\"slow down\"}");
                    r.headers().set(HttpHeaderNames.RETRY_AFTER, fault == Fault.THROTTLED ? "0" : "1");
                    send(ctx, r, keepAlive);
                    break;
                default:
                    throw new AssertionError(fault);
            }
        }

        /** Creates a ticket: its id, {@code T-0001} on. */
        private String newTicket() {
            int n = tickets.incrementAndGet();
            String ticket = String.format("T-%04d", n);
            onTicket.accept("created ticket " + ticket + " (" + n + " in all)");
            return ticket;
        }

        private String created(String ticket) {
            return "{\"ticketId\":\"" + ticket + "\",\"ticketsCreated\":" + tickets.get() + "}";
        }

        private FullHttpResponse respond(HttpResponseStatus status, String json) {
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                    Unpooled.copiedBuffer(json, StandardCharsets.UTF_8));
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
            r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, r.content().readableBytes());
            return r;
        }

        /** Writes {@code r} (released by Netty even if the client has gone) and ends the request. */
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
