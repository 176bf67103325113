#!/usr/bin/env bash
# Where a GET's time goes between the sockets, nginx and idemproxy measured the same way: the
# kernel's tcp:tcp_probe tracepoint (every segment carrying data, as its socket receives it) and
# wrk's read(2) calls for 2 s in the middle of a 10 s GET run, each request followed from its
# arrival on the proxy's client socket to its answer on wrk's socket and to wrk's read of it
# (bench/experiments/socket-chain.py explains the spans).
# Rounds alternate nginx and idemproxy. See docs/benchmarks.md, "Between the sockets".
#
#   bench/experiments/socket-chain.sh [JAR] [ROUNDS]      (KEEP_TRACE=1 keeps perf's text output)
#
# Placement and configs as in bench/run.sh: both proxies on core 0 (nginx's config from
# bench/lib.sh; idemproxy with the memory store, one io thread, io_uring), wrk -t1 -c50 and the
# upstream nginx on core 1; 60 s of warm-up for idemproxy, 5 s for nginx. Needs root or
# perf_event_paranoid <= -1, and perf (Debian: apt-get install linux-perf). Loopback only; every
# load bounded.
set -euo pipefail
cd "$(dirname "$0")/../.."
JAR=${1:-proxy-app/target/idemproxy.jar}
ROUNDS=${2:-3}
source bench/lib.sh
experiment_setup socket-chain nginx wrk taskset perf java
JAR=$(jar_path "$JAR")
require_tracepoint tcp/tcp_probe

UP=$(pick_port)
NGP=$(pick_port)
IDP=$(pick_port)
ADMIN=$(pick_port)
start_upstream "$WORK/upstream" "$UP" "$GET_BODY"
start_proxy_nginx "$WORK/nginx" "$NGP" "$UP"
start_pass_idemproxy "$WORK/idemproxy" "$JAR" "$IDP" "$ADMIN" "$UP"

log "warm-up: 60 s of GETs through idemproxy, 5 s through nginx"
get_load "$IDP" 60 "$WORK/warmup-idemproxy.log"
get_load "$NGP" 5 "$WORK/warmup-nginx.log"
for round in $(seq "$ROUNDS"); do
    for target in nginx idemproxy; do
        port=$NGP
        [[ $target == idemproxy ]] && port=$IDP
        get_load "$port" 10 "$WORK/wrk-$target-$round.log" &
        load_pid=$!
        sleep 3
        wrk_pid=$(pgrep -n -x wrk) || die "wrk is not running"
        # wrk's connections: descriptor -> socket inode, and the kernel's table to find their ports
        for fd in "/proc/$wrk_pid/fd/"*; do
            inode=$(readlink "$fd" | sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p')
            [[ -n $inode ]] && echo "${fd##*/} $inode"
        done >"$WORK/fds-$target-$round.txt"
        cat /proc/net/tcp >"$WORK/net-tcp-$target-$round.txt"
        readers=$(ls "/proc/$wrk_pid/task" | sed 's/^/common_pid == /' | paste -sd '|' | sed 's/|/ || /g')
        sleep 1
        perf record -q -a -o "$WORK/perf.data" -e tcp:tcp_probe --filter 'data_len > 0' \
            -e syscalls:sys_enter_read --filter "$readers" -e syscalls:sys_exit_read --filter "$readers" \
            -- sleep 2 2>/dev/null
        wait "$load_pid"
        perf script -i "$WORK/perf.data" -F tid,time,event,trace >"$WORK/trace-$target-$round.txt" 2>/dev/null
        rm -f "$WORK/perf.data"
        echo "round $round, $target: wrk $(grep -o 'rps=[0-9.]* p50_us=[0-9]* p99_us=[0-9]*' "$WORK/wrk-$target-$round.log") (the whole 10 s run)"
        python3 bench/experiments/socket-chain.py "$WORK/trace-$target-$round.txt" "$port" "$UP" \
            "$WORK/fds-$target-$round.txt" "$WORK/net-tcp-$target-$round.txt"
        [[ ${KEEP_TRACE:-0} == 1 ]] || rm -f "$WORK/trace-$target-$round.txt"   # about 100 MB each
    done
done
