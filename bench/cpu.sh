#!/usr/bin/env bash
# Whole-system CPU per request: what one request costs every process involved (the proxy, the
# upstream, Redis) plus the work the proxy keeps doing after the load stops, next to nginx passing
# the same POST through, in one run, medians of interleaved rounds. See docs/benchmarks.md.
#
#   bench/cpu.sh [--cases LIST] [--rounds 3] [--duration 10s] [--warmup 8s] [--first-warmup 40s] [--connections 50]
#                [--jar PATH] [--jar-b PATH] [--jvm-options FILE] [--jvm-extra 'OPTS']
#                [--jvm-extra-b 'OPTS'] [--jvm-options-b FILE] [--preload N] [--bench-jar PATH]
#                [--store-extra 'YAML'] [--embedded-sync MODE] [--embedded-sync-b MODE] [--redis-cpus LIST]
#                [--config-extra-b 'YAML'] [--out FILE]
#
# Cases: nginx (the unit: nginx passing the POST through), pass (idemproxy, no protection),
#   memory-new memory-replay embedded-new embedded-replay redis-new redis-replay
#   (-new: a new Idempotency-Key every request; -replay: one stored key, answered from the store),
#   mcp-new mcp-replay (an MCP route on the memory store: a JSON-RPC tools/call of about the same
#   size, new arguments every request, or one stored call duplicated with a new id each time; the
#   upstream answers a JSON-RPC result). Not in the default list: --cases names them.
# --jar-b runs every idemproxy case a second time with another jar (A/B, interleaved), for
# before/after comparisons of a change. --jvm-extra adds JVM options after the profile's (an
# emulated pod limit, -XX:MaxRAM=512m; a profile, -XX:StartFlightRecording=filename=rec.jfr, written
# in bench/out/cpu/CASE-A/); --jvm-extra-b gives B those options instead (B runs --jar-b, else the
# same jar), for A/B runs of JVM options; --jvm-options-b gives B another profile. --preload N fills A's embedded and Redis stores with N
# completed calls (records and receipts, proxy-bench's PreloadStore, from --bench-jar) before their
# proxies start; B's stay empty (--jvm-extra-b with A's options: full against empty). --config-extra-b adds
# top-level YAML to B's configs only (e.g. a telemetry: section), for A/B runs of a setting. Placement: the proxy and the upstream nginx share core 0;
# wrk and redis-server share core 1. Every process is private, on free loopback ports, and is
# stopped on exit; every load is bounded by --duration. --store-extra adds a line under every
# proxy's store: (e.g. 'nearCache: { enabled: false }'). --embedded-sync sets A's
# store.embedded.sync (none, interval, always), --embedded-sync-b B's (jars that know the key).
# --redis-cpus moves redis-server off wrk's core 1 (taskset's list: 0 beside the proxy, 0,1 either).
# The table's "store thr µs" is the CPU of the store's own threads per request (the embedded
# store's executor and sync threads, or MVStore's; Lettuce's own threads), inside "proxy µs".
set -euo pipefail
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
CMDLINE="bench/cpu.sh${*:+ $*}"

CASES=nginx,pass,memory-new,memory-replay,embedded-new,embedded-replay,redis-new,redis-replay
ROUNDS=3
DURATION=10s
WARMUP=8s
FIRST_WARMUP=40s
CONNECTIONS=50
JAR=$REPO_ROOT/proxy-app/target/idemproxy.jar
JAR_B=""
JVM_OPTIONS=$REPO_ROOT/config/jvm.options
JVM_EXTRA=""
JVM_EXTRA_B=unset
JVM_OPTIONS_B=""
OUT=$REPO_ROOT/bench/out/cpu.md
PRELOAD=0
BENCH_JAR=$REPO_ROOT/proxy-bench/target/idemproxy-bench.jar
STORE_EXTRA=""
CONFIG_EXTRA_B=""
EMBEDDED_SYNC=""
EMBEDDED_SYNC_B=""
REDIS_CPUS=1
IDLE_LIMIT=20      # seconds to wait, after a run, for the proxy to go idle (its deferred work)

while [[ $# -gt 0 ]]; do
    case "$1" in
        --cases) CASES=$2; shift 2 ;;
        --rounds) ROUNDS=$2; shift 2 ;;
        --duration) DURATION=$2; shift 2 ;;
        --warmup) WARMUP=$2; shift 2 ;;
        --first-warmup) FIRST_WARMUP=$2; shift 2 ;;
        --connections) CONNECTIONS=$2; shift 2 ;;
        --jar) JAR=$2; shift 2 ;;
        --jar-b) JAR_B=$2; shift 2 ;;
        --jvm-options) JVM_OPTIONS=$2; shift 2 ;;
        --jvm-extra) JVM_EXTRA=$2; shift 2 ;;
        --jvm-extra-b) JVM_EXTRA_B=$2; shift 2 ;;
        --jvm-options-b) JVM_OPTIONS_B=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --preload) PRELOAD=$2; shift 2 ;;
        --bench-jar) BENCH_JAR=$2; shift 2 ;;
        --store-extra) STORE_EXTRA=$2; shift 2 ;;
        --config-extra-b) CONFIG_EXTRA_B=$2; shift 2 ;;
        --embedded-sync) EMBEDDED_SYNC=$2; shift 2 ;;
        --embedded-sync-b) EMBEDDED_SYNC_B=$2; shift 2 ;;
        --redis-cpus) REDIS_CPUS=$2; shift 2 ;;
        -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
    esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "--rounds must be a positive integer" >&2; exit 2; }
[[ $REDIS_CPUS =~ ^[01](,[01])?$ ]] || { echo "--redis-cpus takes 0, 1 or 0,1" >&2; exit 2; }
[[ $PRELOAD =~ ^[0-9]+$ ]] || { echo "--preload takes a count of records" >&2; exit 2; }
[[ $DURATION =~ ^[0-9]+s$ && $WARMUP =~ ^[0-9]+s$ && $FIRST_WARMUP =~ ^[0-9]+s$ ]] \
    || { echo "--duration, --warmup and --first-warmup take seconds, e.g. 10s" >&2; exit 2; }

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

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
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

# ---------------------------------------------------------------- redis (core 1, or --redis-cpus)
REDIS_PID=""
if needs_store redis; then
    REDIS_PORT=$(pick_port)
    mkdir -p "$WORK/redis"
    taskset -c "$REDIS_CPUS" redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no \
        --dir "$WORK/redis" --logfile "$WORK/redis/redis.log" >/dev/null 2>&1 &
    REDIS_PID=$!
    STARTED_PIDS+=("$REDIS_PID")
    wait_port "$REDIS_PORT" 10 || die "redis-server did not start"
fi

# ---------------------------------------------------------------- idemproxy JVMs (core 0)
declare -A PORT ADMIN PID
jvm_options() { # name -> the profile's @file, B's own with --jvm-options-b
    local f=$JVM_OPTIONS
    [[ $1 == *-B && -n $JVM_OPTIONS_B ]] && f=$JVM_OPTIONS_B
    [[ -f $f ]] && echo "@$f"
}
start_idemproxy() { # name jar store extra-options
    local name=$1 jar=$2 store=$3 extra=$4 dir=$WORK/$1
    mkdir -p "$dir"
    cp "$jar" "$dir/idemproxy.jar"   # a rebuild mid-run cannot swap the jar under the JVM
    if (( PRELOAD > 0 )) && [[ $store != memory && $name == *-A ]]; then
        [[ -f $BENCH_JAR ]] || die "no bench jar at $BENCH_JAR (mvn -q -pl proxy-bench -am package -DskipTests builds it)"
        log "$name: preloading $PRELOAD completed calls"
        case $store in
            embedded) java -cp "$BENCH_JAR" dev.idemproxy.bench.PreloadStore embedded "$dir/data" "$PRELOAD" PT1H ;;
            redis) java -cp "$BENCH_JAR" dev.idemproxy.bench.PreloadStore redis "redis://127.0.0.1:$REDIS_PORT" "$name:" "$PRELOAD" PT1H ;;
        esac 2>&1 | grep -v '^SLF4J' >&2 || die "$name: the preload failed"
    fi
    PORT[$name]=$(pick_port); ADMIN[$name]=$(pick_port)
    {
        echo "listen: 127.0.0.1:${PORT[$name]}"
        echo "admin: { listen: 127.0.0.1:${ADMIN[$name]} }"
        echo "server: { ioThreads: 1 }"
        echo "store:"
        echo "  type: $store"
        case $store in
            embedded) local sync=$EMBEDDED_SYNC; [[ $name == *-B ]] && sync=$EMBEDDED_SYNC_B
                echo "  embedded: { path: \"$dir/data\"${sync:+, sync: $sync} }" ;;
            redis) echo "  redis: { uri: \"redis://127.0.0.1:$REDIS_PORT\", keyPrefix: \"$name:\" }" ;;
        esac
        [[ -n $STORE_EXTRA ]] && echo "  $STORE_EXTRA"
        [[ $name == *-B && -n $CONFIG_EXTRA_B ]] && echo "$CONFIG_EXTRA_B"
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
    (cd "$dir" && exec taskset -c 0 java $(jvm_options "$name") $extra "-Xlog:gc:file=$dir/gc.log:uptimemillis" \
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
[[ -n $JAR_B || $JVM_EXTRA_B != unset || -n $JVM_OPTIONS_B || -n $EMBEDDED_SYNC_B || -n $CONFIG_EXTRA_B ]] && JARS+=(B)
jar_of() { [[ $1 == A || -z $JAR_B ]] && echo "$JAR" || echo "$JAR_B"; }
extra_of() { [[ $1 == A || $JVM_EXTRA_B == unset ]] && echo "$JVM_EXTRA" || echo "$JVM_EXTRA_B"; }
for v in "${JARS[@]}"; do
    [[ -f $(jar_of "$v") ]] || die "no jar at $(jar_of "$v") (mvn -q package -DskipTests builds it)"
    [[ ",$CASES," == *",pass,"* ]] && start_idemproxy "pass-$v" "$(jar_of "$v")" memory "$(extra_of "$v")"
    for s in memory embedded redis; do
        needs_store "$s" && start_idemproxy "$s-$v" "$(jar_of "$v")" "$s" "$(extra_of "$v")"
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
# Every thread's CPU ticks, "TID NAME TICKS" a line: where a JVM's time went (GC, JIT, event loop, store).
thread_ticks() { # pid
    local t stat f
    for t in /proc/"$1"/task/*; do
        stat=$(<"$t/stat") 2>/dev/null || continue
        f=${stat##*) }; read -r -a f <<<"$f"
        printf '%s %s %d\n' "${t##*/}" "$(tr ' ' '_' <"$t/comm")" $(( f[11] + f[12] ))
    done
}
# The threads' ticks between two snapshots, summed by name (digits folded), as µs per request, largest first.
thread_split() { # before after requests
    awk -v n="$3" -v hz="$CLK_TCK" 'NR == FNR { a[$1] = $3; next }
        { name = $2; gsub(/[0-9]+/, "#", name); d[name] += $3 - a[$1] }
        END { for (k in d) if (d[k] > 0) printf "%.1f %s\n", d[k] * 1e6 / hz / n, k }' "$1" "$2" | sort -rn
}
# Redis's own count of commands run, by command ("cmdstat_evalsha CALLS USEC" a line).
# Lines "_reads N", "_in_bytes N", "_user_us N", "_sys_us N" follow: the reads Redis made of its
# clients' sockets, the bytes it read, and its CPU time, user and system.
redis_stats() {
    [[ -n $REDIS_PID ]] || return 0
    redis-cli -p "$REDIS_PORT" INFO commandstats | tr -d '\r' \
        | sed -n 's/^cmdstat_\([^:]*\):calls=\([0-9]*\),usec=\([0-9]*\),.*/\1 \2 \3/p'
    redis-cli -p "$REDIS_PORT" INFO all | tr -d '\r' | awk -F: '
        $1 == "total_reads_processed" { print "_reads", $2, 0 }
        $1 == "total_net_input_bytes" { print "_in_bytes", $2, 0 }
        $1 == "used_cpu_user" { printf "_user_us %.0f 0\n", $2 * 1e6 }
        $1 == "used_cpu_sys" { printf "_sys_us %.0f 0\n", $2 * 1e6 }'
}
# Commands per request between two snapshots: "TOTAL cmd=calls/req,..." (the commands run by a
# protected call: its round trips when each is awaited in turn).
redis_split() { # before after requests
    awk -v n="$3" 'NR == FNR { c[$1] = $2; next } $1 !~ /^_/ { d = $2 - c[$1]; if (d > 0) { t += d; s = s sprintf("%s%s=%.2f", s == "" ? "" : ",", $1, d / n) } }
        END { printf "%.2f %s\n", t / n, s == "" ? "-" : s }' "$1" "$2"
}
# Redis's reads of its sockets, bytes read, and user and system CPU µs, per request.
redis_io() { # before after requests
    awk -v n="$3" 'NR == FNR { c[$1] = $2; next } $1 ~ /^_/ { s = s sprintf("%s%s=%.2f", s == "" ? "" : " ", substr($1, 2), ($2 - c[$1]) / n) }
        END { print s }' "$1" "$2"
}
# Redis's own time in each command per request (commandstats usec: executing it, a script's
# commands inside its EVALSHA's time too; not reading, parsing or answering): "TOTAL cmd=µs,...".
redis_usec() { # before after requests
    awk -v n="$3" 'NR == FNR { u[$1] = $3; next } $1 !~ /^_/ { d = $3 - u[$1]; if (d > 0 && $1 != "info") s = s sprintf("%s%s=%.2f", s == "" ? "" : ",", $1, d / n) }
        END { printf "%s\n", s == "" ? "-" : s }' "$1" "$2"
}
RESULTS=$WORK/results.tsv
printf 'case\tjar\tround\trps\tproxy_us\tupstream_us\tredis_us\tdeferred_us\ttotal_us\trss_mib\tdisk_b\talloc_b\tmax_pause_ms\tfull_gcs\tredis_cmds\tstore_us\n' >"$RESULTS"

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
    local warm=$WARMUP
    (( round == 1 && ${FIRST_WARMUP%s} > ${WARMUP%s} )) && [[ $case != nginx ]] && warm=$FIRST_WARMUP
    wrk_run "$url" "$script" "$warm" "w$key" >/dev/null
    local p0 u0 r0=0 d0 t0 res p1 u1 r1=0 d1 t1 def reqs
    [[ $case == nginx ]] || thread_ticks "$pid" >"$WORK/$name/threads0"
    [[ $case == redis-* ]] && redis_stats >"$WORK/redis/stats0"
    p0=$(cpu_ticks "$pid"); u0=$(cpu_ticks "$UP_WORKER"); d0=$(write_bytes "$pid" "$WORK/$name")
    [[ -n $REDIS_PID ]] && r0=$(cpu_ticks "$REDIS_PID")
    [[ $case == nginx ]] || t0=$(uptime_ms "$pid")
    local a0 a1; a0=$(allocated "$name")
    res=$(wrk_run "$url" "$script" "$DURATION" "$key")
    p1=$(cpu_ticks "$pid"); u1=$(cpu_ticks "$UP_WORKER")
    local cmds="0 -"
    if [[ $case == redis-* ]]; then
        redis_stats >"$WORK/redis/stats1"
        cmds=$(redis_split "$WORK/redis/stats0" "$WORK/redis/stats1" "$(field "$res" requests)")
        log "$case $v round $round, Redis commands per request: $cmds"
        log "$case $v round $round, Redis µs per request in each command: $(redis_usec "$WORK/redis/stats0" "$WORK/redis/stats1" "$(field "$res" requests)")"
        log "$case $v round $round, Redis per request: $(redis_io "$WORK/redis/stats0" "$WORK/redis/stats1" "$(field "$res" requests)")"
    fi
    [[ -n $REDIS_PID ]] && r1=$(cpu_ticks "$REDIS_PID")
    def=$(deferred_ticks "$pid")
    d1=$(write_bytes "$pid" "$WORK/$name")
    [[ $case == nginx ]] || t1=$(uptime_ms "$pid")
    local store_us=0
    if [[ $case != nginx ]]; then  # where the proxy's time went, thread by thread (µs per request)
        thread_ticks "$pid" >"$WORK/$name/threads1"
        thread_split "$WORK/$name/threads0" "$WORK/$name/threads1" "$(field "$res" requests)" >"$WORK/$name/threads-$case-$round.txt"
        log "$case $v round $round, proxy µs/req by thread: $(head -n 6 "$WORK/$name/threads-$case-$round.txt" | tr '\n' ' ')"
        # the store's own threads: the embedded store's executor and sync thread (idemproxy-embedded-*), MVStore's (H2-*), Lettuce's
        store_us=$(awk '$2 ~ /^(idemproxy-embed|H#-|MVStore|lettuce)/ {s += $1} END {printf "%.1f", s + 0}' "$WORK/$name/threads-$case-$round.txt")
    fi
    a1=$(allocated "$name")
    reqs=$(field "$res" requests)
    [[ -n $reqs && $reqs -gt 0 ]] || die "$case: wrk made no requests: $res"
    local errs; errs=$(( $(field "$res" err_status) + $(field "$res" err_read) + $(field "$res" err_timeout) ))
    (( errs * 100 < reqs )) || log "$case round $round: $errs errors of $reqs requests"
    local redis=0; [[ $case == redis-* ]] && redis=$((r1 - r0))
    local gc="0.0 0"; [[ $case == nginx ]] || gc=$(max_pause_ms "$WORK/$name/gc.log" "$t0" "$t1")
    local rss; rss=$(awk '/^VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$pid/status")
    awk -v c="$case" -v v="$v" -v r="$round" -v rps="$(field "$res" rps)" -v n="$reqs" -v hz="$CLK_TCK" \
        -v p=$((p1 - p0)) -v u=$((u1 - u0)) -v rd="$redis" -v df="$def" -v rss="$rss" -v disk=$((d1 - d0)) -v alloc=$((a1 - a0)) -v gc="$gc" -v cmds="${cmds%% *}" -v st="$store_us" '
        BEGIN { k = 1e6 / hz / n; split(gc, g, " ")
                printf "%s\t%s\t%d\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%s\t%.0f\t%.0f\t%s\t%s\t%s\t%s\n", c, v, r, rps,
                    p * k, u * k, rd * k, df * k, (p + u + rd + df) * k, rss, disk / n, alloc / n, g[1], g[2], cmds, st }' >>"$RESULTS"
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
    echo "\`$CMDLINE\`${EMBEDDED_SYNC:+ (A: sync $EMBEDDED_SYNC)}${EMBEDDED_SYNC_B:+ (B: sync $EMBEDDED_SYNC_B)}${REDIS_PID:+; redis-server on CPU $REDIS_CPUS}; $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n1)); JVM options: $( [[ -f $JVM_OPTIONS ]] && echo "@${JVM_OPTIONS#"$REPO_ROOT"/}" || echo none) ${JVM_EXTRA:+ $JVM_EXTRA} -Xlog:gc${JVM_OPTIONS_B:+ (B: @$(basename "$JVM_OPTIONS_B"))}; ${CONNECTIONS} connections; medians of $ROUNDS interleaved rounds of $DURATION$( (( PRELOAD > 0 )) && echo "; A's embedded and Redis stores preloaded with $PRELOAD completed calls"); load average $LOAD_START at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end."
    echo
    "$SCRIPT_DIR/cpu-table.py" "$RESULTS"
} >"$OUT"
cat "$OUT"
