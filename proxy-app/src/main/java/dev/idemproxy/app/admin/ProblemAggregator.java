package dev.idemproxy.app.admin;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;

/**
 * Aggregates a request body up to a limit; a larger one is answered with a 413
 * {@code request-too-large} problem and the connection is closed, since the rest of the body
 * would still be on the wire. The aggregator releases the oversized message. Not sharable.
 */
final class ProblemAggregator extends HttpObjectAggregator {
    ProblemAggregator(int maxContentLength) {
        super(maxContentLength);
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        NettyResponses.write(ctx, AdminResponse.problem(413, "request-too-large", "Request too large",
                "the admin API accepts request bodies up to " + maxContentLength() + " bytes"), true);
    }
}
