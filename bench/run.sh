#!/usr/bin/env bash
# Pass-through benchmark: wrk against the upstream directly, against nginx as a reverse proxy
# and against idemproxy, on loopback, with fixed CPU pinning. See docs/benchmarks.md.
#
#   bench/run.sh [--duration 10s] [--warmup 10s] [--connections 50] [--threads 1] [--repeat 3]
#                [--targets direct,nginx,idemproxy] [--jar PATH] [--jvm-opts "..."] [--nice N]
#                [--quiet-wait SECONDS] [--noise-retries N] [--out FILE]
#
# Everything the script starts is private (own config, own prefix dir under bench/out/) and is
# killed on exit. Only loopback addresses and free high ports are used.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
CMDLINE="bench/run.sh${*:+ $*}"

DURATION=10s
WARMUP=10s
CONNECTIONS=50
THREADS=1
REPEAT=3
TARGETS=direct,nginx,idemproxy
JAR=""
OUT=""
JVM_OPTS_DEFAULT="-Xms256m -Xmx256m -XX:+UseParallelGC -XX:+AlwaysPreTouch"
JVM_OPTS="$JVM_OPTS_DEFAULT"
NOISE_RETRIES=2      # redo a run (up to N times) when other work took >15% of a core we use
QUIET_WAIT=0         # wait up to this long for both cores to be idle before starting
NICE=0               # nice value for everything started here (e.g. -5 on a shared machine)
PROXY_CPU=0          # the proxy under test (nginx worker / idemproxy JVM)
LOAD_CPU=1           # wrk and the upstream nginx

usage() {
    sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

while [[ $# -gt 0 ]]; do
    case "$1" in
        --duration) DURATION=$2; shift 2 ;;
        --warmup) WARMUP=$2; shift 2 ;;
        --connections) CONNECTIONS=$2; shift 2 ;;
        --threads) THREADS=$2; shift 2 ;;
        --repeat) REPEAT=$2; shift 2 ;;
        --targets) TARGETS=$2; shift 2 ;;
        --jar) JAR=$2; shift 2 ;;
        --jvm-opts) JVM_OPTS=$2; shift 2 ;;
        --nice) NICE=$2; shift 2 ;;
        --quiet-wait) QUIET_WAIT=$2; shift 2 ;;
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
IFS=',' read -r -a TARGET_LIST <<<"$TARGETS"
for t in "${TARGET_LIST[@]}"; do
    case "$t" in direct|nginx|idemproxy) ;; *) echo "unknown target: $t" >&2; exit 2 ;; esac
done
has_target() { [[ ",$TARGETS," == *",$1,"* ]]; }

WORK="$REPO_ROOT/bench/out/runs"
[[ -n "$OUT" ]] || OUT="$REPO_ROOT/bench/out/results.md"
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac
[[ -z "$JAR" ]] && JAR="$REPO_ROOT/proxy-app/target/idemproxy.jar"
case "$JAR" in /*) ;; *) JAR="$PWD/$JAR" ;; esac

log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ---------------------------------------------------------------- cleanup
STARTED_PIDS=()
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    local pid
    for pid in "${STARTED_PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${STARTED_PIDS[@]}"; do
        for _ in $(seq 1 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- tools
install_missing_tools() {
    local missing=()
    command -v nginx >/dev/null 2>&1 || [[ -x /usr/sbin/nginx ]] || missing+=(nginx)
    command -v wrk >/dev/null 2>&1 || missing+=(wrk)
    [[ ${#missing[@]} -eq 0 ]] && return 0
    command -v apt-get >/dev/null 2>&1 || die "missing ${missing[*]} and no apt-get to install them"
    [[ $(id -u) -eq 0 ]] || die "missing ${missing[*]}: run as root (or install them) so apt-get can install them"
    log "installing ${missing[*]} from the Debian packages"
    # Keep the packaged nginx service from starting (it would bind port 80): a temporary
    # policy-rc.d that denies service starts, only if none exists already.
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
NGINX=$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)
WRK=$(command -v wrk)

NCPU=$(nproc)
[[ $NCPU -ge 2 ]] || die "need at least 2 CPUs for the pinning (have $NCPU)"
CLK_TCK=$(getconf CLK_TCK)

pinned() { # cpu cmd... : run pinned to one core, at the chosen nice value
    local cpu=$1; shift
    exec nice -n "$NICE" taskset -c "$cpu" "$@"
}

cpu_busy_ticks() { # cpu index -> "busy total" from /proc/stat
    awk -v c="cpu$1" '$1 == c { t = 0; for (i = 2; i <= NF; i++) t += $i; idle = $5 + $6; print t - idle, t }' /proc/stat
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
read -r EPH_LO EPH_HI < /proc/sys/net/ipv4/ip_local_port_range
USED_PORTS=" "
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() {
    local p
    for _ in $(seq 1 200); do
        p=$((20000 + RANDOM % 12000))
        if (( p >= EPH_LO && p <= EPH_HI )); then continue; fi
        [[ "$USED_PORTS" == *" $p "* ]] && continue
        if command -v ss >/dev/null 2>&1 && ss -Htanl "sport = :$p" 2>/dev/null | grep -q .; then continue; fi
        port_in_use "$p" && continue
        USED_PORTS+="$p "
        echo "$p"
        return 0
    done
    die "no free port found"
}
wait_port() { # port timeout_s
    local deadline=$((SECONDS + $2))
    until port_in_use "$1"; do
        (( SECONDS < deadline )) || return 1
        sleep 0.1
    done
}

# ---------------------------------------------------------------- process helpers
cpu_ticks() { # pid -> utime+stime of the whole process (all threads), in clock ticks
    local stat
    stat=$(<"/proc/$1/stat") || return 1
    stat=${stat##*) }
    # after "comm)": state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15)
    local -a f
    read -r -a f <<<"$stat"
    echo $(( f[11] + f[12] ))
}
nginx_worker_pid() { # master pid -> its single worker
    local w
    for _ in $(seq 1 50); do
        w=$(pgrep -P "$1" | head -n1 || true)
        [[ -n "$w" ]] && { echo "$w"; return 0; }
        sleep 0.1
    done
    return 1
}

# ---------------------------------------------------------------- work dir
rm -rf "$WORK"
mkdir -p "$WORK" "$(dirname "$OUT")"

# 128-byte JSON for GET; the POST answer is small JSON too.
GET_BODY='{"id":"bench-00001","status":"ok","items":[1,2,3,4,5,6,7,8],"note":"a fixed 128-byte body for idemproxy GET pass-through bench"}'
POST_BODY='{"ok":true}'

nginx_common() { # dir
    cat <<EOF
worker_processes 1;
daemon off;
master_process on;
pid $1/nginx.pid;
error_log $1/error.log warn;
worker_rlimit_nofile 65536;
events { worker_connections 4096; multi_accept on; }
EOF
}
nginx_http_common() { # dir
    cat <<EOF
    access_log off;
    server_tokens off;
    keepalive_timeout 75s;
    keepalive_requests 100000000;
    client_body_temp_path $1/client_body;
    proxy_temp_path $1/proxy;
    fastcgi_temp_path $1/fastcgi;
    uwsgi_temp_path $1/uwsgi;
    scgi_temp_path $1/scgi;
EOF
}

start_nginx() { # name cpu conf -> sets NGINX_MASTER
    local dir="$WORK/$1"
    (pinned "$2" "$NGINX" -p "$dir/" -c "$3" -e "$dir/error.log") >"$dir/stdout.log" 2>&1 &
    NGINX_MASTER=$!
    STARTED_PIDS+=("$NGINX_MASTER")
}

# ---------------------------------------------------------------- upstream
UP_PORT=$(pick_port)
mkdir -p "$WORK/upstream"
{
    nginx_common "$WORK/upstream"
    echo "http {"
    nginx_http_common "$WORK/upstream"
    cat <<EOF
    server {
        listen 127.0.0.1:$UP_PORT backlog=4096;
        default_type application/json;
        location = /bench/get  { return 200 '$GET_BODY'; }
        location = /bench/post { return 200 '$POST_BODY'; }
        location / { return 404; }
    }
}
EOF
} >"$WORK/upstream/nginx.conf"
"$NGINX" -t -q -p "$WORK/upstream/" -c "$WORK/upstream/nginx.conf" -e "$WORK/upstream/error.log" \
    || die "upstream nginx config invalid (see $WORK/upstream/error.log)"
start_nginx upstream "$LOAD_CPU" "$WORK/upstream/nginx.conf"
UP_MASTER=$NGINX_MASTER
wait_port "$UP_PORT" 10 || die "upstream nginx did not start (see $WORK/upstream/error.log)"
UP_WORKER=$(nginx_worker_pid "$UP_MASTER") || die "upstream nginx has no worker"
log "upstream nginx on 127.0.0.1:$UP_PORT (master $UP_MASTER, worker $UP_WORKER, cpu $LOAD_CPU)"

# ---------------------------------------------------------------- nginx reverse proxy
declare -A URL PID_UNDER_TEST
if has_target direct; then
    URL[direct]="http://127.0.0.1:$UP_PORT"
    PID_UNDER_TEST[direct]=$UP_WORKER
fi
if has_target nginx; then
    NGX_PORT=$(pick_port)
    mkdir -p "$WORK/nginx"
    {
        nginx_common "$WORK/nginx"
        echo "http {"
        nginx_http_common "$WORK/nginx"
        cat <<EOF
    upstream bench_upstream {
        server 127.0.0.1:$UP_PORT;
        keepalive 64;
        keepalive_requests 100000000;
    }
    server {
        listen 127.0.0.1:$NGX_PORT backlog=4096;
        location /bench {
            proxy_pass http://bench_upstream;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto \$scheme;
            proxy_set_header X-Forwarded-Host \$host;
        }
    }
}
EOF
    } >"$WORK/nginx/nginx.conf"
    "$NGINX" -t -q -p "$WORK/nginx/" -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/error.log" \
        || die "proxy nginx config invalid (see $WORK/nginx/error.log)"
    start_nginx nginx "$PROXY_CPU" "$WORK/nginx/nginx.conf"
    NGX_MASTER=$NGINX_MASTER
    wait_port "$NGX_PORT" 10 || die "proxy nginx did not start (see $WORK/nginx/error.log)"
    NGX_WORKER=$(nginx_worker_pid "$NGX_MASTER") || die "proxy nginx has no worker"
    URL[nginx]="http://127.0.0.1:$NGX_PORT"
    PID_UNDER_TEST[nginx]=$NGX_WORKER
    log "nginx reverse proxy on 127.0.0.1:$NGX_PORT (master $NGX_MASTER, worker $NGX_WORKER, cpu $PROXY_CPU)"
fi

# ---------------------------------------------------------------- idemproxy
IDEMPROXY_NOTE=""
if has_target idemproxy; then
    if [[ ! -f "$JAR" ]]; then
        log "no jar at $JAR: building it (mvn -q -B package -DskipTests)"
        ( cd "$REPO_ROOT" && { mvn -q -B -o package -DskipTests 2>/dev/null || mvn -q -B package -DskipTests; } ) \
            || die "maven build failed"
        [[ -f "$JAR" ]] || die "build did not produce $JAR"
    fi
    # Run a copy: a rebuild of the worktree mid-run cannot swap the jar under the JVM.
    mkdir -p "$WORK/idemproxy"
    cp "$JAR" "$WORK/idemproxy/proxy-under-test.jar"
    IDP_PORT=$(pick_port)
    IDP_ADMIN_PORT=$(pick_port)
    mkdir -p "$WORK/idemproxy"
    write_idemproxy_config() { # with_store(1|0)
        {
            cat <<EOF
listen: 127.0.0.1:$IDP_PORT
admin:
  listen: 127.0.0.1:$IDP_ADMIN_PORT
server:
  ioThreads: 1
EOF
            [[ $1 -eq 1 ]] && printf 'store:\n  type: memory\n'
            cat <<EOF
routes:
  - name: bench
    match: { pathPrefix: /bench }
    upstream: http://127.0.0.1:$UP_PORT
EOF
        } >"$WORK/idemproxy/idemproxy.yaml"
    }
    write_idemproxy_config 1
    if ! (cd "$WORK/idemproxy" && java -jar "$JAR" validate --config "$WORK/idemproxy/idemproxy.yaml") \
            >"$WORK/idemproxy/validate.log" 2>&1; then
        log "the loader rejected 'store: {type: memory}' ($(head -n3 "$WORK/idemproxy/validate.log" | tr '\n' ' ')); retrying without a store section"
        write_idemproxy_config 0
        IDEMPROXY_NOTE="store section omitted: the loader rejected type: memory"
        (cd "$WORK/idemproxy" && java -jar "$JAR" validate --config "$WORK/idemproxy/idemproxy.yaml") \
            >"$WORK/idemproxy/validate.log" 2>&1 || die "idemproxy rejects the bench config: $(cat "$WORK/idemproxy/validate.log")"
    fi
    # shellcheck disable=SC2086 # JVM_OPTS is a list of words
    (cd "$WORK/idemproxy" && pinned "$PROXY_CPU" java $JVM_OPTS -jar "$WORK/idemproxy/proxy-under-test.jar" run \
        --config "$WORK/idemproxy/idemproxy.yaml") >"$WORK/idemproxy/stdout.log" 2>&1 &
    IDP_PID=$!
    STARTED_PIDS+=("$IDP_PID")
    deadline=$((SECONDS + 60))
    until port_in_use "$IDP_PORT"; do
        kill -0 "$IDP_PID" 2>/dev/null || die "idemproxy exited at start: $(tail -n 20 "$WORK/idemproxy/stdout.log")"
        (( SECONDS < deadline )) || die "idemproxy not listening after 60s (see $WORK/idemproxy/stdout.log)"
        sleep 0.2
    done
    URL[idemproxy]="http://127.0.0.1:$IDP_PORT"
    PID_UNDER_TEST[idemproxy]=$IDP_PID
    log "idemproxy on 127.0.0.1:$IDP_PORT (pid $IDP_PID, cpu $PROXY_CPU, $JVM_OPTS)"
fi

# ---------------------------------------------------------------- sanity: every target answers
for t in "${TARGET_LIST[@]}"; do
    for path in get post; do
        if [[ $path == get ]]; then
            resp=$(curl -sS -m 5 -o /dev/null -w '%{http_code}' "${URL[$t]}/bench/get") || resp=fail
        else
            resp=$(curl -sS -m 5 -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
                --data '{"userId":42,"op":"create"}' "${URL[$t]}/bench/post") || resp=fail
        fi
        [[ $resp == 200 ]] || die "$t: ${path^^} ${URL[$t]}/bench/$path answered $resp, expected 200"
    done
done
log "all targets answer 200 on GET and POST"

# ---------------------------------------------------------------- measuring
run_wrk() { # target scenario duration logfile
    local t=$1 s=$2
    (pinned "$LOAD_CPU" "$WRK" --latency -t"$THREADS" -c"$CONNECTIONS" -d"$3" --timeout 5s \
        -s "$SCRIPT_DIR/wrk/$s.lua" "${URL[$t]}/bench/$s") >"$4" 2>&1
}

declare -A RESULTS   # "$t/$s" -> lines of "rps p50 p99 p999 cpu_us proc_pct core0 core1"
declare -A DEAD
NOISY_REDOS=0
PROBLEMS=()
last_words() { # target -> ": last log line" for idemproxy
    [[ $1 == idemproxy && -s "$WORK/idemproxy/stdout.log" ]] || return 0
    printf '; its last log line: `%s`' "$(tail -n1 "$WORK/idemproxy/stdout.log" | cut -c1-200)"
}
children_ms() { # file written by the times builtin -> CPU ms (user+sys) of the shell's reaped children
    awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] }; printf "%.0f", t * 1000 }' "$1"
}

measure() { # target scenario rep [attempt]
    local t=$1 s=$2 rep=$3 attempt=${4:-0} pid=${PID_UNDER_TEST[$t]}
    local logf="$WORK/wrk-$t-$s-$rep.log"
    [[ -n "${DEAD[$t]:-}" ]] && return 0
    if ! kill -0 "$pid" 2>/dev/null; then
        DEAD[$t]=1
        PROBLEMS+=("$t (pid $pid) was gone before $s run $rep; its remaining runs were skipped$(last_words "$t")")
        log "ERROR: $t (pid $pid) is not running any more: skipping its remaining runs"
        return 0
    fi
    local c0a c1a c0b c1b t0 t1 u0 u1 w0 w1
    # `times` must run in this shell (not in a $(...) subshell) to see wrk, a child of this shell
    times >"$WORK/times.before"
    u0=$(cpu_ticks "$UP_WORKER")
    t0=$(cpu_ticks "$pid")
    c0a=$(cpu_busy_ticks "$PROXY_CPU"); c1a=$(cpu_busy_ticks "$LOAD_CPU")
    if ! run_wrk "$t" "$s" "$DURATION" "$logf"; then
        PROBLEMS+=("$t/$s run $rep: wrk failed: $(tr '\n' ' ' <"$logf" | cut -c1-300)")
        log "ERROR: wrk failed for $t/$s run $rep: $(cat "$logf")"
        return 0
    fi
    t1=$(cpu_ticks "$pid")
    c0b=$(cpu_busy_ticks "$PROXY_CPU"); c1b=$(cpu_busy_ticks "$LOAD_CPU")
    u1=$(cpu_ticks "$UP_WORKER")
    times >"$WORK/times.after"
    w0=$(children_ms "$WORK/times.before"); w1=$(children_ms "$WORK/times.after")
    local line
    if ! line=$(grep '^BENCH_RESULT' "$logf"); then
        PROBLEMS+=("$t/$s run $rep: no result line from wrk")
        return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
        DEAD[$t]=1
        PROBLEMS+=("$t (pid $pid) died during $s run $rep; that run and the remaining ones were dropped$(last_words "$t")")
        log "ERROR: $t (pid $pid) died during $s run $rep"
        return 0
    fi
    local rps p50 p99 p999 reqs e_conn e_read e_write e_status e_timeout
    rps=$(sed -E 's/.* rps=([0-9.]+).*/\1/' <<<"$line")
    p50=$(sed -E 's/.* p50_us=([0-9]+).*/\1/' <<<"$line")
    p99=$(sed -E 's/.* p99_us=([0-9]+).*/\1/' <<<"$line")
    p999=$(sed -E 's/.* p999_us=([0-9]+).*/\1/' <<<"$line")
    reqs=$(sed -E 's/.* requests=([0-9]+).*/\1/' <<<"$line")
    e_conn=$(sed -E 's/.* err_connect=([0-9]+).*/\1/' <<<"$line")
    e_read=$(sed -E 's/.* err_read=([0-9]+).*/\1/' <<<"$line")
    e_write=$(sed -E 's/.* err_write=([0-9]+).*/\1/' <<<"$line")
    e_status=$(sed -E 's/.* err_status=([0-9]+).*/\1/' <<<"$line")
    e_timeout=$(sed -E 's/.* err_timeout=([0-9]+).*/\1/' <<<"$line")
    local cpu_us core0 core1 proc_pct others0 others1
    cpu_us=$(awk -v d="$((t1 - t0))" -v hz="$CLK_TCK" -v n="$reqs" 'BEGIN { printf "%.1f", (n > 0 ? d * 1e6 / hz / n : 0) }')
    core0=$(busy_pct "$c0a" "$c0b")
    core1=$(busy_pct "$c1a" "$c1b")
    # the process's CPU time over the wall time (the core's total ticks), in percent of one core
    proc_pct=$(awk -v d="$((t1 - t0))" -v a="$c0a" -v b="$c0b" 'BEGIN { split(a, x, " "); split(b, y, " "); printf "%.0f", ((y[2] - x[2]) > 0 ? 100 * d / (y[2] - x[2]) : 0) }')
    # what else ran on the proxy's core: its busy time less the process under test (direct: all of it)
    if [[ $t == direct ]]; then others0=$core0; else others0=$(( core0 > proc_pct ? core0 - proc_pct : 0 )); fi
    # what else ran on the load core: its busy time less wrk and the upstream worker
    others1=$(awk -v c="$core1" -v w="$((w1 - w0))" -v u="$((u1 - u0))" -v hz="$CLK_TCK" -v a="$c1a" -v b="$c1b" 'BEGIN {
        split(a, x, " "); split(b, y, " "); tot = y[2] - x[2]; if (tot <= 0) { print 0; exit }
        o = c - 100 * (w / 1000 * hz + u) / tot; printf "%.0f", (o > 0 ? o : 0) }')
    local errs=""
    if grep -q 'Socket errors' "$logf"; then errs+=" $(grep 'Socket errors' "$logf" | sed 's/^ *//')"; fi
    if grep -q 'Non-2xx' "$logf"; then errs+=" $(grep 'Non-2xx' "$logf" | sed 's/^ *//')"; fi
    if [[ -n "$errs" ]] || (( e_conn + e_read + e_write + e_status + e_timeout > 0 )); then
        PROBLEMS+=("$t/$s run $rep$( (( attempt > 0 )) && echo " (attempt $((attempt + 1)))"):$errs")
    fi
    local summary
    summary=$(printf '%-9s %-4s run %d: %9.0f req/s  p50 %6.3f ms  p99 %6.3f ms  p99.9 %6.3f ms  %6s CPU-us/req  proc %s%%  others core%d %s%% core%d %s%%%s' \
        "$t" "$s" "$rep" "$rps" "$(us2ms "$p50")" "$(us2ms "$p99")" "$(us2ms "$p999")" "$cpu_us" "$proc_pct" \
        "$PROXY_CPU" "$others0" "$LOAD_CPU" "$others1" "${errs:+  !!$errs}")
    local noisy=0
    (( others1 > 15 )) && noisy=1
    [[ $t != direct ]] && (( others0 > 15 )) && noisy=1
    if (( noisy && attempt < NOISE_RETRIES )); then
        log "$summary  -- other work on our cores: discarded, redoing in 5 s"
        NOISY_REDOS=$((NOISY_REDOS + 1))
        sleep 5
        measure "$t" "$s" "$rep" $((attempt + 1))
        return 0
    fi
    RESULTS["$t/$s"]+="$rps $p50 $p99 $p999 $cpu_us $proc_pct $core0 $core1 $others0 $others1"$'\n'
    log "$summary$( (( noisy )) && echo '  -- noisy, kept (out of redos)')"
}
us2ms() { awk -v u="$1" 'BEGIN { printf "%.3f", u / 1000 }'; }
median_col() { # column(1-based) <<< lines -> median
    awk -v c="$1" 'NF { print $c }' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit; if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

SCENARIOS=(get post)
log "warm-up: $WARMUP per target and scenario"
for t in "${TARGET_LIST[@]}"; do
    for s in "${SCENARIOS[@]}"; do
        run_wrk "$t" "$s" "$WARMUP" "$WORK/wrk-$t-$s-warmup.log" \
            || die "warm-up failed for $t/$s: $(cat "$WORK/wrk-$t-$s-warmup.log")"
    done
done
log "measuring: $REPEAT x $DURATION per target and scenario, interleaved"
for rep in $(seq 1 "$REPEAT"); do
    for t in "${TARGET_LIST[@]}"; do
        for s in "${SCENARIOS[@]}"; do
            measure "$t" "$s" "$rep"
        done
    done
done

# ---------------------------------------------------------------- report
declare -A MED
for t in "${TARGET_LIST[@]}"; do
    for s in "${SCENARIOS[@]}"; do
        for col in 1 2 3 4 5 6 7 8 9 10; do
            MED["$t/$s/$col"]=$(median_col "$col" <<<"${RESULTS[$t/$s]:-}")
        done
    done
done

scenario_name() { [[ $1 == get ]] && echo "GET 128 B" || echo "POST small JSON"; }
fmt_ms() { awk -v u="$1" 'BEGIN { printf "%.3f", u / 1000 }'; }

CPU_MODEL=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
JAVA_VERSION=$({ java -version 2>&1 || true; } | head -n1)
NGINX_VERSION=$({ "$NGINX" -v 2>&1 || true; } | head -n1)
WRK_VERSION=$({ "$WRK" -v 2>&1 || true; } | head -n1 | sed -E 's/ Copyright.*//')
IDP_VERSION=""
has_target idemproxy && IDP_VERSION=$({ java -jar "$JAR" --version 2>&1 || true; } | head -n1)
GIT_REV=$(git -C "$REPO_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)

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
    echo "- $JAVA_VERSION; $NGINX_VERSION; $WRK_VERSION"
    [[ -n "$IDP_VERSION" ]] && echo "- idemproxy: $IDP_VERSION (git $GIT_REV), JVM options \`$JVM_OPTS\`, \`server.ioThreads: 1\`${IDEMPROXY_NOTE:+; $IDEMPROXY_NOTE}"
    echo "- wrk: $THREADS thread(s), $CONNECTIONS connections, $DURATION per run after a $WARMUP warm-up; each cell is the median of $REPEAT runs"
    for t in "${TARGET_LIST[@]}"; do
        for s in "${SCENARIOS[@]}"; do
            n=$(grep -c . <<<"${RESULTS[$t/$s]:-}" || true)
            if [[ "$n" -lt "$REPEAT" ]]; then
                echo "- **$t / $s: only $n of $REPEAT runs measured** (see the errors below)"
            fi
        done
    done
    echo
    echo "| target | scenario | req/s | p50 ms | p99 ms | p99.9 ms | CPU µs/req | process CPU | core$PROXY_CPU busy | core$LOAD_CPU busy | others on core$PROXY_CPU | others on core$LOAD_CPU |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for t in "${TARGET_LIST[@]}"; do
        for s in "${SCENARIOS[@]}"; do
            if [[ -z "${MED[$t/$s/1]}" ]]; then
                printf '| %s | %s | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a |\n' "$t" "$(scenario_name "$s")"
                continue
            fi
            printf '| %s | %s | %.0f | %s | %s | %s | %.1f | %.0f%% | %.0f%% | %.0f%% | %.0f%% | %.0f%% |\n' "$t" "$(scenario_name "$s")" \
                "${MED[$t/$s/1]}" "$(fmt_ms "${MED[$t/$s/2]}")" "$(fmt_ms "${MED[$t/$s/3]}")" \
                "$(fmt_ms "${MED[$t/$s/4]}")" "${MED[$t/$s/5]}" "${MED[$t/$s/6]}" "${MED[$t/$s/7]}" "${MED[$t/$s/8]}" "${MED[$t/$s/9]}" "${MED[$t/$s/10]}"
        done
    done
    echo
    echo "CPU µs/req: user+system CPU time of the process under test (direct: the upstream nginx worker; nginx: the proxy's worker; idemproxy: the whole JVM, all threads) divided by the requests of the run. Process CPU: the same time over the run's wall time (100% = one core). Core busy: all processes on that core (from /proc/stat), ours and anyone else's. Others on core $PROXY_CPU: its busy time less the process under test — work that competed with the proxy (for direct, everything on that core). Others on core $LOAD_CPU: its busy time less wrk and the upstream worker. A run where other work took more than 15% of a core we use is discarded and redone, up to $NOISE_RETRIES times (${NOISY_REDOS} redos in this run); the last attempt is kept."
    if has_target nginx && has_target idemproxy; then
        echo
        echo "| scenario | idemproxy/nginx req/s | idemproxy − nginx p99 | idemproxy/nginx CPU per req | bar (≥ 0.9×, ≤ +0.5 ms) |"
        echo "|---|---:|---:|---:|---|"
        for s in "${SCENARIOS[@]}"; do
            if [[ -z "${MED[idemproxy/$s/1]}" || -z "${MED[nginx/$s/1]}" ]]; then
                echo "| $(scenario_name "$s") | n/a | n/a | n/a | not measured |"
                continue
            fi
            awk -v name="$(scenario_name "$s")" \
                -v ri="${MED[idemproxy/$s/1]}" -v rn="${MED[nginx/$s/1]}" \
                -v pi="${MED[idemproxy/$s/3]}" -v pn="${MED[nginx/$s/3]}" \
                -v ci="${MED[idemproxy/$s/5]}" -v cn="${MED[nginx/$s/5]}" \
                -v oi="${MED[idemproxy/$s/9]}" -v on="${MED[nginx/$s/9]}" \
                -v li="${MED[idemproxy/$s/10]}" -v ln="${MED[nginx/$s/10]}" 'BEGIN {
                    ratio = rn > 0 ? ri / rn : 0; diff = (pi - pn) / 1000; cr = cn > 0 ? ci / cn : 0
                    ok = (ratio >= 0.9 && diff <= 0.5) ? "met" : "**missed**"
                    m = oi; if (on > m) m = on; if (li > m) m = li; if (ln > m) m = ln
                    if (m > 15) ok = ok " (inconclusive: other work took up to " m "% of a core we use)"
                    printf "| %s | %.2f× | %+.3f ms | %.2f× | %s |\n", name, ratio, diff, cr, ok }'
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

cat "$OUT"
log "results written to $OUT; raw wrk output in $WORK"
