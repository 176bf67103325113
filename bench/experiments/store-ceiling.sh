#!/usr/bin/env bash
# What a protected POST can reach behind the embedded store's structure, whatever the engine:
# nginx's pass-through of the same POST beside idemproxy on the memory store (no store thread),
# the embedded store with no engine at all (its store thread, queue, group commit and record
# encoding, the records in a bounded in-heap map, the commit a no-op), on MVStore (as shipped),
# and on RocksDB. It needs a jar built from this commit with store-ceiling.patch applied (the
# patch adds the system properties exp.noop and exp.rocks that this script sets, and three more
# tried by hand: exp.nowait, no group-commit wait; exp.eoi, the store thread signalled once per
# turn of the event loop; exp.fifo, RocksDB's FIFO compaction. See docs/benchmarks.md, "What the
# protected bars would need"):
#
#   git worktree add ../ceiling HEAD && (cd ../ceiling && git apply bench/experiments/store-ceiling.patch \
#       && mvn -q -B package -DskipTests)
#   bench/experiments/store-ceiling.sh ../ceiling/proxy-app/target/idemproxy.jar [ROUNDS]
#
# Placement as in bench/run.sh: the process under test on core 0, wrk and the upstream nginx on
# core 1. Each variant gets a fresh JVM, 60 s of unmeasured load, then three measured 10 s runs;
# nginx gets a 10 s run before each variant. Prints req/s, CPU µs per request (the process's
# utime+stime from /proc over its requests) and wrk's p50/p99. Loopback only; every load bounded.
set -euo pipefail
cd "$(dirname "$0")/../.."
JAR=${1:?usage: store-ceiling.sh PATCHED_JAR [ROUNDS]}
ROUNDS=${2:-2}
source bench/lib.sh
experiment_setup ceiling nginx wrk taskset
JAR=$(jar_path "$JAR")

UP=$(pick_port)
NGP=$(pick_port)
start_upstream "$WORK/upstream" "$UP" "$POST_BODY"
start_proxy_nginx "$WORK/proxy" "$NGP" "$UP"

measure() { # port pid seconds -> "req/s  CPU µs/req  p50  p99"
    local before after out rps requests
    before=$(cpu_ticks "$2")
    out=$(taskset -c 1 wrk --latency -t1 -c50 -d"$3"s --timeout 5s -s bench/wrk/protected-post.lua \
        "http://127.0.0.1:$1/idem/post" -- "c$RANDOM$RANDOM" | grep BENCH_RESULT)
    after=$(cpu_ticks "$2")
    rps=$(sed -E 's/.*rps=([0-9.]+).*/\1/' <<<"$out")
    requests=$(sed -E 's/.* requests=([0-9]+).*/\1/' <<<"$out")
    awk -v r="$rps" -v q="$requests" -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" \
        -v a="$(sed -E 's/.*p50_us=([0-9]+).*/\1/' <<<"$out")" -v b="$(sed -E 's/.*p99_us=([0-9]+).*/\1/' <<<"$out")" \
        'BEGIN { printf "%8.0f req/s %7.1f CPU us/req  p50 %6.2f ms  p99 %7.2f ms\n", r, t * 1e6 / hz / q, a / 1000, b / 1000 }'
}

start_variant() { # name store flags extra-store-yaml -> sets VPID VPORT
    local dir="$WORK/$1" port admin
    mkdir -p "$dir/conf"
    port=$(pick_port)
    admin=$(pick_port)
    {
        echo "listen: 127.0.0.1:$port"
        echo "admin: { listen: 127.0.0.1:$admin }"
        echo "server: { ioThreads: 1 }"
        echo "store:"
        echo "  type: $2"
        [[ $2 == embedded ]] && echo "  embedded: { path: \"$dir/data\" }" && echo "  nearCache: { enabled: false }"
        echo "routes:"
        echo "  - name: idem"
        echo "    match: { pathPrefix: /idem }"
        echo "    upstream: http://127.0.0.1:$UP"
        echo "    idempotency: { enabled: true, methods: [POST], ttl: 30s }"
    } >"$dir/conf/idemproxy.yaml"
    # shellcheck disable=SC2086 # the flags are words
    (cd "$dir" && exec taskset -c 0 java -Xms1g -Xmx1g -XX:+UseParallelGC -XX:+AlwaysPreTouch $3 \
        -jar "$JAR" run --config "$dir/conf/idemproxy.yaml") >"$dir/stdout.log" 2>&1 &
    VPID=$!
    VPORT=$port
    STARTED_PIDS+=("$VPID")
    local deadline=$((SECONDS + 60))
    until port_in_use "$port"; do
        kill -0 "$VPID" 2>/dev/null || die "$1 exited at start: $(tail -n 5 "$dir/stdout.log")"
        (( SECONDS < deadline )) || die "$1 not listening after 60 s"
        sleep 0.2
    done
}

for round in $(seq "$ROUNDS"); do
    for variant in memory noop mvstore rocks; do
        printf '%-8s r%d  %s\n' nginx "$round" "$(measure "$NGP" "$NGINX_WORKER" 10)"
        case $variant in
            memory) start_variant memory memory "" ;;
            noop) start_variant noop embedded "-Dexp.noop=true" ;;
            mvstore) start_variant mvstore embedded "" ;;
            rocks) start_variant rocks embedded "-Dexp.rocks=true" ;;
        esac
        measure "$VPORT" "$VPID" 60 >/dev/null
        for _ in 1 2 3; do printf '%-8s r%d  %s\n' "$variant" "$round" "$(measure "$VPORT" "$VPID" 10)"; done
        kill "$VPID"
        wait "$VPID" 2>/dev/null || true
        rm -rf "$WORK/$variant/data"
    done
done
