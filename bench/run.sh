#!/usr/bin/env bash
# The performance table: wrk against the upstream directly, against nginx and HAProxy as reverse
# proxies and against idemproxy, on loopback, with fixed CPU pinning, in one run. See
# docs/benchmarks.md.
#
#   bench/run.sh [--duration 10s] [--warmup 10s] [--ref-warmup 10s] [--connections 50] [--threads 1] [--repeat 3]
#                [--targets direct,nginx,haproxy,idemproxy]
#                [--scenarios get,post,post16k,protected-post,replay]
#                [--stores memory,embedded,redis] [--near-cache] [--near-cache-entries 10000]
#                [--transports auto,epoll]
#                [--record-ttl 2m] [--redis-cpu 1] [--jar PATH] [--jvm-opts "..."] [--nice N]
#                [--quiet-wait SECONDS] [--noise-retries N] [--rewarm 0s] [--pause-others]
#                [--warmup-scrape 2] [--out FILE]
#
# A quick check: bench/run.sh --scenarios get,replay --stores memory --duration 2s --warmup 1s --repeat 1
# Writes the report to --out (bench/out/results.md) and the measured runs' wrk logs, with their
# latency histograms, beside it (bench/out/results.wrk/) for bench/paired-runs.py --hist.
# Everything the script starts is private (own config, own prefix dir under bench/out/) and is
# killed on exit. Only loopback addresses and free high ports are used.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
CMDLINE="bench/run.sh${*:+ $*}"

DURATION=10s
WARMUP=10s
REF_WARMUP=""        # the reference targets' warm-up (direct, nginx, HAProxy: no JIT to warm); default --warmup
CONNECTIONS=50
THREADS=1
REPEAT=3
TARGETS=direct,nginx,haproxy,idemproxy
SCENARIOS=get,post,post16k,protected-post,replay
STORES=memory,embedded,redis
NEAR_CACHE=0         # also run protected-post and replay with store.nearCache enabled (embedded, redis)
NEAR_CACHE_ENTRIES=10000
TRANSPORTS=auto      # idemproxy's server.transport: one set of idemproxy JVMs (and rows) per item
RECORD_TTL=2m        # idempotency.ttl of the protected route: keeps the stores from growing without bound
JAR=""
OUT=""
JVM_OPTS_DEFAULT="-Xms256m -Xmx256m -XX:+UseParallelGC -XX:+AlwaysPreTouch"
JVM_OPTS="$JVM_OPTS_DEFAULT"
NOISE_RETRIES=2      # redo a run (up to N times) when other work took >15% of a core we use
QUIET_WAIT=0         # wait up to this long for both cores to be idle before starting
REWARM=0s            # an unmeasured run of this length just before every measured run (0s: none)
PAUSE_OTHERS=0       # stop (SIGSTOP) the idemproxy JVMs not under test during each measured run
WARMUP_SCRAPE=2      # seconds between /metrics scrapes during idemproxy's warm-up, as Prometheus would (0: none)
NICE=0               # nice value for everything started here (e.g. -5 on a shared machine)
PROXY_CPU=0          # the proxy under test (nginx worker / HAProxy / idemproxy JVM)
LOAD_CPU=1           # wrk and the upstream nginx
REDIS_CPU=""         # the private redis-server (default: LOAD_CPU)
REPLAY_KEY_PREFIX=bench-replay-   # bench/wrk/replay.lua's key: this prefix and the run's nonce
SMALL_JSON='{"userId":42,"op":"create"}'

usage() {
    sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

while [[ $# -gt 0 ]]; do
    case "$1" in
        --duration) DURATION=$2; shift 2 ;;
        --warmup) WARMUP=$2; shift 2 ;;
        --ref-warmup) REF_WARMUP=$2; shift 2 ;;
        --connections) CONNECTIONS=$2; shift 2 ;;
        --threads) THREADS=$2; shift 2 ;;
        --repeat) REPEAT=$2; shift 2 ;;
        --targets) TARGETS=$2; shift 2 ;;
        --scenarios) SCENARIOS=$2; shift 2 ;;
        --stores) STORES=$2; shift 2 ;;
        --near-cache) NEAR_CACHE=1; shift ;;
        --near-cache-entries) NEAR_CACHE_ENTRIES=$2; shift 2 ;;
        --transports) TRANSPORTS=$2; shift 2 ;;
        --record-ttl) RECORD_TTL=$2; shift 2 ;;
        --redis-cpu) REDIS_CPU=$2; shift 2 ;;
        --jar) JAR=$2; shift 2 ;;
        --jvm-opts) JVM_OPTS=$2; shift 2 ;;
        --nice) NICE=$2; shift 2 ;;
        --quiet-wait) QUIET_WAIT=$2; shift 2 ;;
        --rewarm) REWARM=$2; shift 2 ;;
        --pause-others) PAUSE_OTHERS=1; shift ;;
        --warmup-scrape) WARMUP_SCRAPE=$2; shift 2 ;;
        --noise-retries) NOISE_RETRIES=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
    esac
done

[[ "$REPEAT" =~ ^[1-9][0-9]*$ ]] || { echo "--repeat must be a positive integer" >&2; exit 2; }
[[ "$CONNECTIONS" =~ ^[1-9][0-9]*$ ]] || { echo "--connections must be a positive integer" >&2; exit 2; }
[[ "$THREADS" =~ ^[1-9][0-9]*$ ]] || { echo "--threads must be a positive integer" >&2; exit 2; }
[[ "$NICE" =~ ^-?[0-9]+$ ]] || { echo "--nice must be an integer" >&2; exit 2; }
[[ "$QUIET_WAIT" =~ ^[0-9]+$ ]] || { echo "--quiet-wait must be a number of seconds" >&2; exit 2; }
[[ "$NOISE_RETRIES" =~ ^[0-9]+$ ]] || { echo "--noise-retries must be a non-negative integer" >&2; exit 2; }
[[ "$NEAR_CACHE_ENTRIES" =~ ^[1-9][0-9]*$ ]] || { echo "--near-cache-entries must be a positive integer" >&2; exit 2; }
[[ "$RECORD_TTL" =~ ^[0-9]+(ms|s|m|h|d)$ ]] || { echo "--record-ttl must be a duration such as 2m" >&2; exit 2; }
[[ -z "$REDIS_CPU" ]] && REDIS_CPU=$LOAD_CPU
[[ -z "$REF_WARMUP" ]] && REF_WARMUP=$WARMUP
[[ "$REDIS_CPU" =~ ^[0-9]+$ ]] || { echo "--redis-cpu must be a core number" >&2; exit 2; }

split_list() { # name "a,b" -> array name, empty items dropped
    local -n _arr=$1
    local item
    _arr=()
    IFS=',' read -r -a _items <<<"$2"
    for item in "${_items[@]}"; do [[ -n "$item" ]] && _arr+=("$item"); done
    return 0
}
split_list TARGET_LIST "$TARGETS"
split_list SCENARIO_LIST "$SCENARIOS"
split_list STORE_LIST "$STORES"
split_list TRANSPORT_LIST "$TRANSPORTS"
[[ ${#TRANSPORT_LIST[@]} -gt 0 ]] || { echo "--transports is empty" >&2; exit 2; }
for tr in "${TRANSPORT_LIST[@]}"; do
    case "$tr" in auto|io_uring|epoll|nio) ;; *) echo "unknown transport: $tr (expected auto, io_uring, epoll, nio)" >&2; exit 2 ;; esac
done
[[ ${#TARGET_LIST[@]} -gt 0 ]] || { echo "--targets is empty" >&2; exit 2; }
[[ ${#SCENARIO_LIST[@]} -gt 0 ]] || { echo "--scenarios is empty" >&2; exit 2; }
for t in "${TARGET_LIST[@]}"; do
    case "$t" in direct|nginx|haproxy|idemproxy) ;; *) echo "unknown target: $t (expected direct, nginx, haproxy, idemproxy)" >&2; exit 2 ;; esac
done
for s in "${SCENARIO_LIST[@]}"; do
    case "$s" in get|post|post16k|protected-post|replay) ;; *) echo "unknown scenario: $s (expected get, post, post16k, protected-post, replay)" >&2; exit 2 ;; esac
done
for st in "${STORE_LIST[@]}"; do
    case "$st" in memory|embedded|redis) ;; *) echo "unknown store: $st (expected memory, embedded, redis)" >&2; exit 2 ;; esac
done
has_target() { [[ ",$TARGETS," == *",$1,"* ]]; }
has_scenario() { [[ ",$SCENARIOS," == *",$1,"* ]]; }
has_store() { [[ ",$STORES," == *",$1,"* ]]; }
is_protected() { [[ $1 == protected-post || $1 == replay ]]; }
PROTECTED_SELECTED=0 PASS_SELECTED=0
for s in "${SCENARIO_LIST[@]}"; do
    if is_protected "$s"; then PROTECTED_SELECTED=1; else PASS_SELECTED=1; fi
done
if has_target idemproxy && (( PROTECTED_SELECTED )) && [[ ${#STORE_LIST[@]} -eq 0 ]]; then
    echo "--stores is empty but protected-post/replay need a store" >&2; exit 2
fi
[[ ${#STORE_LIST[@]} -gt 0 ]] || STORE_LIST=(memory)
# redis is needed when idemproxy runs a protected scenario on it
NEED_REDIS=0
if has_target idemproxy && (( PROTECTED_SELECTED )) && has_store redis; then NEED_REDIS=1; fi

WORK="$REPO_ROOT/bench/out/runs"
[[ -n "$OUT" ]] || OUT="$REPO_ROOT/bench/out/results.md"
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac
[[ -z "$JAR" ]] && JAR="$REPO_ROOT/proxy-app/target/idemproxy.jar"
case "$JAR" in /*) ;; *) JAR="$PWD/$JAR" ;; esac

LOG_TAG=bench
# shellcheck source=bench/lib.sh
source "$SCRIPT_DIR/lib.sh"

# ---------------------------------------------------------------- tools
find_bin() { # name -> path, also where sbin is not on PATH
    command -v "$1" 2>/dev/null && return 0
    local d
    for d in /usr/sbin /usr/bin /sbin /usr/local/sbin /usr/local/bin; do
        [[ -x "$d/$1" ]] && { echo "$d/$1"; return 0; }
    done
    return 1
}
install_missing_tools() {
    local missing=()
    find_bin nginx >/dev/null || missing+=(nginx)
    find_bin wrk >/dev/null || missing+=(wrk)
    if has_target haproxy; then find_bin haproxy >/dev/null || missing+=(haproxy); fi
    if (( NEED_REDIS )); then find_bin redis-server >/dev/null || missing+=(redis-server); fi
    [[ ${#missing[@]} -eq 0 ]] && return 0
    command -v apt-get >/dev/null 2>&1 || die "missing ${missing[*]} and no apt-get to install them"
    [[ $(id -u) -eq 0 ]] || die "missing ${missing[*]}: run as root (or install them) so apt-get can install them"
    log "installing ${missing[*]} from the Debian packages"
    # Keep the packaged services (nginx on port 80, haproxy, redis on 6379) from starting: a
    # temporary policy-rc.d that denies service starts, only if none exists already.
    local policy=/usr/sbin/policy-rc.d created_policy=0
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && created_policy=1
    fi
    local rc=0
    DEBIAN_FRONTEND=noninteractive apt-get update -qq || rc=$?
    [[ $rc -eq 0 ]] && { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" || rc=$?; }
    [[ $created_policy -eq 1 ]] && rm -f "$policy"
    [[ $rc -eq 0 ]] || die "apt-get failed to install ${missing[*]}"
}
install_missing_tools
command -v taskset >/dev/null 2>&1 || die "taskset (util-linux) is required"
NGINX=$(find_bin nginx) || die "nginx not found"
WRK=$(find_bin wrk) || die "wrk not found"
HAPROXY=""
has_target haproxy && { HAPROXY=$(find_bin haproxy) || die "haproxy not found"; }
REDIS_SERVER=""
(( NEED_REDIS )) && { REDIS_SERVER=$(find_bin redis-server) || die "redis-server not found"; }

NCPU=$(nproc)
[[ $NCPU -ge 2 ]] || die "need at least 2 CPUs for the pinning (have $NCPU)"
(( REDIS_CPU < NCPU )) || die "--redis-cpu $REDIS_CPU: there are only $NCPU cores"
CLK_TCK=$(getconf CLK_TCK)
pinned() { # cpu cmd... : run pinned to one core, at the chosen nice value
    local cpu=$1; shift
    exec nice -n "$NICE" taskset -c "$cpu" "$@"
}

cpu_busy_ticks() { # cpu index -> "busy total steal" from /proc/stat (steal: the ticks the hypervisor
    # ran other guests while this virtual CPU wanted to run; /proc/stat counts them as busy)
    awk -v c="cpu$1" '$1 == c { t = 0; for (i = 2; i <= NF; i++) t += $i; idle = $5 + $6; print t - idle, t, $9 + 0 }' /proc/stat
}
steal_of() { # "busy total steal" -> steal
    echo "${1##* }"
}
share_pct() { # ticks, a core's "busy total" before and after -> those ticks in percent of the core's time
    awk -v d="$1" -v a="$2" -v b="$3" 'BEGIN { split(a, x, " "); split(b, y, " "); printf "%.0f", ((y[2] - x[2]) > 0 ? 100 * d / (y[2] - x[2]) : 0) }'
}
busy_pct() { # "busy total" before, after -> percent
    awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " "); printf "%.0f", ((y[2] - x[2]) > 0 ? 100 * (y[1] - x[1]) / (y[2] - x[2]) : 0) }'
}

# How busy the machine is before anything starts: other workloads skew every number.
# With --quiet-wait, wait (bounded) until both cores are below 10% over a 2 s sample.
quiet_deadline=$((SECONDS + QUIET_WAIT))
while :; do
    pre0=$(cpu_busy_ticks "$PROXY_CPU"); pre1=$(cpu_busy_ticks "$LOAD_CPU")
    sleep 2
    PRE_BUSY0=$(busy_pct "$pre0" "$(cpu_busy_ticks "$PROXY_CPU")")
    PRE_BUSY1=$(busy_pct "$pre1" "$(cpu_busy_ticks "$LOAD_CPU")")
    (( PRE_BUSY0 <= 10 && PRE_BUSY1 <= 10 )) && break
    (( SECONDS < quiet_deadline )) || break
    log "waiting for a quiet machine (core$PROXY_CPU ${PRE_BUSY0}%, core$LOAD_CPU ${PRE_BUSY1}% busy; up to $((quiet_deadline - SECONDS))s more)"
    sleep 8
done
PRE_LOADAVG=$(cut -d' ' -f1-3 /proc/loadavg)
if (( PRE_BUSY0 > 10 || PRE_BUSY1 > 10 )); then
    log "WARNING: the machine is busy before the benchmark (core$PROXY_CPU ${PRE_BUSY0}%, core$LOAD_CPU ${PRE_BUSY1}%, load $PRE_LOADAVG): numbers will be noisy"
fi

# ---------------------------------------------------------------- ports
# ---------------------------------------------------------------- process helpers
rss_kib() { # pid -> VmRSS in KiB (0 when unreadable)
    local status
    status=$(<"/proc/$1/status") 2>/dev/null || { echo 0; return 0; }
    awk '/^VmRSS:/ { print $2; found = 1 } END { if (!found) print 0 }' <<<"$status"
}

# ---------------------------------------------------------------- work dir
rm -rf "$WORK"
mkdir -p "$WORK" "$(dirname "$OUT")"

# The 16 KiB body of bench/wrk/post16k.lua, for the sanity check.
head16k='{"userId":42,"op":"create","pad":"'
BODY16K_FILE="$WORK/post16k.json"
{ printf '%s' "$head16k"; printf 'x%.0s' $(seq 1 $((16384 - ${#head16k} - 2))); printf '"}'; } >"$BODY16K_FILE"
[[ $(stat -c %s "$BODY16K_FILE") -eq 16384 ]] || die "the 16 KiB body is $(stat -c %s "$BODY16K_FILE") bytes"

scenario_path() { # scenario -> request path (the same on every target)
    case "$1" in
        get) echo /bench/get ;;
        post) echo /bench/post ;;
        post16k) echo /bench/post16k ;;
        protected-post) echo /idem/post ;;
        replay) echo /idem/replay ;;
    esac
}

start_nginx() { # name cpu conf -> sets NGINX_MASTER
    local dir="$WORK/$1"
    (pinned "$2" "$NGINX" -p "$dir/" -c "$3" -e "$dir/error.log") >"$dir/stdout.log" 2>&1 &
    NGINX_MASTER=$!
    STARTED_PIDS+=("$NGINX_MASTER")
}

# ---------------------------------------------------------------- upstream
# One nginx worker answering every path with a fixed body; stub_status counts the requests that
# reach it, so the run can check which calls a proxy forwarded and which it answered itself.
UP_PORT=$(pick_port)
write_nginx_conf "$WORK/upstream" "$(cat <<EOC
    server {
        listen 127.0.0.1:$UP_PORT backlog=4096;
        default_type application/json;
        location = /bench/get  { return 200 '$GET_BODY'; }
        location /bench/ { return 200 '$POST_BODY'; }
        location /idem/  { return 200 '$POST_BODY'; }
        location = /_bench_status { stub_status; }
        location / { return 404; }
    }
EOC
)"
"$NGINX" -t -q -p "$WORK/upstream/" -c "$WORK/upstream/nginx.conf" -e "$WORK/upstream/error.log" \
    || die "upstream nginx config invalid (see $WORK/upstream/error.log)"
start_nginx upstream "$LOAD_CPU" "$WORK/upstream/nginx.conf"
UP_MASTER=$NGINX_MASTER
wait_port "$UP_PORT" 10 || die "upstream nginx did not start (see $WORK/upstream/error.log)"
UP_WORKER=$(nginx_worker_pid "$UP_MASTER") || die "upstream nginx has no worker"
log "upstream nginx on 127.0.0.1:$UP_PORT (master $UP_MASTER, worker $UP_WORKER, cpu $LOAD_CPU)"
upstream_hits() { # requests the upstream has accepted so far (this status request included)
    curl -sS -m 5 "http://127.0.0.1:$UP_PORT/_bench_status" 2>/dev/null | awk 'NR == 3 { print $3; found = 1 } END { if (!found) print -1 }'
}
[[ $(upstream_hits) -ge 1 ]] || die "the upstream's stub_status does not answer (nginx without the stub_status module?)"

# Units: what a row of the table measures. direct, nginx and haproxy, and one idemproxy per store
# ("idemproxy@memory", "idemproxy@embedded+nc" with the near-cache, ...).
declare -A URL=() PID_UNDER_TEST=() ADMIN_URL=() STORE_OF=() NC_OF=() TRANSPORT_OF=() USED_TRANSPORT=()
REF_UNITS=()
IDP_UNITS=() PROT_UNITS=() PASS_UNITS=()

# ---------------------------------------------------------------- direct
if has_target direct; then
    URL[direct]="http://127.0.0.1:$UP_PORT"
    PID_UNDER_TEST[direct]=$UP_WORKER
    REF_UNITS+=(direct)
fi

# ---------------------------------------------------------------- nginx reverse proxy
if has_target nginx; then
    NGX_PORT=$(pick_port)
    write_nginx_conf "$WORK/nginx" "$(nginx_proxy_http "$NGX_PORT" "$UP_PORT")"
    "$NGINX" -t -q -p "$WORK/nginx/" -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/error.log" \
        || die "proxy nginx config invalid (see $WORK/nginx/error.log)"
    start_nginx nginx "$PROXY_CPU" "$WORK/nginx/nginx.conf"
    NGX_MASTER=$NGINX_MASTER
    wait_port "$NGX_PORT" 10 || die "proxy nginx did not start (see $WORK/nginx/error.log)"
    NGX_WORKER=$(nginx_worker_pid "$NGX_MASTER") || die "proxy nginx has no worker"
    URL[nginx]="http://127.0.0.1:$NGX_PORT"
    PID_UNDER_TEST[nginx]=$NGX_WORKER
    REF_UNITS+=(nginx)
    log "nginx reverse proxy on 127.0.0.1:$NGX_PORT (master $NGX_MASTER, worker $NGX_WORKER, cpu $PROXY_CPU)"
fi

# ---------------------------------------------------------------- HAProxy reverse proxy
if has_target haproxy; then
    HAP_PORT=$(pick_port)
    mkdir -p "$WORK/haproxy"
    # One process, one thread (-db without -W: no master), keep-alive on both sides, idle upstream
    # connections reused by any client connection (http-reuse always), and the forwarded headers
    # nginx sets: Host is passed as it came, X-Forwarded-For appended, -Proto and -Host set.
    cat >"$WORK/haproxy/haproxy.cfg" <<EOC
global
    nbthread 1
    maxconn 4096
    pidfile $WORK/haproxy/haproxy.pid

defaults
    mode http
    option http-keep-alive
    option forwardfor
    timeout connect 5s
    timeout client 75s
    timeout server 75s
    timeout http-keep-alive 75s
    timeout http-request 10s

frontend bench_in
    bind 127.0.0.1:$HAP_PORT
    http-request set-header X-Forwarded-Proto http
    http-request set-header X-Forwarded-Host %[req.hdr(host)]
    default_backend bench_upstream

backend bench_upstream
    http-reuse always
    server upstream 127.0.0.1:$UP_PORT
EOC
    "$HAPROXY" -c -q -f "$WORK/haproxy/haproxy.cfg" >"$WORK/haproxy/check.log" 2>&1 \
        || die "haproxy config invalid: $(cat "$WORK/haproxy/check.log")"
    (pinned "$PROXY_CPU" "$HAPROXY" -db -f "$WORK/haproxy/haproxy.cfg") >"$WORK/haproxy/stdout.log" 2>&1 &
    HAP_PID=$!
    STARTED_PIDS+=("$HAP_PID")
    wait_port "$HAP_PORT" 10 || die "haproxy did not start: $(tail -n 5 "$WORK/haproxy/stdout.log")"
    URL[haproxy]="http://127.0.0.1:$HAP_PORT"
    PID_UNDER_TEST[haproxy]=$HAP_PID
    REF_UNITS+=(haproxy)
    log "haproxy reverse proxy on 127.0.0.1:$HAP_PORT (pid $HAP_PID, cpu $PROXY_CPU)"
fi

# ---------------------------------------------------------------- redis (the redis store's server)
REDIS_PID=""
if (( NEED_REDIS )); then
    REDIS_PORT=$(pick_port)
    mkdir -p "$WORK/redis"
    # No persistence: a sidecar's store is usually a remote Redis; here it shares core REDIS_CPU.
    (pinned "$REDIS_CPU" "$REDIS_SERVER" --bind 127.0.0.1 --port "$REDIS_PORT" --protected-mode yes \
        --save "" --appendonly no --daemonize no --dir "$WORK/redis" --logfile "$WORK/redis/redis.log" \
        --databases 1) >"$WORK/redis/stdout.log" 2>&1 &
    REDIS_PID=$!
    STARTED_PIDS+=("$REDIS_PID")
    wait_port "$REDIS_PORT" 10 || die "redis-server did not start: $(tail -n 5 "$WORK/redis/redis.log" 2>/dev/null)"
    log "redis-server on 127.0.0.1:$REDIS_PORT (pid $REDIS_PID, cpu $REDIS_CPU)"
fi

# ---------------------------------------------------------------- idemproxy, one per store
IDEMPROXY_NOTES=()
unit_dir() { # idemproxy unit -> its dir
    local v=${1#idemproxy@}
    echo "$WORK/idemproxy/${v/+/-}"
}
if has_target idemproxy; then
    if [[ ! -f "$JAR" ]]; then
        log "no jar at $JAR: building it (mvn -q -B package -DskipTests)"
        ( cd "$REPO_ROOT" && { mvn -q -B -o package -DskipTests 2>/dev/null || mvn -q -B package -DskipTests; } ) \
            || die "maven build failed"
        [[ -f "$JAR" ]] || die "build did not produce $JAR"
    fi
    # Run a copy: a rebuild of the worktree mid-run cannot swap the jar under the JVMs.
    mkdir -p "$WORK/idemproxy"
    cp "$JAR" "$WORK/idemproxy/idemproxy-bench-copy.jar"

    write_idemproxy_config() { # dir store near_cache(0|1) port admin_port transport
        local dir=$1 store=$2 nc=$3
        {
            cat <<EOC
listen: 127.0.0.1:$4
admin:
  listen: 127.0.0.1:$5
server:
  ioThreads: 1
  transport: $6
store:
  type: $store
EOC
            case "$store" in
                embedded) echo "  embedded: { path: \"$dir/data\" }" ;;
                redis) echo "  redis: { uri: \"redis://127.0.0.1:$REDIS_PORT\", mode: standalone, keyPrefix: \"bench:\" }" ;;
            esac
            if (( nc )); then
                echo "  nearCache: { enabled: true, maxEntries: $NEAR_CACHE_ENTRIES, ttl: 30s }"
            elif [[ $store == embedded ]]; then
                # on by default with embedded since 2026-11-29: the plain embedded rows measure the file itself
                echo "  nearCache: { enabled: false }"
            fi
            cat <<EOC
routes:
  - name: bench
    match: { pathPrefix: /bench }
    upstream: http://127.0.0.1:$UP_PORT
    log: { passThrough: false }   # as nginx's access_log off; protected calls and replays still log
  - name: idem
    match: { pathPrefix: /idem }
    upstream: http://127.0.0.1:$UP_PORT
    idempotency:
      enabled: true
      methods: [POST]
      ttl: $RECORD_TTL
EOC
        } >"$dir/conf/idemproxy.yaml"
    }
    validate_idemproxy_config() { # dir
        (cd "$1" && java -jar "$WORK/idemproxy/idemproxy-bench-copy.jar" validate --config "$1/conf/idemproxy.yaml") \
            >"$1/validate.log" 2>&1
    }

    # Which instances: the pass-through scenarios run on a JVM of their own ("pass", memory store,
    # never touched by them), so the records the protected runs leave in another JVM's heap (the
    # memory store's, up to rate × ttl of them) cannot put its garbage collector into the
    # pass-through rows; protected-post and replay run on every store's instance, and with
    # --near-cache also on embedded and redis with store.nearCache enabled.
    idp_variants=()
    (( PASS_SELECTED )) && idp_variants+=(pass)
    if (( PROTECTED_SELECTED )); then
        idp_variants+=("${STORE_LIST[@]}")
        if (( NEAR_CACHE )); then
            for st in "${STORE_LIST[@]}"; do [[ $st != memory ]] && idp_variants+=("$st+nc"); done
        fi
    fi
    declare -A IDP_PORT=()
    # Every variant once per transport: "idemproxy@memory" on auto, "idemproxy@memory~epoll" on epoll.
    all_variants=()
    for tr in "${TRANSPORT_LIST[@]}"; do
        for base in "${idp_variants[@]}"; do
            if [[ $tr == auto ]]; then all_variants+=("$base"); else all_variants+=("$base~$tr"); fi
        done
    done
    for v in "${all_variants[@]}"; do
        u="idemproxy@$v"
        base=${v%%~*}; tr=auto; [[ $v == *~* ]] && tr=${v#*~}
        st=${base%+nc}; nc=0; [[ $base == *+nc ]] && nc=1; [[ $base == pass ]] && st=memory
        dir="$WORK/idemproxy/${v/+/-}"
        mkdir -p "$dir"
        port=$(pick_port); admin=$(pick_port)
        mkdir -p "$dir/conf"
        write_idemproxy_config "$dir" "$st" "$nc" "$port" "$admin" "$tr"
        if ! validate_idemproxy_config "$dir"; then
            if (( nc )); then
                log "WARNING: idemproxy rejects store.nearCache ($(grep -m1 -i 'nearCache' "$dir/validate.log" || head -n1 "$dir/validate.log")): the $st+nc rows are skipped"
                IDEMPROXY_NOTES+=("the near-cache variant of $st was skipped: the loader rejected \`store.nearCache\` (\`$(head -n1 "$dir/validate.log" | sed "s|$dir/||" | cut -c1-160)\`)")
                continue
            fi
            die "idemproxy rejects the $v bench config: $(cat "$dir/validate.log")"
        fi
        # shellcheck disable=SC2086 # JVM_OPTS is a list of words
        (cd "$dir" && pinned "$PROXY_CPU" java $JVM_OPTS -jar "$WORK/idemproxy/idemproxy-bench-copy.jar" run \
            --config "$dir/conf/idemproxy.yaml") >"$dir/stdout.log" 2>&1 &
        pid=$!
        STARTED_PIDS+=("$pid")
        URL[$u]="http://127.0.0.1:$port"
        ADMIN_URL[$u]="http://127.0.0.1:$admin"
        PID_UNDER_TEST[$u]=$pid
        STORE_OF[$u]=$st
        NC_OF[$u]=$nc
        TRANSPORT_OF[$u]=$tr
        IDP_PORT[$u]=$port
        IDP_UNITS+=("$u")
        if [[ $base == pass ]]; then PASS_UNITS+=("$u"); else PROT_UNITS+=("$u"); fi
    done
    # The JVMs start together on one core (AlwaysPreTouch, JIT): allow them 180 s in all.
    deadline=$((SECONDS + 180))
    for u in "${IDP_UNITS[@]}"; do
        until port_in_use "${IDP_PORT[$u]}"; do
            kill -0 "${PID_UNDER_TEST[$u]}" 2>/dev/null \
                || die "$u exited at start: $(tail -n 20 "$(unit_dir "$u")/stdout.log")"
            (( SECONDS < deadline )) || die "$u not listening after 180s (see $(unit_dir "$u")/stdout.log)"
            sleep 0.2
        done
        log "$u on ${URL[$u]#http://} (pid ${PID_UNDER_TEST[$u]}, admin ${ADMIN_URL[$u]#http://}, cpu $PROXY_CPU, $JVM_OPTS)"
    done
    # What server.transport: auto picked here, from the start-up line ("... (io_uring transport, ...").
    for u in "${IDP_UNITS[@]}"; do
        tr_used=$(sed -nE 's/.*listening on .* \(([a-zA-Z_]+) transport,.*/\1/p' "$(unit_dir "$u")/stdout.log" | head -n1)
        USED_TRANSPORT[$u]=${tr_used:-unknown}
        log "$u runs on the ${USED_TRANSPORT[$u]} transport (server.transport: ${TRANSPORT_OF[$u]})"
    done
fi

# ---------------------------------------------------------------- sanity: every unit answers
units_for() { # scenario -> the units that run it
    local s=$1
    printf '%s\n' "${REF_UNITS[@]}"
    if is_protected "$s"; then
        (( ${#PROT_UNITS[@]} )) && printf '%s\n' "${PROT_UNITS[@]}"
    elif (( ${#PASS_UNITS[@]} )); then
        printf '%s\n' "${PASS_UNITS[@]}"
    fi
    return 0
}
send_request() { # unit scenario key headers_file -> http code (the request wrk sends, once)
    local u=$1 s=$2 key=$3 hdrs=$4 url="${URL[$1]}$(scenario_path "$2")"
    local -a args=(-sS -m 5 -o /dev/null -D "$hdrs" -w '%{http_code}')
    case "$s" in
        get) ;;
        post) args+=(-H 'Content-Type: application/json' --data "$SMALL_JSON") ;;
        post16k) args+=(-H 'Content-Type: application/json' --data-binary "@$BODY16K_FILE") ;;
        protected-post|replay) args+=(-H 'Content-Type: application/json' -H "Idempotency-Key: $key" --data "$SMALL_JSON") ;;
    esac
    curl "${args[@]}" "$url" 2>/dev/null || echo fail
}
prime_replay() { # unit nonce: store the run's replay key before a replay run (a new record each run,
    # so its ttl, which --record-ttl may make short, starts with the run and never ends inside it)
    local code
    code=$(send_request "$1" replay "$REPLAY_KEY_PREFIX$2" "$WORK/prime.headers")
    [[ $code == 200 ]] || die "$1: priming the replay key answered $code, expected 200"
}

for s in "${SCENARIO_LIST[@]}"; do
    mapfile -t units < <(units_for "$s")
    for u in "${units[@]}"; do
        [[ -n "$u" ]] || continue
        key="bench-sanity-$s-$RANDOM$RANDOM"
        code=$(send_request "$u" "$s" "$key" "$WORK/sanity.headers")
        [[ $code == 200 ]] || die "$u: $s ($(scenario_path "$s")) answered $code, expected 200"
    done
done
log "every target answers 200 to every scenario's request"

# The replay check: the same protected POST twice; the second must come from the store.
declare -A REPLAY_CHECK=()
if (( PROTECTED_SELECTED )); then
    for u in "${PROT_UNITS[@]}"; do
        key="bench-replay-check-$RANDOM$RANDOM"
        c1=$(send_request "$u" replay "$key" "$WORK/replay-check-1.headers")
        c2=$(send_request "$u" replay "$key" "$WORK/replay-check-2.headers")
        r1=$(grep -i '^Idempotent-Replayed:' "$WORK/replay-check-1.headers" | tr -d '\r' | sed 's/^[^:]*: *//' || true)
        r2=$(grep -i '^Idempotent-Replayed:' "$WORK/replay-check-2.headers" | tr -d '\r' | sed 's/^[^:]*: *//' || true)
        if [[ $c1 == 200 && $c2 == 200 && -z "$r1" && $r2 == true ]]; then
            REPLAY_CHECK[$u]="first POST $c1 (not replayed), second POST $c2 with \`Idempotent-Replayed: true\`"
            log "$u: replay check passed (second POST with the same key: Idempotent-Replayed: true)"
        else
            REPLAY_CHECK[$u]="**failed**: first POST $c1 (Idempotent-Replayed: ${r1:-absent}), second POST $c2 (Idempotent-Replayed: ${r2:-absent})"
            log "WARNING: $u: replay check failed: ${REPLAY_CHECK[$u]}"
        fi
    done
fi

# ---------------------------------------------------------------- measuring
safe_name() { local n=${1//@/-}; echo "${n//+/-}"; }
run_wrk() { # unit scenario duration logfile nonce
    local u=$1 s=$2
    (pinned "$LOAD_CPU" "$WRK" --latency -t"$THREADS" -c"$CONNECTIONS" -d"$3" --timeout 5s \
        -s "$SCRIPT_DIR/wrk/$s.lua" "${URL[$u]}$(scenario_path "$s")" -- "$5") >"$4" 2>&1
}
# The warm-up's scrapes: a sidecar in production is scraped every few seconds, and the admin
# listener's HTTP codec runs the same Netty classes as the proxy's, with other message types. A JVM
# never scraped before has its hot paths compiled for the proxy's types alone; the first scrapes
# (metric_sum's, just before and after a measured run) then send those paths back to the
# interpreter at the start of the run while C2 recompiles them (measured 2026-12-03; in the git history of docs/benchmarks.md).
scrape_metrics() { # unit seconds-between: scrapes /metrics until killed, from the load core
    while sleep "$2"; do
        (pinned "$LOAD_CPU" curl -sS -m 5 -o /dev/null "${ADMIN_URL[$1]}/metrics") 2>/dev/null || true
    done
}
metric_sum() { # unit metric -> sum of the metric's series for the route "idem" (-1 if unreadable)
    local m
    m=$(curl -sS -m 5 "${ADMIN_URL[$1]}/metrics" 2>/dev/null) || { echo -1; return 0; }
    awk -v name="$2" 'index($0, name "{") == 1 && index($0, "route=\"idem\"") { s += $NF; n++ } END { printf "%.0f\n", (n ? s : 0) }' <<<"$m"
}

declare -A RESULTS=()   # "$u/$s" -> lines of the 12 columns below
declare -A CHECKS=()    # "$u/$s" -> lines of "requests upstream_hits replays"
declare -A DEAD=()
NOISY_REDOS=0
PROBLEMS=()
last_words() { # unit -> ": last log line" for idemproxy
    [[ $1 == idemproxy@* ]] || return 0
    local f
    f="$(unit_dir "$1")/stdout.log"
    [[ -s "$f" ]] || return 0
    printf '; its last log line: `%s`' "$(tail -n1 "$f" | cut -c1-200)"
}
children_ms() { # file written by the times builtin -> CPU ms (user+sys) of the shell's reaped children
    awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] }; printf "%.0f", t * 1000 }' "$1"
}
field() { sed -E "s/.* $1=([0-9.]+).*/\\1/" <<<"$2"; }

# --pause-others: the idemproxy JVMs share the proxy's core, and one that is not under test still
# runs its own threads there (the embedded store's sync, purge and MVStore writer, Caffeine's
# maintenance, the collector, Lettuce): SIGSTOP them for the run, SIGCONT the one measured. The
# EXIT trap (lib.sh) resumes every process before it stops them.
rewarm_on() { [[ $REWARM != 0 && $REWARM != 0s ]]; }  # --rewarm given a length

only_running() { # unit (a reference target: no idemproxy runs)
    local v
    for v in "${IDP_UNITS[@]}"; do
        if [[ $v == "$1" ]]; then kill -CONT "${PID_UNDER_TEST[$v]}" 2>/dev/null || true
        else kill -STOP "${PID_UNDER_TEST[$v]}" 2>/dev/null || true; fi
    done
    sleep 0.5  # a resumed JVM's timers fire at once: let them, before the run
}

measure() { # unit scenario rep [attempt]
    local u=$1 s=$2 rep=$3 attempt=${4:-0} pid=${PID_UNDER_TEST[$1]}
    local logf
    logf="$WORK/wrk-$(safe_name "$u")-$s-$rep$( (( attempt == 0 )) || echo "-a$attempt").log"
    [[ -n "${DEAD[$u]:-}" ]] && return 0
    if ! kill -0 "$pid" 2>/dev/null; then
        DEAD[$u]=1
        PROBLEMS+=("$u (pid $pid) was gone before $s run $rep; its remaining runs were skipped$(last_words "$u")")
        log "ERROR: $u (pid $pid) is not running any more: skipping its remaining runs"
        return 0
    fi
    (( PAUSE_OTHERS )) && only_running "$u"
    local nonce
    if rewarm_on; then
        # The same load just before the measured run, not measured: a JIT-compiled target has just
        # served another scenario (or, between rounds, nothing for minutes), and its first seconds
        # after such a switch run code being deoptimised and recompiled (measured 2026-12-02; in the git history of docs/benchmarks.md).
        nonce="$(safe_name "$u")-$rep-$attempt-rewarm-$RANDOM$RANDOM"
        [[ $s == replay ]] && prime_replay "$u" "$nonce"
        run_wrk "$u" "$s" "$REWARM" "$logf.rewarm" "$nonce" \
            || PROBLEMS+=("$u/$s run $rep: the re-warm run failed: $(tr '\n' ' ' <"$logf.rewarm" | cut -c1-300)")
    fi
    nonce="$(safe_name "$u")-$rep-$attempt-$RANDOM$RANDOM"
    [[ $s == replay ]] && prime_replay "$u" "$nonce"
    local redis_here=0
    [[ -n "$REDIS_PID" && ${STORE_OF[$u]:-} == redis ]] && redis_here=1
    local c0a c1a c0b c1b t0 t1 u0 u1 w0 w1 r0=0 r1=0 h0 h1 rp0=0 rp1=0
    h0=$(upstream_hits)
    [[ $u == idemproxy@* ]] && rp0=$(metric_sum "$u" idemproxy_replays_total)
    # `times` must run in this shell (not in a $(...) subshell) to see wrk, a child of this shell
    times >"$WORK/times.before"
    u0=$(cpu_ticks "$UP_WORKER") || die "the upstream nginx worker ($UP_WORKER) is gone"
    [[ -n "$REDIS_PID" ]] && { r0=$(cpu_ticks "$REDIS_PID") || die "redis-server ($REDIS_PID) is gone"; }
    t0=$(cpu_ticks "$pid") || { DEAD[$u]=1; PROBLEMS+=("$u (pid $pid) was gone before $s run $rep$(last_words "$u")"); return 0; }
    c0a=$(cpu_busy_ticks "$PROXY_CPU"); c1a=$(cpu_busy_ticks "$LOAD_CPU")
    if ! run_wrk "$u" "$s" "$DURATION" "$logf" "$nonce"; then
        PROBLEMS+=("$u/$s run $rep: wrk failed: $(tr '\n' ' ' <"$logf" | cut -c1-300)")
        log "ERROR: wrk failed for $u/$s run $rep: $(cat "$logf")"
        return 0
    fi
    # a process that died during the run has no /proc entry left to read
    t1=$(cpu_ticks "$pid") || t1=""
    c0b=$(cpu_busy_ticks "$PROXY_CPU"); c1b=$(cpu_busy_ticks "$LOAD_CPU")
    u1=$(cpu_ticks "$UP_WORKER") || u1=$u0
    [[ -n "$REDIS_PID" ]] && { r1=$(cpu_ticks "$REDIS_PID") || r1=$r0; }
    times >"$WORK/times.after"
    if [[ -z "$t1" ]] || ! kill -0 "$pid" 2>/dev/null; then
        DEAD[$u]=1
        PROBLEMS+=("$u (pid $pid) died during $s run $rep; that run and the remaining ones were dropped$(last_words "$u")")
        log "ERROR: $u (pid $pid) died during $s run $rep"
        return 0
    fi
    local rss
    rss=$(rss_kib "$pid")
    w0=$(children_ms "$WORK/times.before"); w1=$(children_ms "$WORK/times.after")
    h1=$(upstream_hits)
    [[ $u == idemproxy@* ]] && rp1=$(metric_sum "$u" idemproxy_replays_total)
    local line
    if ! line=$(grep '^BENCH_RESULT' "$logf"); then
        PROBLEMS+=("$u/$s run $rep: no result line from wrk")
        return 0
    fi
    local rps p50 p99 p999 reqs e_conn e_read e_write e_status e_timeout
    rps=$(field rps "$line"); p50=$(field p50_us "$line"); p99=$(field p99_us "$line"); p999=$(field p999_us "$line")
    reqs=$(field requests "$line")
    e_conn=$(field err_connect "$line"); e_read=$(field err_read "$line"); e_write=$(field err_write "$line")
    e_status=$(field err_status "$line"); e_timeout=$(field err_timeout "$line")
    local cpu_us core0 core1 proc_pct others0 others1 store_us redis_pct steal0 steal1
    cpu_us=$(awk -v d="$((t1 - t0))" -v hz="$CLK_TCK" -v n="$reqs" 'BEGIN { printf "%.1f", (n > 0 ? d * 1e6 / hz / n : 0) }')
    store_us=-
    (( redis_here )) && store_us=$(awk -v d="$((r1 - r0))" -v hz="$CLK_TCK" -v n="$reqs" 'BEGIN { printf "%.1f", (n > 0 ? d * 1e6 / hz / n : 0) }')
    core0=$(busy_pct "$c0a" "$c0b")
    core1=$(busy_pct "$c1a" "$c1b")
    # the process's CPU time over the wall time (the core's total ticks), in percent of one core
    proc_pct=$(share_pct "$((t1 - t0))" "$c0a" "$c0b")
    redis_pct=$(share_pct "$((r1 - r0))" "$c0a" "$c0b")
    # steal: the share of each core's time that the hypervisor gave to other guests while ours
    # wanted to run (a virtual machine on a shared host); /proc/stat counts it as busy
    steal0=$(share_pct "$(( $(steal_of "$c0b") - $(steal_of "$c0a") ))" "$c0a" "$c0b")
    steal1=$(share_pct "$(( $(steal_of "$c1b") - $(steal_of "$c1a") ))" "$c1a" "$c1b")
    # what else ran on the proxy's core: its busy time less the process under test (direct: all
    # of it) and less the steal, and less redis-server if it was put there (--redis-cpu)
    if [[ $u == direct ]]; then others0=$core0; else others0=$(( core0 > proc_pct ? core0 - proc_pct : 0 )); fi
    others0=$(( others0 > steal0 ? others0 - steal0 : 0 ))
    if [[ $REDIS_CPU == "$PROXY_CPU" ]]; then others0=$(( others0 > redis_pct ? others0 - redis_pct : 0 )); fi
    # what else ran on the load core: its busy time less wrk, the upstream worker and redis-server
    local redis_on_load=0
    [[ $REDIS_CPU == "$LOAD_CPU" ]] && redis_on_load=$((r1 - r0))
    others1=$(awk -v c="$core1" -v w="$((w1 - w0))" -v up="$((u1 - u0 + redis_on_load))" -v hz="$CLK_TCK" -v a="$c1a" -v b="$c1b" 'BEGIN {
        split(a, x, " "); split(b, y, " "); tot = y[2] - x[2]; if (tot <= 0) { print 0; exit }
        o = c - 100 * (w / 1000 * hz + up) / tot; printf "%.0f", (o > 0 ? o : 0) }')
    others1=$(( others1 > steal1 ? others1 - steal1 : 0 ))
    local errs=""
    if grep -q 'Socket errors' "$logf"; then errs+=" $(grep 'Socket errors' "$logf" | sed 's/^ *//')"; fi
    if grep -q 'Non-2xx' "$logf"; then errs+=" $(grep 'Non-2xx' "$logf" | sed 's/^ *//')"; fi
    if [[ -n "$errs" ]] || (( e_conn + e_read + e_write + e_status + e_timeout > 0 )); then
        PROBLEMS+=("$u/$s run $rep$( (( attempt == 0 )) || echo " (attempt $((attempt + 1)))"):$errs")
    fi
    # upstream hits during the run: the difference less the second status request itself
    local hits=$((h1 - h0 - 1)) replays=-
    (( h0 < 0 || h1 < 0 )) && hits=-1
    [[ $u == idemproxy@* ]] && replays=$(( rp0 < 0 || rp1 < 0 ? -1 : rp1 - rp0 ))
    local summary
    summary=$(printf '%-22s %-14s run %d: %9.0f req/s  p50 %6.3f ms  p99 %6.3f ms  p99.9 %6.3f ms  %6s CPU-us/req  RSS %s MiB  proc %s%%  others core%d %s%% core%d %s%%  steal core%d %s%% core%d %s%%  upstream hits %s  replays %s%s' \
        "$u" "$s" "$rep" "$rps" "$(us2ms "$p50")" "$(us2ms "$p99")" "$(us2ms "$p999")" "$cpu_us" "$((rss / 1024))" "$proc_pct" \
        "$PROXY_CPU" "$others0" "$LOAD_CPU" "$others1" "$PROXY_CPU" "$steal0" "$LOAD_CPU" "$steal1" "$hits" "$replays" "${errs:+  !!$errs}")
    # noise: other processes and steal together took more than 15% of a core we use
    local noisy=0
    (( others1 + steal1 > 15 )) && noisy=1
    [[ $u != direct ]] && (( others0 + steal0 > 15 )) && noisy=1
    if (( noisy && attempt < NOISE_RETRIES )); then
        log "$summary  -- other work or steal on our cores: discarded, redoing in 5 s"
        NOISY_REDOS=$((NOISY_REDOS + 1))
        sleep 5
        measure "$u" "$s" "$rep" $((attempt + 1))
        return 0
    fi
    RESULTS["$u/$s"]+="$rps $p50 $p99 $p999 $cpu_us $proc_pct $core0 $core1 $others0 $others1 $rss $store_us $steal0 $steal1"$'\n'
    CHECKS["$u/$s"]+="$reqs $hits $replays"$'\n'
    log "$summary$( (( noisy )) && echo '  -- noisy, kept (out of redos)')"
}
us2ms() { awk -v u="$1" 'BEGIN { printf "%.3f", u / 1000 }'; }
# The most that other work and steal together took of either core in any one kept run of a row:
# one disturbed run can decide which of the others is the median, so a verdict goes by the worst run.
noise_max() { # <<< a row's run lines -> percent of a core
    awk 'NF { a = $9 + $13; b = $10 + $14; if (a > m) m = a; if (b > m) m = b } END { print m + 0 }'
}

median_col() { # column(1-based) <<< lines -> median ("" when the column is "-")
    awk -v c="$1" 'NF && $c != "-" { print $c }' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit; if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

log "warm-up: $WARMUP per idemproxy and scenario, $REF_WARMUP per reference target and scenario"
for s in "${SCENARIO_LIST[@]}"; do
    mapfile -t units < <(units_for "$s")
    for u in "${units[@]}"; do
        [[ -n "$u" ]] || continue
        nonce="$(safe_name "$u")-warmup-$RANDOM$RANDOM"
        [[ $s == replay ]] && prime_replay "$u" "$nonce"
        wu=$WARMUP; [[ $u == idemproxy@* ]] || wu=$REF_WARMUP
        scraper=""
        if [[ $u == idemproxy@* && $WARMUP_SCRAPE != 0 ]]; then
            scrape_metrics "$u" "$WARMUP_SCRAPE" &
            scraper=$!
        fi
        run_wrk "$u" "$s" "$wu" "$WORK/wrk-$(safe_name "$u")-$s-warmup.log" "$nonce" \
            || die "warm-up failed for $u/$s: $(cat "$WORK/wrk-$(safe_name "$u")-$s-warmup.log")"
        if [[ -n "$scraper" ]]; then kill "$scraper" 2>/dev/null || true; wait "$scraper" 2>/dev/null || true; fi
    done
done
log "measuring: $REPEAT x $DURATION per target and scenario, interleaved"
for rep in $(seq 1 "$REPEAT"); do
    for s in "${SCENARIO_LIST[@]}"; do
        mapfile -t units < <(units_for "$s")
        for u in "${units[@]}"; do
            [[ -n "$u" ]] && measure "$u" "$s" "$rep"
        done
    done
done

# ---------------------------------------------------------------- report
declare -A MED=() NOISE_MAX=()
mapfile -t PAIRS < <(for s in "${SCENARIO_LIST[@]}"; do units_for "$s" | sed "/^$/d; s|\$|/$s|"; done)
for p in "${PAIRS[@]}"; do
    for col in $(seq 1 14); do
        MED["$p/$col"]=$(median_col "$col" <<<"${RESULTS[$p]:-}")
    done
    NOISE_MAX["$p"]=$(noise_max <<<"${RESULTS[$p]:-}")
done

scenario_name() {
    case "$1" in
        get) echo "GET 128 B" ;;
        post) echo "POST small JSON" ;;
        post16k) echo "POST 16 KiB JSON" ;;
        protected-post) echo "protected POST, new key each" ;;
        replay) echo "replay of one stored key" ;;
    esac
}
target_name() { # unit -> "idemproxy", "idemproxy (epoll)" for another transport than auto, or the unit
    if [[ $1 != idemproxy@* ]]; then echo "$1"; return 0; fi
    local tr=${TRANSPORT_OF[$1]:-auto}
    if [[ $tr == auto ]]; then echo idemproxy; else echo "idemproxy ($tr)"; fi
}
store_name() { # unit scenario
    if [[ $1 != idemproxy@* ]]; then echo "—"; return 0; fi
    if ! is_protected "$2"; then echo "— (route without idempotency)"; return 0; fi
    echo "${STORE_OF[$1]}$( (( ${NC_OF[$1]} )) && echo ' + near-cache')"
}
fmt_ms() { awk -v u="$1" 'BEGIN { printf "%.3f", u / 1000 }'; }
fmt_mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

CPU_MODEL=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
JAVA_VERSION=$({ java -version 2>&1 || true; } | head -n1)
NGINX_VERSION=$({ "$NGINX" -v 2>&1 || true; } | head -n1)
WRK_VERSION=$({ "$WRK" -v 2>&1 || true; } | head -n1 | sed -E 's/ Copyright.*//')
HAPROXY_VERSION=""
[[ -n "$HAPROXY" ]] && HAPROXY_VERSION=$({ "$HAPROXY" -v 2>&1 || true; } | head -n1 | sed -E 's/ - https.*//')
REDIS_VERSION=""
[[ -n "$REDIS_SERVER" ]] && REDIS_VERSION=$({ "$REDIS_SERVER" --version 2>&1 || true; } | head -n1 | sed -E 's/ sha=.*//')
IDP_VERSION=""
has_target idemproxy && IDP_VERSION=$({ java -jar "$JAR" --version 2>&1 || true; } | head -n1)
GIT_REV=$(git -C "$REPO_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)

bar_of() { # unit scenario -> "ratio p99_limit_ms label" (ratio 0: no bar)
    case "$2" in
        get|post|post16k) echo "0.9 0.5 ≥ 0.9×, p99 ≤ +0.5 ms" ;;
        replay) echo "1.5 - ≥ 1.5×" ;;
        protected-post)
            case "${STORE_OF[$1]}" in
                embedded) echo "0.6 - ≥ 0.6×" ;;
                redis) echo "0.5 - ≥ 0.5×" ;;
                *) echo "0 - none set" ;;
            esac ;;
    esac
}

{
    echo "### Results $(date -u +'%Y-%m-%d %H:%M UTC')"
    echo
    echo "Command: \`$CMDLINE\`"
    echo
    echo "- Machine: $NCPU CPUs ($CPU_MODEL), kernel $(uname -r); before the run: core$PROXY_CPU ${PRE_BUSY0}% busy, core$LOAD_CPU ${PRE_BUSY1}% busy, load average $PRE_LOADAVG"
    [[ "$NICE" != 0 ]] && echo "- Everything started by the script runs at nice $NICE"
    if [[ $NCPU -eq 2 ]]; then
        echo "- Only 2 cores: core $PROXY_CPU runs the proxy under test alone; wrk **and** the upstream nginx share core $LOAD_CPU, so the load side can saturate before the proxy does (see the core columns)."
    else
        echo "- Pinning: proxy under test on core $PROXY_CPU; wrk and the upstream nginx on core $LOAD_CPU."
    fi
    if [[ -n "$REDIS_PID" ]]; then
        echo "- The redis store's \`redis-server\` (private, no persistence) runs on core $REDIS_CPU$( [[ $REDIS_CPU == "$LOAD_CPU" ]] && echo ", with wrk and the upstream"). A sidecar's Redis is normally remote, so its CPU is not the proxy's: it is left out of idemproxy's CPU µs/req and shown apart (Redis CPU µs/req)$( [[ $REDIS_CPU == "$LOAD_CPU" ]] && echo "; on core $LOAD_CPU it competes with the load side, which can lower the Redis rows' req/s")."
    fi
    echo "- $JAVA_VERSION; $NGINX_VERSION; ${HAPROXY_VERSION:+$HAPROXY_VERSION; }${REDIS_VERSION:+$REDIS_VERSION; }$WRK_VERSION"
    [[ -n "$IDP_VERSION" ]] && echo "- idemproxy: $IDP_VERSION (git $GIT_REV), JVM options \`$JVM_OPTS\`, \`server.ioThreads: 1\`; one JVM per store, protected route \`idempotency: {enabled: true, methods: [POST], ttl: $RECORD_TTL}\`$( (( NEAR_CACHE )) && echo "; near-cache variants with \`store.nearCache: {enabled: true, maxEntries: $NEAR_CACHE_ENTRIES, ttl: 30s}\`")"
    if [[ ${#IDP_UNITS[@]} -gt 0 ]]; then
        tr_notes=()
        for tr in "${TRANSPORT_LIST[@]}"; do
            for u in "${IDP_UNITS[@]}"; do
                if [[ ${TRANSPORT_OF[$u]} == "$tr" ]]; then
                    tr_notes+=("\`server.transport: $tr\` ran on ${USED_TRANSPORT[$u]}$( [[ $tr == auto ]] && echo " (rows *idemproxy*)" || echo " (rows *idemproxy ($tr)*)")")
                    break
                fi
            done
        done
        echo "- idemproxy transports: $(IFS=';'; echo "${tr_notes[*]}" | sed 's/;/; /g')"
    fi
    for n in "${IDEMPROXY_NOTES[@]}"; do echo "- $n"; done
    echo "- wrk: $THREADS thread(s), $CONNECTIONS connections, $DURATION per run after a $WARMUP warm-up ($REF_WARMUP for the reference targets); each cell is the median of $REPEAT runs"
    if (( PAUSE_OTHERS )); then
        echo "- during every measured run (and its re-warm) the idemproxy JVMs not under test were stopped (SIGSTOP; \`--pause-others\`)"
    fi
    if rewarm_on; then
        echo "- every measured run (every target) was preceded by an unmeasured $REWARM run of the same scenario on the same target (\`--rewarm\`)"
    fi
    if [[ ${#IDP_UNITS[@]} -gt 0 ]]; then
        if [[ $WARMUP_SCRAPE != 0 ]]; then
            echo "- during idemproxy's warm-up its \`/metrics\` was scraped every ${WARMUP_SCRAPE}s, as Prometheus would (\`--warmup-scrape\`)"
        else
            echo "- idemproxy's \`/metrics\` was not scraped during its warm-up (\`--warmup-scrape 0\`): the scrapes around the measured runs are its first"
        fi
    fi
    for p in "${PAIRS[@]}"; do
        n=$(grep -c . <<<"${RESULTS[$p]:-}" || true)
        if [[ "$n" -lt "$REPEAT" ]]; then
            echo "- **${p%/*} / ${p##*/}: only $n of $REPEAT runs measured** (see the problems below)"
        fi
    done
    echo
    echo "| target | store | scenario | req/s | p50 ms | p99 ms | p99.9 ms | CPU µs/req | RSS MiB | process CPU | Redis CPU µs/req | core$PROXY_CPU busy | core$LOAD_CPU busy | others on core$PROXY_CPU | others on core$LOAD_CPU | steal core$PROXY_CPU | steal core$LOAD_CPU |"
    echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for p in "${PAIRS[@]}"; do
        u=${p%/*}; s=${p##*/}
        if [[ -z "${MED[$p/1]}" ]]; then
            printf '| %s | %s | %s | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a |\n' "$(target_name "$u")" "$(store_name "$u" "$s")" "$(scenario_name "$s")"
            continue
        fi
        store_cpu="—"
        [[ -n "${MED[$p/12]}" ]] && store_cpu=$(printf '%.1f' "${MED[$p/12]}")
        printf '| %s | %s | %s | %.0f | %s | %s | %s | %.1f | %s | %.0f%% | %s | %.0f%% | %.0f%% | %.0f%% | %.0f%% | %.0f%% | %.0f%% |\n' \
            "$(target_name "$u")" "$(store_name "$u" "$s")" "$(scenario_name "$s")" \
            "${MED[$p/1]}" "$(fmt_ms "${MED[$p/2]}")" "$(fmt_ms "${MED[$p/3]}")" "$(fmt_ms "${MED[$p/4]}")" \
            "${MED[$p/5]}" "$(fmt_mib "${MED[$p/11]}")" "${MED[$p/6]}" "$store_cpu" \
            "${MED[$p/7]}" "${MED[$p/8]}" "${MED[$p/9]}" "${MED[$p/10]}" "${MED[$p/13]:-0}" "${MED[$p/14]:-0}"
    done
    echo
    echo "Rows: nginx, HAProxy and direct cannot protect a call, so their *protected POST* and *replay* rows are a plain pass-through of the same requests (the same body and \`Idempotency-Key\` header: a new key per request, or the one stored key); idemproxy's pass-through rows use a route without \`idempotency\`. CPU µs/req: user+system CPU time of the process under test (direct: the upstream nginx worker; nginx: the proxy's worker; HAProxy: its one process; idemproxy: the whole JVM, all threads, without the Redis server) divided by the requests of the run. RSS: VmRSS of that process at the end of the run (median over the runs). Process CPU: the CPU time over the run's wall time (100% = one core). Redis CPU µs/req: the private redis-server's CPU time per request. Core busy: all processes on that core (from /proc/stat), ours and anyone else's. Others on core $PROXY_CPU: its busy time less the process under test and less steal — work that competed with the proxy (for direct, everything on that core but steal). Others on core $LOAD_CPU: its busy time less wrk$( [[ -n "$REDIS_PID" && $REDIS_CPU == "$LOAD_CPU" ]] && echo ", the upstream worker and redis-server" || echo " and the upstream worker") and less steal. Steal: the share of that core's time in which the hypervisor ran other guests while this virtual CPU wanted to run (\`/proc/stat\`'s steal field, which it counts as busy): time the process under test was runnable and did not run, on this machine as on any shared cloud host. A run where other work and steal together took more than 15% of a core we use is discarded and redone, up to $NOISE_RETRIES times (${NOISY_REDOS} redos in this run); the last attempt is kept."

    if has_target nginx && [[ ${#IDP_UNITS[@]} -gt 0 ]]; then
        echo
        echo "Bars: idemproxy against nginx's pass-through of the same request in the same run (HAProxy for comparison)."
        echo
        echo "| scenario | idemproxy store | idemproxy req/s | nginx req/s | HAProxy req/s | idemproxy/nginx req/s | idemproxy − nginx p99 | idemproxy/nginx CPU per req | bar | verdict |"
        echo "|---|---|---:|---:|---:|---:|---:|---:|---|---|"
        for p in "${PAIRS[@]}"; do
            u=${p%/*}; s=${p##*/}
            [[ $u == idemproxy@* ]] || continue
            read -r bar_ratio bar_p99 bar_label <<<"$(bar_of "$u" "$s")"
            if [[ -z "${MED[$p/1]}" || -z "${MED[nginx/$s/1]:-}" ]]; then
                echo "| $(scenario_name "$s") | $(store_name "$u" "$s") | n/a | n/a | n/a | n/a | n/a | n/a | $bar_label | not measured |"
                continue
            fi
            awk -v name="$(scenario_name "$s")" -v store="$(store_name "$u" "$s")" \
                -v ri="${MED[$p/1]}" -v rn="${MED[nginx/$s/1]}" -v rh="${MED[haproxy/$s/1]:-}" \
                -v pi="${MED[$p/3]}" -v pn="${MED[nginx/$s/3]}" \
                -v ci="${MED[$p/5]}" -v cn="${MED[nginx/$s/5]}" \
                -v ni="${NOISE_MAX[$p]:-0}" -v nn="${NOISE_MAX[nginx/$s]:-0}" \
                -v br="$bar_ratio" -v bp="$bar_p99" -v bl="$bar_label" 'BEGIN {
                    ratio = rn > 0 ? ri / rn : 0; diff = (pi - pn) / 1000; cr = cn > 0 ? ci / cn : 0
                    if (br + 0 == 0) ok = "no bar"
                    else ok = (ratio >= br && (bp == "-" || diff <= bp + 0)) ? "met" : "**missed**"
                    # other work and steal together, on either core, in any kept run of idemproxy or nginx
                    m = ni + 0; if (nn + 0 > m) m = nn + 0
                    if (m > 15) ok = ok " (inconclusive: other work and steal took up to " m "% of a core we use in a run)"
                    hap = (rh == "") ? "—" : sprintf("%.0f", rh)
                    printf "| %s | %s | %.0f | %.0f | %s | %.2f× | %+.3f ms | %.2f× | %s | %s |\n", name, store, ri, rn, hap, ratio, diff, cr, bl, ok }'
        done
    fi

    echo
    echo "Checks: upstream hits counted by the upstream's \`stub_status\` and replays counted by idemproxy's \`/metrics\` (\`idemproxy_replays_total{route=\"idem\"}\`), summed over the measured runs kept; the requests still in flight when wrk stops (at most $CONNECTIONS per run) may differ."
    echo
    echo "| target | store | scenario | wrk requests | upstream hits | replays | check |"
    echo "|---|---|---|---:|---:|---:|---|"
    for p in "${PAIRS[@]}"; do
        u=${p%/*}; s=${p##*/}
        [[ -n "${CHECKS[$p]:-}" ]] || continue
        read -r k reqs hits reps <<<"$(awk 'NF { k++; r += $1; if ($2 < 0) hb = 1; h += $2; if ($3 == "-") rd = 1; else if ($3 < 0) rb = 1; else p += $3 }
            END { printf "%d %d %s %s\n", k, r, (hb ? -1 : h), (rd ? "-" : (rb ? -1 : p)) }' <<<"${CHECKS[$p]}")"
        tol=$(( (CONNECTIONS + 2) * k ))
        diff=$(( hits > reqs ? hits - reqs : reqs - hits ))
        if (( hits < 0 )) || [[ $reps == -1 ]]; then
            verdict="counters unavailable"
        elif [[ $u != idemproxy@* ]] || ! is_protected "$s"; then
            if (( diff <= tol )); then verdict="every request forwarded"; else verdict="**unexpected: hits ≠ requests**"; fi
        elif [[ $s == protected-post ]]; then
            if (( reps == 0 && diff <= tol )); then verdict="a new record per request: none replayed, every one forwarded"
            else verdict="**unexpected: replays or hits ≠ requests**"; fi
        else
            if (( hits <= k && reps >= reqs && reps - reqs <= tol )); then verdict="every request replayed from the store, none forwarded"
            else verdict="**unexpected: not all replayed**"; fi
        fi
        [[ $reps == - ]] && reps="—"
        echo "| $(target_name "$u") | $(store_name "$u" "$s") | $(scenario_name "$s") | $reqs | $hits | $reps | $verdict |"
    done
    if [[ ${#REPLAY_CHECK[@]} -gt 0 ]]; then
        echo
        echo "Replay check before the load (curl, the same protected POST twice):"
        echo
        for u in "${PROT_UNITS[@]}"; do
            [[ -n "${REPLAY_CHECK[$u]:-}" ]] && echo "- idemproxy, store $(store_name "$u" replay): ${REPLAY_CHECK[$u]}"
        done
    fi
    echo
    if [[ ${#PROBLEMS[@]} -eq 0 ]]; then
        echo "wrk reported no socket errors, timeouts or non-2xx responses in any measured run."
    else
        echo "Problems (wrk errors, processes that died):"
        echo
        for p in "${PROBLEMS[@]}"; do echo "- $p"; done
    fi
} >"$OUT"

# the measured runs' wrk logs (their latency histograms) beside the results, for
# bench/paired-runs.py --hist: $WORK is emptied by the next run
WRK_KEEP="${OUT%.md}.wrk"
rm -rf "$WRK_KEEP" && mkdir -p "$WRK_KEEP"
find "$WORK" -maxdepth 1 -name 'wrk-*.log' ! -name '*-warmup.log' -exec cp {} "$WRK_KEEP"/ \;

cat "$OUT"
log "results written to $OUT; the measured runs' wrk logs in $WRK_KEEP; raw wrk output in $WORK"
