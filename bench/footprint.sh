#!/usr/bin/env bash
# What a sidecar costs in every pod: time from exec to ready, RSS idle, and RSS under 50
# connections of protected POSTs (a new Idempotency-Key each, embedded store), for idemproxy with
# the shipped JVM profile (config/jvm.options), next to nginx passing the same POSTs through.
# See docs/deployment.md (Footprint).
#
#   bench/footprint.sh [--jar PATH] [--starts 5] [--load 20s] [--pod-memory 256m] [--out FILE]
#                      [--plain] [--java PATH] [--cds] [--jvm-arg ARG]...
#
# --pod-memory emulates a container memory limit (-XX:MaxRAM), which the profile sizes the heap
# from; "host" uses the machine's memory. --plain starts `java -jar` without the profile (the
# JVM's defaults); --java another runtime (e.g. one linked as the Dockerfile's jre stage does);
# --cds makes a class-data archive first, as the image's build does (a training run of
# `idemproxy demo` with the same runtime and options), and starts with it (-Xshare:on);
# --jvm-arg adds a JVM option (repeatable). Everything runs on loopback on free ports, privately
# (bench/out/footprint/), and is stopped on exit; every load is bounded by --load.
set -euo pipefail
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
CMDLINE="bench/footprint.sh${*:+ $*}"
JAR=$REPO_ROOT/proxy-app/target/idemproxy.jar
STARTS=5
LOAD=20s
POD_MEMORY=256m
OUT=$REPO_ROOT/bench/out/footprint.md
PLAIN=false
JAVA=java
CDS=false
EXTRA=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --jar) JAR=$2; shift 2 ;;
        --starts) STARTS=$2; shift 2 ;;
        --load) LOAD=$2; shift 2 ;;
        --pod-memory) POD_MEMORY=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --plain) PLAIN=true; shift ;;
        --java) JAVA=$2; shift 2 ;;
        --cds) CDS=true; shift ;;
        --jvm-arg) EXTRA+=("$2"); shift 2 ;;
        -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
    esac
done
[[ $STARTS =~ ^[1-9][0-9]*$ && $LOAD =~ ^[0-9]+s$ ]] || { echo "--starts takes a count, --load seconds (20s)" >&2; exit 2; }
LOG_TAG=footprint
# shellcheck source=bench/lib.sh
source "$SCRIPT_DIR/lib.sh"
ensure_tools nginx wrk curl
[[ -f $JAR ]] || die "no jar at $JAR (mvn -q package -DskipTests builds it)"
WORK=$REPO_ROOT/bench/out/footprint
rm -rf "$WORK"; mkdir -p "$WORK"
cp "$JAR" "$WORK/idemproxy.jar"
BODY='{"userId":42,"op":"create_ticket","title":"printer on floor 3 is out of toner!!!!!"}'

UP_PORT=$(pick_port)
start_upstream_on "$WORK/upstream" "$UP_PORT" '{"ok":true,"id":"t-000001"}' 1
PORT=$(pick_port); ADMIN=$(pick_port)
cat >"$WORK/idemproxy.yaml" <<EOC
listen: 127.0.0.1:$PORT
admin: { listen: 127.0.0.1:$ADMIN }
store: { type: embedded, embedded: { path: "$WORK/data" } }
routes:
  - name: tickets
    match: { pathPrefix: /tickets }
    upstream: http://127.0.0.1:$UP_PORT
    idempotency: { enabled: true, methods: [POST], ttl: 2m }
    log: { passThrough: false }
EOC
if $PLAIN; then JVM=(); PROFILE="no options (java -jar)"; else JVM=(@"$REPO_ROOT/config/jvm.options"); PROFILE=@config/jvm.options; fi
[[ $POD_MEMORY == host ]] || JVM+=("-XX:MaxRAM=$POD_MEMORY")
JVM+=(${EXTRA[@]+"${EXTRA[@]}"})
PROFILE+="${EXTRA[*]:+ ${EXTRA[*]}}$([[ $POD_MEMORY == host ]] || echo " -XX:MaxRAM=$POD_MEMORY (a $POD_MEMORY pod)")"
if $CDS; then
    log "class-data archive: a training run of idemproxy demo"
    (cd "$WORK" && "$JAVA" -XX:ArchiveClassesAtExit="$WORK/idemproxy.jsa" "${JVM[@]}" -jar "$WORK/idemproxy.jar" demo) \
        >"$WORK/cds-training.log" 2>&1 || die "the training run failed: $(tail -n 5 "$WORK/cds-training.log")"
    JVM+=("-XX:SharedArchiveFile=$WORK/idemproxy.jsa" -Xshare:on)
    PROFILE+=" with a class-data archive (-Xshare:on)"
fi
rss_of() { awk '/^VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }
now_ms() { date +%s%3N; }

start_proxy() { # -> PID, READY_MS
    local t0 log=$WORK/stdout.log
    t0=$(now_ms)
    (cd "$WORK" && exec taskset -c 0 "$JAVA" "${JVM[@]}" -jar "$WORK/idemproxy.jar" run --config "$WORK/idemproxy.yaml") >"$log" 2>&1 &
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
log "ready time: $STARTS starts (load average $LOAD_AT_START)"
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

# Under load: 50 connections of protected POSTs, a new key each; the peak of 1 s samples.
peak_under_load() { # pid url script -> PEAK RSS MiB, wrk's BENCH_RESULT line in RESULT
    local pid=$1 url=$2 script=$3 peak=0 r
    taskset -c 1 wrk -t1 -c50 -d"$LOAD" --timeout 5s -s "$SCRIPT_DIR/wrk/$script" "$url" -- "fp$RANDOM" "$BODY" \
        >"$WORK/wrk.log" 2>&1 &
    local wrk=$!
    while kill -0 "$wrk" 2>/dev/null; do
        r=$(rss_of "$pid"); (( r > peak )) && peak=$r
        sleep 1
    done
    wait "$wrk" || true
    RESULT=$(grep '^BENCH_RESULT' "$WORK/wrk.log" || true)
    PEAK=$peak
}
peak_under_load "$PID" "http://127.0.0.1:$PORT/tickets" post-new-key.lua
LOAD_RSS=$PEAK; LOAD_RESULT=$RESULT
log "under load: peak RSS $LOAD_RSS MiB; $LOAD_RESULT"
stop_proxy

NGINX_PORT=$(pick_port)
start_proxy_nginx "$WORK/nginx" "$NGINX_PORT" "$UP_PORT"
NGINX_IDLE=$(rss_of "$NGINX_WORKER")
peak_under_load "$NGINX_WORKER" "http://127.0.0.1:$NGINX_PORT/tickets" post-body.lua
NGINX_LOAD=$PEAK

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2 ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2)}'; }
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<" $1"; }
mkdir -p "$(dirname "$OUT")"
{
    echo "# Footprint ($(date -u +%Y-%m-%dT%H:%MZ))"
    echo
    echo "\`$CMDLINE\`; $(nproc) cores, load average $LOAD_AT_START at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end; JVM: $PROFILE; java $("$JAVA" -version 2>&1 | sed -n 's/.*version "\(.*\)".*/\1/p' | head -n1)."
    echo
    echo "| | ready (median of $STARTS, min–max) | RSS idle | RSS under load (peak) | req/s under load |"
    echo "|---|---:|---:|---:|---:|"
    echo "| idemproxy, protected POSTs, embedded store | $(median "${READY[@]}") ms ($(printf '%s\n' "${READY[@]}" | sort -n | head -n1)–$(printf '%s\n' "${READY[@]}" | sort -n | tail -n1)) | $IDLE_RSS MiB | $LOAD_RSS MiB | $(field "$LOAD_RESULT" rps) |"
    echo "| nginx worker, the same POSTs passed through | — | $NGINX_IDLE MiB | $NGINX_LOAD MiB | $(field "$RESULT" rps) |"
} >"$OUT"
cat "$OUT"
