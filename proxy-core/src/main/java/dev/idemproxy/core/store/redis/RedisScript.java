package dev.idemproxy.core.store.redis;

import dev.idemproxy.core.util.Failures;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One Lua script run by {@code EVALSHA}, falling back to {@code EVAL} (which also caches it on
 * that server) when the server does not know it yet. Immutable; thread-safe.
 */
final class RedisScript {
    private final String source;
    private final String sha;
    private final ScriptOutputType output;

    RedisScript(String source, ScriptOutputType output) {
        this.source = source;
        this.output = output;
        try {
            this.sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JVM", e);
        }
    }

    <T> CompletionStage<T> run(RedisClusterAsyncCommands<String, byte[]> redis, String key, byte[]... args) {
        return run(redis, new String[] {key}, args);
    }

    /** Runs with several keys; in a cluster they must share one slot (one hash tag). */
    <T> CompletionStage<T> run(RedisClusterAsyncCommands<String, byte[]> redis, String[] keys, byte[]... args) {
        CompletableFuture<T> first = redis.<T>evalsha(sha, output, keys, args).toCompletableFuture();
        return first.handle((value, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(value);
            }
            Throwable cause = Failures.cause(error);
            if (cause instanceof RedisNoScriptException || String.valueOf(cause.getMessage()).startsWith("NOSCRIPT")) {
                return redis.<T>eval(source, output, keys, args).toCompletableFuture();
            }
            return CompletableFuture.<T>failedFuture(cause);
        }).thenCompose(f -> f);
    }
}
