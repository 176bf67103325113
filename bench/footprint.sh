#!/usr/bin/env bash
# What a sidecar costs in every pod, measured inside a real memory limit (a cgroup v1 memory group,
# as a container runtime makes one): the time from exec to /readyz 200, the classes loaded by then,
# RSS idle, and RSS under 50 connections of protected POSTs (a new Idempotency-Key each, embedded
# store), for idemproxy with the shipped JVM profile (config/jvm.options), next to nginx passing
# the same POSTs through. See docs/deployment.md (Footprint).
#
#   bench/footprint.sh [--limit 256m] [--options FILE|none] [--jar PATH] [--java PATH] [--cds|--aot]
#                      [--jvm-arg ARG]... [--store-extra 'YAML'] [--starts 5] [--load 20s] [--no-nginx]
#                      [--out FILE]
#
# --limit: the memory group's limit (memory.limit_in_bytes; k, m, g suffixes), "none" for no group.
#   The JVM sizes its heap from it as in a container. Needs root and cgroup v1's memory controller
#   at /sys/fs/cgroup/memory (the group is removed on exit).
# --options: the JVM argument file (default config/jvm.options; config/jvm-small.options is the
#   small profile; "none": plain `java -jar`, the JVM's defaults). --java: another runtime.
# --cds: an AppCDS archive made first by a training run of `idemproxy demo` with the same runtime
#   and options (outside the group, as an image build does), then every start maps it (-Xshare:on).
# --aot: the same with an AOT cache (Java 25+: -XX:AOTCacheOutput, then -XX:AOTCache), as the image.
# --store-extra: a line added under the config's store: (e.g. 'nearCache: { maxEntries: 1000 }').
# --jvm-arg: one more JVM option (repeatable). Environment variables (MALLOC_ARENA_MAX=2, as the
#   image sets it) pass through.
# Figures: ready = exec -> /readyz 200, median of --starts starts (with min-max); classes = lines
# of -Xlog:class+load by /readyz 200, from one more start; idle RSS 5 s after the last start; peak
# RSS = the process's VmHWM (its highest RSS, start included) after the load; the group's own peak
# (memory.max_usage_in_bytes) counts the page cache too; CPU = the proxy process's own CPU time under
# the load (all its threads, GC and JIT included) per request. The proxy runs on core 0, wrk on core 1;
# everything on loopback on free ports, privately (bench/out/footprint/), stopped on exit; the load
# is bounded by --load.
set -euo pipefail
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
CMDLINE="bench/footprint.sh${*:+ $*}"
JAR=$REPO_ROOT/proxy-app/target/idemproxy.jar
STARTS=5
LOAD=20s
LIMIT=256m
OPTIONS=$REPO_ROOT/config/jvm.options
OUT=$REPO_ROOT/bench/out/footprint.md
JAVA=java
ARCHIVE=none
NGINX=true
STORE_EXTRA=""
EXTRA=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --limit) LIMIT=$2; shift 2 ;;
        --pod-memory) LIMIT=${2/#host/none}; shift 2 ;;   # the old name (docs/benchmarks.md)
        --options) OPTIONS=$2; shift 2 ;;
        --plain) OPTIONS=none; shift ;;
        --jar) JAR=$2; shift 2 ;;
        --java) JAVA=$2; shift 2 ;;
        --cds) ARCHIVE=cds; shift ;;
        --aot) ARCHIVE=aot; shift ;;
        --jvm-arg) EXTRA+=("$2"); shift 2 ;;
        --store-extra) STORE_EXTRA=$2; shift 2 ;;
        --starts) STARTS=$2; shift 2 ;;
        --load) LOAD=$2; shift 2 ;;
        --no-nginx) NGINX=false; shift ;;
        --out) OUT=$2; shift 2 ;;
        -h|--help) sed -n '2,29p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
    esac
done
[[ $STARTS =~ ^[1-9][0-9]*$ && $LOAD =~ ^[0-9]+s$ ]] || { echo "--starts takes a count, --load seconds (20s)" >&2; exit 2; }
[[ $LIMIT == none || $LIMIT =~ ^[0-9]+[kKmMgG]?$ ]] || { echo "--limit takes a size (256m) or none" >&2; exit 2; }
LOG_TAG=footprint
# shellcheck source=bench/lib.sh
source "$SCRIPT_DIR/lib.sh"
ensure_tools nginx wrk curl
[[ -f $JAR ]] || die "no jar at $JAR (mvn -q package -DskipTests builds it)"
[[ $OPTIONS == none || -f $OPTIONS ]] || die "no JVM options file at $OPTIONS"
[[ $OPTIONS == none ]] || OPTIONS=$(realpath "$OPTIONS")
WORK=$REPO_ROOT/bench/out/footprint
rm -rf "$WORK"; mkdir -p "$WORK"
cp "$JAR" "$WORK/idemproxy.jar"
BODY='{"userId":42,"op":"create_ticket","title":"printer on floor 3 is out of toner!!!!!"}'

# ---------------------------------------------------------------- the memory group
CGROUP=""
if [[ $LIMIT != none ]]; then
    CG_ROOT=/sys/fs/cgroup/memory
    [[ -w $CG_ROOT && -f $CG_ROOT/memory.limit_in_bytes ]] \
        || die "no writable cgroup v1 memory controller at $CG_ROOT (run as root, or --limit none)"
    CGROUP=$CG_ROOT/idemproxy-footprint-$$
    mkdir "$CGROUP"
    CLEANUP_HOOKS+=("rmdir '$CGROUP' 2>/dev/null")
    echo "$LIMIT" >"$CGROUP/memory.limit_in_bytes"
    # no swap on top of the limit where the kernel accounts it (a pod has none)
    [[ -f $CGROUP/memory.memsw.limit_in_bytes ]] && echo "$LIMIT" >"$CGROUP/memory.memsw.limit_in_bytes"
fi
in_group() { # command...: runs it (exec) inside the memory group, if any
    [[ -z $CGROUP ]] || echo "$BASHPID" >"$CGROUP/cgroup.procs"
    exec "$@"
}

UP_PORT=$(pick_port)
start_upstream_on "$WORK/upstream" "$UP_PORT" '{"ok":true,"id":"t-000001"}' 1
PORT=$(pick_port); ADMIN=$(pick_port)
cat >"$WORK/idemproxy.yaml" <<EOC
listen: 127.0.0.1:$PORT
admin: { listen: 127.0.0.1:$ADMIN }
store:
  type: embedded
  embedded: { path: "$WORK/data" }
  $STORE_EXTRA
routes:
  - name: tickets
    match: { pathPrefix: /tickets }
    upstream: http://127.0.0.1:$UP_PORT
    idempotency: { enabled: true, methods: [POST], ttl: 2m }
    log: { passThrough: false }
EOC
if [[ $OPTIONS == none ]]; then JVM=(); PROFILE="no options (java -jar)"
else JVM=(@"$OPTIONS"); PROFILE=@${OPTIONS#"$REPO_ROOT"/}; fi
JVM+=(${EXTRA[@]+"${EXTRA[@]}"})
PROFILE+="${EXTRA[*]:+ ${EXTRA[*]}}${STORE_EXTRA:+; store: $STORE_EXTRA}"
case $ARCHIVE in
    cds)
        log "class-data archive: a training run of idemproxy demo"
        (cd "$WORK" && "$JAVA" -XX:ArchiveClassesAtExit="$WORK/idemproxy.jsa" "${JVM[@]}" -jar "$WORK/idemproxy.jar" demo) \
            >"$WORK/training.log" 2>&1 || die "the training run failed: $(tail -n 5 "$WORK/training.log")"
        JVM+=("-XX:SharedArchiveFile=$WORK/idemproxy.jsa" -Xshare:on)
        PROFILE+=" with an AppCDS archive (-Xshare:on)" ;;
    aot)
        log "AOT cache: a training run of idemproxy demo"
        (cd "$WORK" && "$JAVA" -XX:AOTCacheOutput="$WORK/idemproxy.aot" "${JVM[@]}" -jar "$WORK/idemproxy.jar" demo) \
            >"$WORK/training.log" 2>&1 || die "the training run failed: $(tail -n 5 "$WORK/training.log")"
        JVM+=("-XX:AOTCache=$WORK/idemproxy.aot" -XX:AOTMode=on)
        PROFILE+=" with an AOT cache (-XX:AOTMode=on)" ;;
esac
[[ -n ${MALLOC_ARENA_MAX:-} ]] && PROFILE+="; MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX"
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<" $1"; }
rss_of() { awk '/^VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }
hwm_of() { awk '/^VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }
now_ms() { date +%s%3N; }

start_proxy() { # [jvm option...] -> PID, READY_MS
    local t0 log=$WORK/stdout.log
    t0=$(now_ms)
    (cd "$WORK" && in_group taskset -c 0 "$JAVA" "${JVM[@]}" "$@" -jar "$WORK/idemproxy.jar" run --config "$WORK/idemproxy.yaml") >"$log" 2>&1 &
    PID=$!
    STARTED_PIDS+=("$PID")
    until curl -fsS -o /dev/null "http://127.0.0.1:$ADMIN/readyz" 2>/dev/null; do
        kill -0 "$PID" 2>/dev/null || die "idemproxy exited at start: $(tail -n 5 "$log")"
        (( $(now_ms) - t0 < 30000 )) || die "idemproxy not ready after 30 s"
        sleep 0.01
    done
    READY_MS=$(( $(now_ms) - t0 ))
}
stop_proxy() {
    kill -TERM "$PID"; wait "$PID" 2>/dev/null || true
}

LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
log "classes loaded by /readyz 200: one start with -Xlog:class+load (load average $LOAD_AT_START)"
start_proxy "-Xlog:class+load:file=$WORK/classes.log"
CLASSES=$(grep -c . "$WORK/classes.log" || true)
stop_proxy
log "$CLASSES classes"
log "ready time: $STARTS starts"
READY=()
for i in $(seq 1 "$STARTS"); do
    start_proxy
    READY+=("$READY_MS")
    log "start $i: ready in $READY_MS ms"
    if (( i < STARTS )); then stop_proxy; fi
done
sleep 5  # the idle RSS is read after 5 s with nothing to do
IDLE_RSS=$(rss_of "$PID")
log "idle RSS $IDLE_RSS MiB"

# Under load: 50 connections of protected POSTs, a new key each. SAMPLED is the highest of
# half-second samples; the peak is the kernel's high-water mark of the process's RSS.
peak_under_load() { # pid url script -> SAMPLED RSS MiB, wrk's BENCH_RESULT line in RESULT
    local pid=$1 url=$2 script=$3 peak=0 r
    taskset -c 1 wrk -t1 -c50 -d"$LOAD" --timeout 5s -s "$SCRIPT_DIR/wrk/$script" "$url" -- "fp$RANDOM" "$BODY" \
        >"$WORK/wrk.log" 2>&1 &
    local wrk=$!
    while kill -0 "$wrk" 2>/dev/null; do
        r=$(rss_of "$pid"); (( r > peak )) && peak=$r
        sleep 0.5
    done
    wait "$wrk" || true
    RESULT=$(grep '^BENCH_RESULT' "$WORK/wrk.log" || true)
    SAMPLED=$peak
}
[[ -n $CGROUP ]] && echo 0 >"$CGROUP/memory.max_usage_in_bytes"
TICKS0=$(cpu_ticks "$PID")
peak_under_load "$PID" "http://127.0.0.1:$PORT/tickets" post-new-key.lua
LOAD_RSS=$(hwm_of "$PID"); LOAD_SAMPLED=$SAMPLED; LOAD_RESULT=$RESULT
REQUESTS=$(field "$LOAD_RESULT" requests)
CPU_US=$(( ($(cpu_ticks "$PID") - TICKS0) * 1000000 / $(getconf CLK_TCK) / ${REQUESTS:-1} ))
GROUP_NOTE=""
if [[ -n $CGROUP ]]; then
    GROUP_NOTE="; the group's peak (page cache included) $(( $(cat "$CGROUP/memory.max_usage_in_bytes") / 1048576 )) MiB, limit hit $(cat "$CGROUP/memory.failcnt") times"
fi
log "under load: peak RSS $LOAD_RSS MiB (highest sample $LOAD_SAMPLED MiB), the proxy's CPU $CPU_US µs/req$GROUP_NOTE; $LOAD_RESULT"
kill -0 "$PID" 2>/dev/null || die "idemproxy died under load (killed by the limit?): $(tail -n 5 "$WORK/stdout.log")"
stop_proxy

NGINX_IDLE=—; NGINX_LOAD=—; NGINX_RPS=—
if $NGINX; then
    NGINX_PORT=$(pick_port)
    start_proxy_nginx "$WORK/nginx" "$NGINX_PORT" "$UP_PORT"
    NGINX_IDLE="$(rss_of "$NGINX_WORKER") MiB"
    peak_under_load "$NGINX_WORKER" "http://127.0.0.1:$NGINX_PORT/tickets" post-body.lua
    NGINX_LOAD="$(hwm_of "$NGINX_WORKER") MiB"
fi

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2 ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2)}'; }
$NGINX && NGINX_RPS=$(field "$RESULT" rps)
mkdir -p "$(dirname "$OUT")"
{
    echo "# Footprint ($(date -u +%Y-%m-%dT%H:%MZ))"
    echo
    echo "\`$CMDLINE\`; memory limit $LIMIT; $(nproc) cores, load average $LOAD_AT_START at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end; JVM: $PROFILE; java $("$JAVA" -version 2>&1 | sed -n 's/.*version "\(.*\)".*/\1/p' | head -n1)$GROUP_NOTE."
    echo
    echo "| | ready (median of $STARTS, min–max) | classes at ready | RSS idle | RSS peak (highest sample under load) | req/s under load | CPU µs/req (the process) |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    echo "| idemproxy, protected POSTs, embedded store | $(median "${READY[@]}") ms ($(printf '%s\n' "${READY[@]}" | sort -n | head -n1)–$(printf '%s\n' "${READY[@]}" | sort -n | tail -n1)) | $CLASSES | $IDLE_RSS MiB | $LOAD_RSS MiB ($LOAD_SAMPLED) | $(field "$LOAD_RESULT" rps) | $CPU_US |"
    echo "| nginx worker, the same POSTs passed through | — | — | $NGINX_IDLE | $NGINX_LOAD | $NGINX_RPS | — |"
} >"$OUT"
cat "$OUT"
echo "FOOTPRINT ready_ms=$(median "${READY[@]}") classes=$CLASSES idle_mib=$IDLE_RSS peak_mib=$LOAD_RSS sampled_mib=$LOAD_SAMPLED rps=$(field "$LOAD_RESULT" rps) cpu_us=$CPU_US limit=$LIMIT load=\"$LOAD_AT_START\""
