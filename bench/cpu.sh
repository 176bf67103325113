#!/usr/bin/env bash
# Whole-system CPU per request: what one request costs every process involved (the proxy, the
# upstream, Redis) plus the work the proxy keeps doing after the load stops, next to nginx passing
# the same POST through, in one run, medians of interleaved rounds. See docs/benchmarks.md.
#
#   bench/cpu.sh [--cases LIST] [--rounds 3] [--duration 10s] [--warmup 8s] [--connections 50]
#                [--jar PATH] [--jar-b PATH] [--jvm-options FILE] [--out FILE]
#
# Cases: nginx (the unit: nginx passing the POST through), pass (idemproxy, no protection),
#   memory-new memory-replay embedded-new embedded-replay redis-new redis-replay
#   (-new: a new Idempotency-Key every request; -replay: one stored key, answered from the store),
#   mcp-new mcp-replay (an MCP route on the memory store: a JSON-RPC tools/call of about the same
#   size, new arguments every request, or one stored call duplicated with a new id each time; the
#   upstream answers a JSON-RPC result). Not in the default list: --cases names them.
# --jar-b runs every idemproxy case a second time with another jar (A/B, interleaved), for
# before/after comparisons of a change. Placement: the proxy and the upstream nginx share core 0;
# wrk and redis-server share core 1. Every process is private, on free loopback ports, and is
# stopped on exit; every load is bounded by --duration.
set -euo pipefail
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
CMDLINE="bench/cpu.sh${*:+ $*}"

CASES=nginx,pass,memory-new,memory-replay,embedded-new,embedded-replay,redis-new,redis-replay
ROUNDS=3
DURATION=10s
WARMUP=8s
CONNECTIONS=50
JAR=$REPO_ROOT/proxy-app/target/idemproxy.jar
JAR_B=""
JVM_OPTIONS=$REPO_ROOT/config/jvm.options
OUT=$REPO_ROOT/bench/out/cpu.md
IDLE_LIMIT=20      # seconds to wait, after a run, for the proxy to go idle (its deferred work)

while [[ $# -gt 0 ]]; do
    case "$1" in
        --cases) CASES=$2; shift 2 ;;
        --rounds) ROUNDS=$2; shift 2 ;;
        --duration) DURATION=$2; shift 2 ;;
        --warmup) WARMUP=$2; shift 2 ;;
        --connections) CONNECTIONS=$2; shift 2 ;;
        --jar) JAR=$2; shift 2 ;;
        --jar-b) JAR_B=$2; shift 2 ;;
        --jvm-options) JVM_OPTIONS=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
    esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "--rounds must be a positive integer" >&2; exit 2; }
[[ $DURATION =~ ^[0-9]+s$ && $WARMUP =~ ^[0-9]+s$ ]] || { echo "--duration and --warmup take seconds, e.g. 10s" >&2; exit 2; }

LOG_TAG=cpu
# shellcheck source=bench/lib.sh
source "$SCRIPT_DIR/lib.sh"
ensure_tools nginx wrk redis-server
(( $(nproc) >= 2 )) || die "needs 2 cores for the placement"
CLK_TCK=$(getconf CLK_TCK)
IFS=',' read -r -a CASE_LIST <<<"$CASES"
for c in "${CASE_LIST[@]}"; do
    case "$c" in nginx|pass|memory-new|memory-replay|embedded-new|embedded-replay|redis-new|redis-replay|mcp-new|mcp-replay) ;;
        *) die "unknown case: $c" ;; esac
done
needs_store() { [[ ",$CASES," == *",$1-"* ]] || [[ $1 == memory && ",$CASES," == *",mcp-"* ]]; }

WORK=$REPO_ROOT/bench/out/cpu
rm -rf "$WORK"; mkdir -p "$WORK"
BODY='{"userId":42,"op":"create_ticket","title":"printer on floor 3 is out of toner!!!!!"}'  # 84 bytes
# What the upstream answers an MCP tools/call (bench/wrk/mcp-*.lua send ~125 bytes: the POST's 84 and its key)
MCP_RESULT='{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"t-000001"}],"isError":false}}'
mcp_call() { # n-argument -> a tools/call as bench/wrk/mcp-same-call.lua sends it (its first request's id)
    printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_ticket","arguments":{"title":"printer 3","n":"%s"}}}' "$1"
}

# ---------------------------------------------------------------- the upstream and nginx (core 0)
UP_PORT=$(pick_port)
start_upstream_on "$WORK/upstream" "$UP_PORT" '{"ok":true,"id":"t-000001"}' 0 "$MCP_RESULT"
UP_WORKER=$UPSTREAM_WORKER
NGINX_PORT=$(pick_port)
start_proxy_nginx "$WORK/nginx" "$NGINX_PORT" "$UP_PORT"

# ---------------------------------------------------------------- redis (core 1)
REDIS_PID=""
if needs_store redis; then
    REDIS_PORT=$(pick_port)
    mkdir -p "$WORK/redis"
    taskset -c 1 redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no \
        --dir "$WORK/redis" --logfile "$WORK/redis/redis.log" >/dev/null 2>&1 &
    REDIS_PID=$!
    STARTED_PIDS+=("$REDIS_PID")
    wait_port "$REDIS_PORT" 10 || die "redis-server did not start"
fi

# ---------------------------------------------------------------- idemproxy JVMs (core 0)
declare -A PORT ADMIN PID
jvm_options() { [[ -f $JVM_OPTIONS ]] && echo "@$JVM_OPTIONS"; }
start_idemproxy() { # name jar store
    local name=$1 jar=$2 store=$3 dir=$WORK/$1
    mkdir -p "$dir"
    cp "$jar" "$dir/idemproxy.jar"   # a rebuild mid-run cannot swap the jar under the JVM
    PORT[$name]=$(pick_port); ADMIN[$name]=$(pick_port)
    {
        echo "listen: 127.0.0.1:${PORT[$name]}"
        echo "admin: { listen: 127.0.0.1:${ADMIN[$name]} }"
        echo "server: { ioThreads: 1 }"
        echo "store:"
        echo "  type: $store"
        case $store in
            embedded) echo "  embedded: { path: \"$dir/data\" }" ;;
            redis) echo "  redis: { uri: \"redis://127.0.0.1:$REDIS_PORT\", keyPrefix: \"$name:\" }" ;;
        esac
        cat <<EOC
routes:
  - name: bench
    match: { pathPrefix: /bench }
    upstream: http://127.0.0.1:$UP_PORT
    log: { passThrough: false }
  - name: idem
    match: { pathPrefix: /idem }
    upstream: http://127.0.0.1:$UP_PORT
    idempotency: { enabled: true, methods: [POST], ttl: 2m }
  - name: mcp
    match: { pathPrefix: /mcp }
    upstream: http://127.0.0.1:$UP_PORT
    mcp: { enabled: true }
    idempotency: { ttl: 2m }
EOC
    } >"$dir/idemproxy.yaml"
    # shellcheck disable=SC2046
    (cd "$dir" && exec taskset -c 0 java $(jvm_options) "-Xlog:gc:file=$dir/gc.log:uptimemillis" \
        -jar "$dir/idemproxy.jar" run --config "$dir/idemproxy.yaml") >"$dir/stdout.log" 2>&1 &
    PID[$name]=$!
    STARTED_PIDS+=("${PID[$name]}")
    local deadline=$((SECONDS + 60))
    until curl -fsS "http://127.0.0.1:${ADMIN[$name]}/readyz" >/dev/null 2>&1; do
        kill -0 "${PID[$name]}" 2>/dev/null || die "$name exited at start: $(tail -n 5 "$dir/stdout.log")"
        (( SECONDS < deadline )) || die "$name not ready after 60 s"
        sleep 0.2
    done
}
JARS=(A)
[[ -n $JAR_B ]] && JARS+=(B)
jar_of() { [[ $1 == A ]] && echo "$JAR" || echo "$JAR_B"; }
for v in "${JARS[@]}"; do
    [[ -f $(jar_of "$v") ]] || die "no jar at $(jar_of "$v") (mvn -q package -DskipTests builds it)"
    [[ ",$CASES," == *",pass,"* ]] && start_idemproxy "pass-$v" "$(jar_of "$v")" memory
    for s in memory embedded redis; do
        needs_store "$s" && start_idemproxy "$s-$v" "$(jar_of "$v")" "$s"
    done
done

# ---------------------------------------------------------------- one measured run
wrk_run() { # url script seconds nonce -> wrk's BENCH_RESULT line
    taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"$3" --timeout 5s -s "$SCRIPT_DIR/wrk/$2" "$1" -- "$4" "$BODY" 2>&1 \
        | grep '^BENCH_RESULT' || true
}
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<" $1"; }
# Bytes the process wrote to disk less its own log files' growth: what its store wrote.
write_bytes() { # pid dir
    local io logs=0 f
    io=$(awk '/^write_bytes/ {print $2}' "/proc/$1/io" 2>/dev/null || echo 0)
    for f in "$2"/stdout.log "$2"/gc.log; do [[ -f $f ]] && logs=$((logs + $(stat -c %s "$f"))); done
    echo $((io - logs))
}
# Ticks the process spends after the load, until a second passes with under 2% of a core used.
deferred_ticks() { # pid
    local t0 prev now spent=0
    t0=$(cpu_ticks "$1"); prev=$t0
    for _ in $(seq 1 "$IDLE_LIMIT"); do
        sleep 1
        now=$(cpu_ticks "$1")
        (( (now - prev) * 100 < CLK_TCK * 2 )) && break
        prev=$now
    done
    echo $(( now - t0 ))
}
max_pause_ms() { # gc.log from_ms to_ms -> the longest pause logged in the window, and the full GCs
    awk -v a="$2" -v b="$3" '
        { t = $1; gsub(/[^0-9]/, "", t); t += 0 }
        t >= a && t <= b && /Pause/ { ms = $NF; sub(/ms$/, "", ms); if (ms + 0 > max) max = ms + 0; if (/Full/) full++ }
        END { printf "%.1f %d", max, full + 0 }' "$1"
}
allocated() { # name -> jvm_gc_memory_allocated_bytes_total (counted at each young GC), or 0
    [[ $1 == nginx ]] && { echo 0; return; }
    curl -fsS "http://127.0.0.1:${ADMIN[$1]}/metrics" 2>/dev/null \
        | awk '/^jvm_gc_memory_allocated_bytes_total/ {printf "%.0f", $NF; f = 1} END {if (!f) print 0}'
}
uptime_ms() { # pid -> the JVM's uptime in ms (its start time from /proc)
    local start now
    start=$(awk '{print $22}' "/proc/$1/stat")
    now=$(awk '{print $1}' /proc/uptime)
    awk -v s="$start" -v n="$now" -v hz="$CLK_TCK" 'BEGIN { printf "%d", (n - s / hz) * 1000 }'
}
RESULTS=$WORK/results.tsv
printf 'case\tjar\tround\trps\tproxy_us\tupstream_us\tredis_us\tdeferred_us\ttotal_us\trss_mib\tdisk_b\talloc_b\tmax_pause_ms\tfull_gcs\n' >"$RESULTS"

measure() { # case jar round
    local case=$1 v=$2 round=$3 name script url pid key
    case $case in
        nginx) name=nginx; pid=$NGINX_WORKER; url="http://127.0.0.1:$NGINX_PORT/bench/post"; script=post-body.lua ;;
        pass) name=pass-$v; url="http://127.0.0.1:${PORT[$name]}/bench/post"; script=post-body.lua ;;
        mcp-new) name=memory-$v; url="http://127.0.0.1:${PORT[$name]}/mcp"; script=mcp-new-call.lua ;;
        mcp-replay) name=memory-$v; url="http://127.0.0.1:${PORT[$name]}/mcp"; script=mcp-same-call.lua ;;
        *-new) name=${case%-new}-$v; url="http://127.0.0.1:${PORT[$name]}/idem/post"; script=post-new-key.lua ;;
        *-replay) name=${case%-replay}-$v; url="http://127.0.0.1:${PORT[$name]}/idem/post"; script=post-same-key.lua ;;
    esac
    [[ $case == nginx ]] || pid=${PID[$name]}
    key="r$round-$RANDOM$RANDOM"
    if [[ $case == mcp-replay ]]; then  # the one stored tools/call every request of the run duplicates
        curl -fsS -o /dev/null -X POST -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
            --data "$(mcp_call "cpu-$key")" "$url" || die "$case: the stored call failed"
    elif [[ $case == *-replay ]]; then  # the one stored call every request of the run duplicates
        curl -fsS -o /dev/null -X POST -H 'Content-Type: application/json' -H "Idempotency-Key: cpu-$key" \
            --data "$BODY" "$url" || die "$case: the stored call failed"
    fi
    wrk_run "$url" "$script" "$WARMUP" "w$key" >/dev/null
    local p0 u0 r0=0 d0 t0 res p1 u1 r1=0 d1 t1 def reqs
    p0=$(cpu_ticks "$pid"); u0=$(cpu_ticks "$UP_WORKER"); d0=$(write_bytes "$pid" "$WORK/$name")
    [[ -n $REDIS_PID ]] && r0=$(cpu_ticks "$REDIS_PID")
    [[ $case == nginx ]] || t0=$(uptime_ms "$pid")
    local a0 a1; a0=$(allocated "$name")
    res=$(wrk_run "$url" "$script" "$DURATION" "$key")
    p1=$(cpu_ticks "$pid"); u1=$(cpu_ticks "$UP_WORKER")
    [[ -n $REDIS_PID ]] && r1=$(cpu_ticks "$REDIS_PID")
    def=$(deferred_ticks "$pid")
    d1=$(write_bytes "$pid" "$WORK/$name")
    [[ $case == nginx ]] || t1=$(uptime_ms "$pid")
    a1=$(allocated "$name")
    reqs=$(field "$res" requests)
    [[ -n $reqs && $reqs -gt 0 ]] || die "$case: wrk made no requests: $res"
    local errs; errs=$(( $(field "$res" err_status) + $(field "$res" err_read) + $(field "$res" err_timeout) ))
    (( errs * 100 < reqs )) || log "$case round $round: $errs errors of $reqs requests"
    local redis=0; [[ $case == redis-* ]] && redis=$((r1 - r0))
    local gc="0.0 0"; [[ $case == nginx ]] || gc=$(max_pause_ms "$WORK/$name/gc.log" "$t0" "$t1")
    local rss; rss=$(awk '/^VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$pid/status")
    awk -v c="$case" -v v="$v" -v r="$round" -v rps="$(field "$res" rps)" -v n="$reqs" -v hz="$CLK_TCK" \
        -v p=$((p1 - p0)) -v u=$((u1 - u0)) -v rd="$redis" -v df="$def" -v rss="$rss" -v disk=$((d1 - d0)) -v alloc=$((a1 - a0)) -v gc="$gc" '
        BEGIN { k = 1e6 / hz / n; split(gc, g, " ")
                printf "%s\t%s\t%d\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%s\t%.0f\t%.0f\t%s\t%s\n", c, v, r, rps,
                    p * k, u * k, rd * k, df * k, (p + u + rd + df) * k, rss, disk / n, alloc / n, g[1], g[2] }' >>"$RESULTS"
    log "$(tail -n 1 "$RESULTS" | tr '\t' ' ')"
}

for round in $(seq 1 "$ROUNDS"); do
    for c in "${CASE_LIST[@]}"; do
        if [[ $c == nginx ]]; then measure nginx A "$round"; continue; fi
        for v in "${JARS[@]}"; do measure "$c" "$v" "$round"; done
    done
done

# ---------------------------------------------------------------- the table: medians over rounds
mkdir -p "$(dirname "$OUT")"
{
    echo "# Whole-system CPU per request ($(date -u +%Y-%m-%dT%H:%MZ))"
    echo
    echo "\`$CMDLINE\`; $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n1)); JVM options: $( [[ -f $JVM_OPTIONS ]] && echo "@${JVM_OPTIONS#"$REPO_ROOT"/}" || echo none) -Xlog:gc; ${CONNECTIONS} connections; medians of $ROUNDS interleaved rounds of $DURATION."
    echo
    "$SCRIPT_DIR/cpu-table.py" "$RESULTS"
} >"$OUT"
cat "$OUT"
