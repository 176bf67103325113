#!/usr/bin/env bash
# Soak: idemproxy under a moderate, mixed load for a long while (replays, retries, failures and
# DLQ entries), its heap, RSS, open files and threads sampled every interval; says whether they
# stayed flat. Not part of CI. See docs/benchmarks.md#soak.
#
#   bench/soak.sh [--duration 10m] [--warmup 1m] [--window 2m] [--interval 10s]
#                 [--store embedded|memory|redis] [--connections 16] [--threads 1] [--delay-ms 40]
#                 [--seed 42] [--late-by 600ms] [--full-gc-every 30s] [--jar PATH]
#                 [--jvm-opts "..."] [--out-dir DIR]
#
# Everything it starts is private (own config, store, Redis and logs under --out-dir, default
# bench/out/soak/) and is stopped on exit. Only loopback and free ports are used.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
CMDLINE="bench/soak.sh${*:+ $*}"

DURATION=10m
WARMUP=1m
WINDOW=2m
INTERVAL=10s
STORE=embedded
CONNECTIONS=16
THREADS=1
DELAY_MS=40
SEED=42
LATE_BY=600ms
FULL_GC_EVERY=30s
JAR=""
OUT_DIR=""
JVM_OPTS="-Xms256m -Xmx256m -XX:+AlwaysPreTouch"

usage() {
    sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

while [[ $# -gt 0 ]]; do
    case "$1" in
        --duration) DURATION=$2; shift 2 ;;
        --warmup) WARMUP=$2; shift 2 ;;
        --window) WINDOW=$2; shift 2 ;;
        --interval) INTERVAL=$2; shift 2 ;;
        --store) STORE=$2; shift 2 ;;
        --connections) CONNECTIONS=$2; shift 2 ;;
        --threads) THREADS=$2; shift 2 ;;
        --delay-ms) DELAY_MS=$2; shift 2 ;;
        --seed) SEED=$2; shift 2 ;;
        --late-by) LATE_BY=$2; shift 2 ;;
        --full-gc-every) FULL_GC_EVERY=$2; shift 2 ;;
        --jar) JAR=$2; shift 2 ;;
        --jvm-opts) JVM_OPTS=$2; shift 2 ;;
        --out-dir) OUT_DIR=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
    esac
done

secs() { # 90s | 10m | 1h | 45 -> seconds
    case "$1" in
        *ms) echo $(( ${1%ms} / 1000 )) ;;
        *s) echo "${1%s}" ;;
        *m) echo $(( ${1%m} * 60 )) ;;
        *h) echo $(( ${1%h} * 3600 )) ;;
        *) echo "$1" ;;
    esac
}
for v in DURATION WARMUP WINDOW INTERVAL FULL_GC_EVERY; do
    [[ "${!v}" =~ ^[0-9]+(s|m|h)?$ ]] || { echo "--${v,,}: expected e.g. 30s, 10m (got ${!v})" >&2; exit 2; }
done
DUR_S=$(secs "$DURATION"); WARM_S=$(secs "$WARMUP"); WIN_S=$(secs "$WINDOW")
INT_S=$(secs "$INTERVAL"); FGC_S=$(secs "$FULL_GC_EVERY")
(( INT_S >= 1 )) || { echo "--interval must be at least 1s" >&2; exit 2; }
(( DUR_S <= 4 * 3600 )) || { echo "--duration is capped at 4h" >&2; exit 2; }
(( WARM_S + 2 * WIN_S <= DUR_S )) || { echo "--duration must cover --warmup plus two --window" >&2; exit 2; }
case "$STORE" in embedded|memory|redis) ;; *) echo "--store: embedded, memory or redis" >&2; exit 2 ;; esac
[[ "$CONNECTIONS" =~ ^[1-9][0-9]*$ ]] && (( CONNECTIONS <= 256 )) || { echo "--connections: 1..256" >&2; exit 2; }
[[ "$THREADS" =~ ^[1-9][0-9]*$ ]] && (( THREADS <= CONNECTIONS )) || { echo "--threads: 1..connections" >&2; exit 2; }
[[ "$DELAY_MS" =~ ^[0-9]+$ ]] || { echo "--delay-ms: a number of milliseconds" >&2; exit 2; }
[[ "$SEED" =~ ^[0-9]+$ ]] || { echo "--seed: a non-negative integer" >&2; exit 2; }

[[ -n "$OUT_DIR" ]] || OUT_DIR="$REPO_ROOT/bench/out/soak"
case "$OUT_DIR" in /*) ;; *) OUT_DIR="$PWD/$OUT_DIR" ;; esac
[[ -z "$JAR" ]] && JAR="$REPO_ROOT/proxy-app/target/idemproxy.jar"
case "$JAR" in /*) ;; *) JAR="$PWD/$JAR" ;; esac
CSV="$OUT_DIR/samples.csv"
SUMMARY="$OUT_DIR/summary.md"

LOG_TAG=soak
# shellcheck source=bench/lib.sh
source "$SCRIPT_DIR/lib.sh"

# ---------------------------------------------------------------- tools
need_pkgs=()
command -v wrk >/dev/null 2>&1 || need_pkgs+=(wrk)
command -v jstat >/dev/null 2>&1 && command -v jcmd >/dev/null 2>&1 || die "jstat and jcmd (a JDK) are required"
command -v curl >/dev/null 2>&1 || need_pkgs+=(curl)
if [[ $STORE == redis ]]; then
    command -v redis-server >/dev/null 2>&1 || need_pkgs+=(redis-server)
fi
if [[ ${#need_pkgs[@]} -gt 0 ]]; then
    command -v apt-get >/dev/null 2>&1 || die "missing ${need_pkgs[*]} and no apt-get to install them"
    [[ $(id -u) -eq 0 ]] || die "missing ${need_pkgs[*]}: install them (Debian: apt-get install ${need_pkgs[*]})"
    log "installing ${need_pkgs[*]} from the Debian packages"
    # Keep a packaged service (redis-server) from starting on its default port.
    policy=/usr/sbin/policy-rc.d created_policy=0
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && created_policy=1
    fi
    rc=0
    DEBIAN_FRONTEND=noninteractive apt-get update -qq || rc=$?
    [[ $rc -eq 0 ]] && { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" || rc=$?; }
    [[ $created_policy -eq 1 ]] && rm -f "$policy"
    [[ $rc -eq 0 ]] || die "apt-get failed to install ${need_pkgs[*]}"
fi
WRK=$(command -v wrk)
CLK_TCK=$(getconf CLK_TCK)

# ---------------------------------------------------------------- ports

# ---------------------------------------------------------------- build, work dir
if [[ ! -f "$JAR" ]]; then
    log "no jar at $JAR: building it (mvn -q -B package -DskipTests)"
    ( cd "$REPO_ROOT" && { mvn -q -B -o package -DskipTests 2>/dev/null || mvn -q -B package -DskipTests; } ) \
        || die "maven build failed"
    [[ -f "$JAR" ]] || die "build did not produce $JAR"
fi
rm -rf "$OUT_DIR"
mkdir -p "$OUT_DIR"
# Run a copy: a rebuild of the worktree during the soak cannot swap the jar under the JVMs.
cp "$JAR" "$OUT_DIR/idemproxy.jar"
RUN_JAR="$OUT_DIR/idemproxy.jar"

# ---------------------------------------------------------------- the flaky upstream
# The demo's tickets service (docs/demo.md): per (intent, n-th request) a seeded fault: 201,
# 201 after --late-by (past the routes' perTry), a dropped connection, 503, 429 Retry-After 0|1.
mkdir -p "$OUT_DIR/upstream"
(cd "$OUT_DIR/upstream" && exec java -Xmx384m -XX:+UseSerialGC -jar "$RUN_JAR" demo-upstream \
    --seed "$SEED" --late-by "$LATE_BY") >"$OUT_DIR/upstream/stdout.log" 2>&1 &
UP_PID=$!
STARTED_PIDS+=("$UP_PID")
UP_URL=""
for _ in $(seq 1 300); do
    UP_URL=$(sed -n 's/^demo upstream listening on //p' "$OUT_DIR/upstream/stdout.log" 2>/dev/null || true)
    [[ -n "$UP_URL" ]] && break
    kill -0 "$UP_PID" 2>/dev/null || die "the demo upstream exited: $(tail -n5 "$OUT_DIR/upstream/stdout.log")"
    sleep 0.2
done
[[ -n "$UP_URL" ]] || die "the demo upstream did not start in 60 s"
log "demo upstream at $UP_URL (pid $UP_PID, seed $SEED, late answers after $LATE_BY)"

# ---------------------------------------------------------------- redis (optional)
REDIS_PORT=""
if [[ $STORE == redis ]]; then
    REDIS_PORT=$(pick_port)
    mkdir -p "$OUT_DIR/redis"
    redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$OUT_DIR/redis" --save '' --appendonly no \
        --maxmemory-policy noeviction --daemonize no --logfile "$OUT_DIR/redis/redis.log" &
    REDIS_PID=$!
    STARTED_PIDS+=("$REDIS_PID")
    for _ in $(seq 1 100); do
        redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && break
        sleep 0.1
    done
    redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG || die "redis-server did not start"
    log "private redis-server on 127.0.0.1:$REDIS_PORT (pid $REDIS_PID)"
fi

# ---------------------------------------------------------------- idemproxy
PROXY_PORT=$(pick_port)
ADMIN_PORT=$(pick_port)
DEAD_PORT=$(pick_port)   # nothing listens here: the "dead" route's connect failures
CONF="$OUT_DIR/idemproxy.yaml"
{
    cat <<EOF
# written by bench/soak.sh
listen: 127.0.0.1:$PROXY_PORT
admin: { listen: 127.0.0.1:$ADMIN_PORT }
server: { ioThreads: 1 }
EOF
    case "$STORE" in
        embedded) printf 'store:\n  type: embedded\n  embedded: { path: data }\n' ;;
        memory) printf 'store:\n  type: memory\n  memory: { maxEntries: 200000 }\n' ;;
        redis) printf 'store:\n  type: redis\n  redis: { uri: "redis://127.0.0.1:%s", keyPrefix: "soak:" }\n' "$REDIS_PORT" ;;
    esac
    cat <<EOF
tasks:
  header: X-Task-Id
  budget: { maxRetries: 100, window: 1m }
retryBudget: { ratio: 0.5, minPerSecond: 50, window: 10s }
# Short ttl and key windows: records and receipts reach a steady state within the warm-up plus
# a minute or two. Dead letters have no expiry: they grow for the whole run, by design.
routes:
  - name: retry
    match: { pathPrefix: /tickets/retry, methods: [POST] }
    upstream: $UP_URL
    tags: [idempotent]
    timeouts: { connect: 500ms, perTry: 300ms, total: 4s }
    idempotency: { enabled: true, ttl: 2m, onConcurrent: wait, waitTimeout: 5s }
    retry:
      maxAttempts: 3
      retryOn: [connect-failure, read-timeout, reset, 429, 502, 503, 504]
      backoff: { initial: 20ms, max: 200ms, jitter: full }
      maxRetryAfter: 2s
  - name: derived
    match: { pathPrefix: /tickets/derived, methods: [POST] }
    upstream: $UP_URL
    timeouts: { connect: 500ms, perTry: 300ms, total: 4s }
    idempotency:
      enabled: true
      key: { derive: [method, path, 'body:/intentId'], window: 1m }
      ttl: 2m
      onConcurrent: wait
      waitTimeout: 5s
    retry:
      maxAttempts: 3
      retryOn: [connect-failure, read-timeout, reset, 429, 502, 503, 504]
      backoff: { initial: 20ms, max: 200ms, jitter: full }
      maxRetryAfter: 2s
  - name: plain
    match: { pathPrefix: /tickets, methods: [POST] }
    upstream: $UP_URL
    timeouts: { connect: 500ms, perTry: 300ms, total: 4s }
    idempotency: { enabled: true, ttl: 2m, onConcurrent: wait, waitTimeout: 5s }
    ids: { bizId: ['body:/orderId'] }
    retry:
      maxAttempts: 3
      retryOn: [connect-failure, read-timeout, reset, 429, 502, 503, 504]
      backoff: { initial: 20ms, max: 200ms, jitter: full }
      maxRetryAfter: 2s
  - name: dead
    match: { pathPrefix: /dead, methods: [POST] }
    upstream: http://127.0.0.1:$DEAD_PORT
    timeouts: { connect: 200ms, perTry: 300ms, total: 2s }
    idempotency: { enabled: true, ttl: 2m }
    retry:
      maxAttempts: 3
      backoff: { initial: 20ms, max: 100ms, jitter: full }
EOF
} >"$CONF"
(cd "$OUT_DIR" && java -jar "$RUN_JAR" validate --config "$CONF") >"$OUT_DIR/validate.log" 2>&1 \
    || die "idemproxy rejects the soak config: $(cat "$OUT_DIR/validate.log")"

GC_LOG="$OUT_DIR/gc.log"
# shellcheck disable=SC2086 # JVM_OPTS is a list of words
(cd "$OUT_DIR" && exec java $JVM_OPTS "-Xlog:gc:file=$GC_LOG:uptime" -jar "$RUN_JAR" run --config "$CONF") \
    >"$OUT_DIR/idemproxy.log" 2>&1 &
PID=$!
STARTED_PIDS+=("$PID")
ADMIN="http://127.0.0.1:$ADMIN_PORT"
deadline=$((SECONDS + 90))
until curl -fsS -m 2 -o /dev/null "$ADMIN/readyz" 2>/dev/null; do
    kill -0 "$PID" 2>/dev/null || die "idemproxy exited at start: $(tail -n 20 "$OUT_DIR/idemproxy.log")"
    (( SECONDS < deadline )) || die "idemproxy not ready after 90 s (see $OUT_DIR/idemproxy.log)"
    sleep 0.5
done
log "idemproxy on 127.0.0.1:$PROXY_PORT, admin $ADMIN (pid $PID, store $STORE, $JVM_OPTS)"

# ---------------------------------------------------------------- sampling helpers
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
metrics() { curl -fsS -m 5 "$ADMIN/metrics" 2>/dev/null || true; }
msum() { # metrics-text name [label=value] -> sum of the matching series
    awk -v n="$2" -v l="${3:-}" '
        $0 ~ /^#/ { next }
        { split($1, a, "{"); if (a[1] != n) next; if (l != "" && index($1, l) == 0) next; s += $NF }
        END { printf "%.0f", s }' <<<"$1"
}
GC_SEEN=0
GC_MIN="" GC_N=0 GC_FULL=""
HIST_A="" HIST_B=""
gc_read() { # sets GC_MIN (lowest heap after a GC, MB), GC_N, GC_FULL (after the last full GC) over unread GC log lines
    local total r
    total=$(wc -l <"$GC_LOG" 2>/dev/null || echo 0)
    r=$(awk -v from="$GC_SEEN" -v to="$total" 'NR > from && NR <= to && /->/ {
            if (match($0, /[0-9]+[KMG]->[0-9]+[KMG]\(/) == 0) next
            s = substr($0, RSTART, RLENGTH - 1); split(s, p, "->")
            v = p[2] + 0; u = substr(p[2], length(p[2]))
            if (u == "K") v /= 1024; else if (u == "G") v *= 1024
            n++; if (min == "" || v < min) min = v
            if ($0 ~ /Pause Full/) full = v
        } END { printf "%s|%d|%s\n", (min == "" ? "" : sprintf("%.1f", min)), n, (full == "" ? "" : sprintf("%.1f", full)) }' "$GC_LOG")
    IFS='|' read -r GC_MIN GC_N GC_FULL <<<"$r"
    GC_SEEN=$total
}
heap_used_mb() { # jstat (perf data, no attach): S0U S1U EU OU
    jstat -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC -gc "$PID" 2>/dev/null | awk 'NR == 2 { printf "%.1f", ($3 + $4 + $6 + $8) / 1024 }'
}

# ---------------------------------------------------------------- load
log "load: wrk -t$THREADS -c$CONNECTIONS, each connection pausing ~${DELAY_MS} ms between requests, for $DURATION"
# wrk runs past the last sample and is stopped with SIGINT (it then prints its totals), so every
# sample is taken under load.
"$WRK" -t"$THREADS" -c"$CONNECTIONS" -d"$((DUR_S + 120))s" --timeout 10s -s "$SCRIPT_DIR/wrk/soak.lua" \
    "http://127.0.0.1:$PROXY_PORT" -- "$DELAY_MS" "$SEED" >"$OUT_DIR/wrk.log" 2>&1 &
WRK_PID=$!
STARTED_PIDS+=("$WRK_PID")

echo "t_s,t_real_s,heap_used_mb,heap_after_gc_mb,gcs,live_after_full_gc_mb,rss_mb,open_files,threads,cpu_pct,req_per_s,requests,replays,retries,dlq_entries,upstream_attempts,redis_used_mb,store_file_mb" >"$CSV"
now_ms() { local t=${EPOCHREALTIME/./}; echo $(( t / 1000 )); }
START_MS=$(now_ms)
elapsed_ms() { echo $(( $(now_ms) - START_MS )); }
t_prev_ms=0; ticks_prev=$(cpu_ticks "$PID"); req_prev=0
next=$INT_S
# Samples are due every --interval from the start of the load; "t" is when one was due, "t_real"
# when it was taken (a sample takes a few seconds on a busy machine: jstat is a JVM). A sample more
# than an interval late is skipped; rates use the real time between samples.
while (( next <= DUR_S )); do
    wait_ms=$(( next * 1000 - $(elapsed_ms) ))
    if (( wait_ms < -INT_S * 1000 )); then
        log "sample t=${next}s skipped: $(( -wait_ms / 1000 ))s late"
        next=$(( next + INT_S )); continue
    fi
    (( wait_ms > 0 )) && sleep "$(awk -v m="$wait_ms" 'BEGIN { printf "%.3f", m / 1000 }')"
    kill -0 "$PID" 2>/dev/null || die "idemproxy died at ${next}s: $(tail -n 20 "$OUT_DIR/idemproxy.log")"
    kill -0 "$UP_PID" 2>/dev/null || die "the demo upstream died at ${next}s"
    t_ms=$(elapsed_ms)
    rss=$(awk -v k="$(status_kb "$PID" VmRSS)" 'BEGIN { printf "%.1f", k / 1024 }')
    fds=$(find "/proc/$PID/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
    thr=$(status_kb "$PID" Threads)
    ticks=$(cpu_ticks "$PID")
    m=$(metrics)
    heap=$(heap_used_mb)
    reqs=$(msum "$m" idemproxy_requests_total)
    replays=$(msum "$m" idemproxy_replays_total)
    retries=$(msum "$m" idemproxy_retries_total)
    dlq=$(msum "$m" idemproxy_dlq_entries)
    attempts=$(msum "$m" idemproxy_upstream_attempts_total)
    redis_mb=""
    [[ -n "$REDIS_PORT" ]] && redis_mb=$(redis-cli -p "$REDIS_PORT" info memory 2>/dev/null \
        | awk -F: '$1 == "used_memory" { printf "%.1f", $2 / 1048576 }')
    store_mb=""
    [[ $STORE == embedded ]] && store_mb=$(du -sm --apparent-size "$OUT_DIR/data" 2>/dev/null | cut -f1)
    # The GCs of this interval first; then, every --full-gc-every, a forced full GC: the live heap.
    gc_read; gc_min=$GC_MIN; gc_n=$GC_N
    live=""
    if (( FGC_S > 0 && next % FGC_S == 0 )); then
        jcmd "$PID" GC.run >/dev/null 2>&1 || true
        sleep 0.5
        gc_read; live=$GC_FULL
    fi
    if [[ -z "$HIST_A" ]] && (( next >= WARM_S + WIN_S )); then
        # A class histogram (it forces a full GC) at the end of the first window, another after the
        # last sample: the summary lists the classes whose live bytes changed most between the two.
        HIST_A="$OUT_DIR/histogram-${next}s.txt"
        jcmd "$PID" GC.class_histogram >"$HIST_A" 2>/dev/null || true
        gc_read
    fi
    dt_ms=$(( t_ms - t_prev_ms ))
    cpu=$(awk -v d="$((ticks - ticks_prev))" -v hz="$CLK_TCK" -v dt="$dt_ms" 'BEGIN { printf "%.0f", 100 * d / hz / (dt / 1000) }')
    rps=$(awk -v d="$((reqs - req_prev))" -v dt="$dt_ms" 'BEGIN { printf "%.0f", d / (dt / 1000) }')
    t_real=$(awk -v m="$t_ms" 'BEGIN { printf "%.1f", m / 1000 }')
    echo "$next,$t_real,$heap,$gc_min,$gc_n,$live,$rss,$fds,$thr,$cpu,$rps,$reqs,$replays,$retries,$dlq,$attempts,$redis_mb,$store_mb" >>"$CSV"
    log "t=${next}s heap ${heap} MB (after GC ${gc_min:-–}${live:+, live $live}) rss ${rss} MB fds $fds threads $thr cpu ${cpu}% ${rps} req/s dlq $dlq"
    t_prev_ms=$t_ms; ticks_prev=$ticks; req_prev=$reqs
    next=$(( next + INT_S ))
done

# ---------------------------------------------------------------- totals
HIST_B="$OUT_DIR/histogram-end.txt"
jcmd "$PID" GC.class_histogram >"$HIST_B" 2>/dev/null || true
kill -INT "$WRK_PID" 2>/dev/null || true
for _ in $(seq 1 150); do kill -0 "$WRK_PID" 2>/dev/null || break; sleep 0.2; done
wait "$WRK_PID" 2>/dev/null || true
sleep 5   # calls still in flight (late answers, Retry-After waits) end and settle
FINAL_METRICS=$(metrics)
printf '%s\n' "$FINAL_METRICS" >"$OUT_DIR/metrics-final.txt"
kill -TERM "$UP_PID" 2>/dev/null || true
for _ in $(seq 1 100); do kill -0 "$UP_PID" 2>/dev/null || break; sleep 0.1; done
WRK_LINE=$(grep '^SOAK_RESULT' "$OUT_DIR/wrk.log" || true)
[[ -n "$WRK_LINE" ]] || log "WARNING: no SOAK_RESULT line from wrk (see $OUT_DIR/wrk.log)"
wv() { sed -nE "s/.* $1=([0-9]+).*/\1/p" <<<" $WRK_LINE"; }

# ---------------------------------------------------------------- verdict
# Windows: A = the first --window after --warmup, B = the last --window. A series is flat when its
# median in B is at most its tolerance above its median in A. The slope (least squares over every
# sample after the warm-up) is shown per minute.
verdict_rows=$(awk -F, -v w0="$WARM_S" -v w1="$((WARM_S + WIN_S))" -v b0="$((DUR_S - WIN_S))" -v dur="$DUR_S" '
    function med(arr, n,   i, j, t) { for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
        return n == 0 ? "" : (n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2) }
    NR == 1 { next }
    {
        t = $1
        split("4 6 7 8 9 15 18", cols, " ")
        for (k = 1; k <= 7; k++) {
            c = cols[k]; v = $c; if (v == "") continue
            if (t > w0 && t <= w1) { na[c]++; A[c, na[c]] = v }
            if (t > b0 && t <= dur) { nb[c]++; B[c, nb[c]] = v }
            if (t > w0) { n[c]++; sx[c] += t; sy[c] += v; sxx[c] += t * t; sxy[c] += t * v; if (!(c in mn) || v < mn[c]) mn[c] = v; if (!(c in mx) || v > mx[c]) mx[c] = v }
        }
    }
    END {
        name[4] = "heap after GC (MB)"; name[6] = "live heap after full GC (MB)"; name[7] = "RSS (MB)"; name[8] = "open files"; name[9] = "threads"
        # tolerance: absolute, relative (the larger applies)
        abs[4] = 8; rel[4] = 0.10; abs[6] = 4; rel[6] = 0.10; abs[7] = 16; rel[7] = 0.05; abs[8] = 8; rel[8] = 0; abs[9] = 2; rel[9] = 0
        name[15] = "DLQ entries (grow by design)"; name[18] = "embedded store file (MB)"
        split("4 6 7 8 9 15 18", order, " ")
        for (k = 1; k <= 7; k++) {
            c = order[k]; if (!(c in n)) continue
            if (!na[c] || !nb[c]) { printf "| %s | %s | %s | | | | | n/a (no sample in a window) |\n", name[c], (na[c] ? "" : "–"), (nb[c] ? "" : "–"); continue }
            for (i = 1; i <= na[c]; i++) a[i] = A[c, i]; ma = med(a, na[c]); delete a
            for (i = 1; i <= nb[c]; i++) b[i] = B[c, i]; mb = med(b, nb[c]); delete b
            d = n[c] * sxx[c] - sx[c] * sx[c]; slope = (d != 0 ? (n[c] * sxy[c] - sx[c] * sy[c]) / d * 60 : 0)
            tol = abs[c]; if (rel[c] * ma > tol) tol = rel[c] * ma
            ok = (mb - ma <= tol) ? "flat" : "**grew**"
            if (c == 15 || c == 18) { printf "| %s | %.1f | %.1f | %+.1f | – | %+.2f | %.1f–%.1f | (not judged) |\n", name[c], ma, mb, mb - ma, slope, mn[c], mx[c]; continue }
            printf "| %s | %.1f | %.1f | %+.1f | %.1f | %+.2f | %.1f–%.1f | %s |\n", name[c], ma, mb, mb - ma, tol, slope, mn[c], mx[c], ok
        }
    }' "$CSV")
VERDICT="flat"
grep -q 'grew' <<<"$verdict_rows" && VERDICT="**grew**"

mtot() { msum "$FINAL_METRICS" "$@"; }
CPU_MED=$(awk -F, -v w0="$WARM_S" 'NR > 1 && $1 > w0 { print $10 }' "$CSV" | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
RPS_MED=$(awk -F, -v w0="$WARM_S" 'NR > 1 && $1 > w0 { print $11 }' "$CSV" | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
{
    echo "### Soak $(date -u +'%Y-%m-%d %H:%M UTC'): $VERDICT"
    echo
    echo "Command: \`$CMDLINE\`"
    echo
    echo "- $(nproc) CPUs, load average before the summary $(cut -d' ' -f1-3 /proc/loadavg); $({ java -version 2>&1 || true; } | head -n1); $({ "$WRK" -v 2>&1 || true; } | head -n1 | sed -E 's/ Copyright.*//')"
    echo "- idemproxy $({ java -jar "$RUN_JAR" --version 2>&1 || true; } | head -n1 | sed 's/^idemproxy //') (git $(git -C "$REPO_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)), store \`$STORE\`, JVM \`$JVM_OPTS\`, \`server.ioThreads: 1\`"
    echo "- load: wrk $THREADS thread(s), $CONNECTIONS connections, ~$DELAY_MS ms pause per connection between requests; median after the warm-up $RPS_MED req/s at $CPU_MED% of a core (proxy JVM)"
    echo "- upstream: the demo's tickets service (\`demo-upstream --seed $SEED --late-by $LATE_BY\`), perTry 300ms"
    echo "- samples every $INTERVAL; a full GC (\`jcmd GC.run\`) every $FULL_GC_EVERY for the live heap; windows compared: $WARMUP–$((WARM_S + WIN_S))s vs the last $WINDOW"
    echo
    echo "| series | median, first window | median, last window | change | tolerance | slope per min | min–max after warm-up | verdict |"
    echo "|---|---:|---:|---:|---:|---:|---:|---|"
    echo "$verdict_rows"
    echo
    echo "Flat: the median of the last window is at most the tolerance above the first's (heap after GC: 8 MB or 10%, live heap 4 MB or 10%, RSS 16 MB or 5%, open files 8, threads 2). Heap after GC: the lowest heap occupancy after any GC within each interval, from the GC log."
    echo
    if [[ -n "$HIST_A" && -n "$HIST_B" && "$HIST_A" != "$HIST_B" && -s "$HIST_A" && -s "$HIST_B" ]]; then
        echo "Live bytes by class at $(basename "$HIST_A" .txt | sed 's/histogram-//') vs after the last sample (\`jcmd GC.class_histogram\`), the largest changes:"
        echo
        echo "| class | instances then → now | KiB then → now | change KiB |"
        echo "|---|---:|---:|---:|"
        awk 'FNR == NR { if ($1 ~ /^[0-9]+:$/) { ia[$4] = $2; ba[$4] = $3 }; next }
             $1 ~ /^[0-9]+:$/ { ib[$4] = $2; bb[$4] = $3 }
             END { for (c in bb) d[c] = bb[c] - ba[c]; for (c in ba) if (!(c in bb)) d[c] = -ba[c]
                   for (c in d) printf "%d\t%s\t%d\t%d\t%d\t%d\n", (d[c] < 0 ? -d[c] : d[c]), c, ia[c], ib[c], ba[c], bb[c] }' \
            "$HIST_A" "$HIST_B" | sort -t$'\t' -k1,1nr | awk 'NR <= 12' \
            | awk -F'\t' '{ printf "| `%s` | %d → %d | %.0f → %.0f | %+.0f |\n", $2, $3, $4, $5 / 1024, $6 / 1024, ($6 - $5) / 1024 }'
        echo
    fi
    echo "Totals (proxy \`/metrics\` at the end):"
    echo
    echo "| | count |"
    echo "|---|---:|"
    echo "| requests (\`idemproxy_requests_total\`) | $(mtot idemproxy_requests_total) |"
    for o in executed replayed failed not_executed rejected forwarded; do
        echo "| · outcome=$o | $(mtot idemproxy_requests_total "outcome=\"$o\"") |"
    done
    echo "| replays (\`idemproxy_replays_total\`) | $(mtot idemproxy_replays_total) |"
    echo "| upstream attempts | $(mtot idemproxy_upstream_attempts_total) |"
    echo "| retries (\`idemproxy_retries_total\`) | $(mtot idemproxy_retries_total) |"
    echo "| retry budget exhausted | $(mtot idemproxy_retry_budget_exhausted_total) |"
    echo "| key conflicts | $(mtot idemproxy_key_conflicts_total) |"
    echo "| DLQ entries (\`idemproxy_dlq_entries\`) | $(mtot idemproxy_dlq_entries) |"
    echo "| store errors | $(mtot idemproxy_store_errors_total) |"
    echo
    if [[ -n "$WRK_LINE" ]]; then
        echo "Client side (wrk): $(wv requests) responses; 2xx $(wv s2xx), 3xx $(wv s3xx), 4xx $(wv s4xx) (409 $(wv s409), 422 $(wv s422), 429 $(wv s429)), 5xx $(wv s5xx) (502 $(wv s502), 503 $(wv s503), 504 $(wv s504)); $(wv replayed) carried \`Idempotent-Replayed: true\`; socket errors: connect $(wv err_connect), read $(wv err_read), write $(wv err_write), timeout $(wv err_timeout); p50 $(awk -v u="$(wv p50_us)" 'BEGIN { printf "%.1f", u / 1000 }') ms, p99 $(awk -v u="$(wv p99_us)" 'BEGIN { printf "%.1f", u / 1000 }') ms."
        echo "Sent: unique key $(wv sent_unique), repeated key $(wv sent_repeat), idempotent route $(wv sent_retry), derived key $(wv sent_derived), dead upstream $(wv sent_dead), no route $(wv sent_noroute)."
        echo
    fi
    echo "Upstream: $(grep -m1 '^demo upstream served' "$OUT_DIR/upstream/stdout.log" || echo 'no count (it did not stop cleanly)')$(grep '^  ' "$OUT_DIR/upstream/stdout.log" | sed 's/^  /; /' | tr -d '\n')."
    echo
    echo "Samples every 60 s (all of them in \`samples.csv\`):"
    echo
    echo "| t | heap used MB | heap after GC MB | live MB | RSS MB | open files | threads | CPU % | req/s | requests | replays | retries | DLQ |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    awk -F, 'NR > 1 && $1 % 60 == 0 { printf "| %ss | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $3, $4, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15 }' "$CSV"
} >"$SUMMARY"
cat "$SUMMARY"
log "samples in $CSV, summary in $SUMMARY, logs in $OUT_DIR"
