#!/usr/bin/env bash
# Where a forwarded GET waits inside idemproxy's io_uring event loop at 50 connections: the
# io_uring tracepoints of 2 s in the middle of a GET run, each request followed from its arrival
# on the client socket to its answer's submission (bench/experiments/uring-chain.py explains the
# segments). perf's own cost slows the run by a quarter or more, so the figures are the shape of
# a request's path, not its speed. See docs/benchmarks.md, "Where a request waits".
#
#   bench/experiments/uring-chain.sh [JAR] [ROUNDS]      (KEEP_TRACE=1 keeps perf's text output)
#
# Placement as in bench/run.sh: idemproxy (memory store, one io thread, io_uring) on core 0, wrk
# and the upstream nginx on core 1. Needs root or perf_event_paranoid <= -1 for the tracepoints,
# and perf (Debian: apt-get install linux-perf). Loopback only; every load bounded.
set -euo pipefail
cd "$(dirname "$0")/../.."
JAR=${1:-proxy-app/target/idemproxy.jar}
ROUNDS=${2:-2}
source bench/lib.sh
experiment_setup uring-chain nginx wrk taskset perf java
JAR=$(jar_path "$JAR")
require_tracepoint io_uring/io_uring_task_add

UP=$(pick_port)
PORT=$(pick_port)
ADMIN=$(pick_port)
start_upstream "$WORK/upstream" "$UP" "$GET_BODY"
start_pass_idemproxy "$WORK/idemproxy" "$JAR" "$PORT" "$ADMIN" "$UP"
grep -q "io_uring transport" "$WORK/idemproxy/stdout.log" || die "idemproxy did not start on io_uring"

log "warm-up: 60 s of GETs"
get_load "$PORT" 60 "$WORK/warmup.log"
for round in $(seq "$ROUNDS"); do
    get_load "$PORT" 10 "$WORK/wrk-$round.log" &
    wrk_pid=$!
    sleep 4
    perf record -q -a -o "$WORK/perf-$round.data" \
        -e io_uring:io_uring_task_add,io_uring:io_uring_submit_req,io_uring:io_uring_complete -- sleep 2 2>/dev/null
    wait "$wrk_pid"
    perf script -i "$WORK/perf-$round.data" -F comm,tid,cpu,time,event,trace >"$WORK/trace-$round.txt" 2>/dev/null
    echo "round $round: wrk $(grep -o 'rps=[0-9.]* p50_us=[0-9]* p99_us=[0-9]*' "$WORK/wrk-$round.log") (the whole 10 s run, perf's 2 s included)"
    python3 bench/experiments/uring-chain.py "$WORK/trace-$round.txt"
    rm -f "$WORK/perf-$round.data"
    [[ ${KEEP_TRACE:-0} == 1 ]] || rm -f "$WORK/trace-$round.txt"   # 100-150 MB each
done
