# Shared by bench/run.sh and bench/soak.sh (sourced, not run): logging, the EXIT trap that stops
# everything a script started, free loopback ports, and per-process CPU time.
# The sourcing script sets LOG_TAG before it logs and appends every pid it starts to STARTED_PIDS.

log() { printf '[%s %s] %s\n' "${LOG_TAG:-bench}" "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ---------------------------------------------------------------- cleanup
STARTED_PIDS=()
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    local pid
    for pid in "${STARTED_PIDS[@]}"; do
        kill -CONT "$pid" 2>/dev/null || true   # a stopped process (run.sh --pause-others) keeps a TERM pending
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${STARTED_PIDS[@]}"; do
        for _ in $(seq 1 100); do
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

# ---------------------------------------------------------------- ports (127.0.0.1 only)
# Free ports are drawn from 20000-31999, outside the kernel's ephemeral range, and probed first.
read -r EPH_LO EPH_HI < /proc/sys/net/ipv4/ip_local_port_range
USED_PORTS=" "
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() {
    local p
    for _ in $(seq 1 200); do
        p=$((20000 + RANDOM % 12000))
        if (( p >= EPH_LO && p <= EPH_HI )); then continue; fi
        [[ "$USED_PORTS" == *" $p "* ]] && continue
        if command -v ss >/dev/null 2>&1 && ss -Htan "sport = :$p" 2>/dev/null | grep -q .; then continue; fi
        port_in_use "$p" && continue
        USED_PORTS+="$p "
        echo "$p"
        return 0
    done
    die "no free port found"
}

# ---------------------------------------------------------------- processes
cpu_ticks() { # pid -> utime+stime of the whole process (all threads), in clock ticks
    local stat f
    stat=$(<"/proc/$1/stat") || return 1
    stat=${stat##*) }
    # after "comm)": state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15)
    read -r -a f <<<"$stat"
    echo $(( f[11] + f[12] ))
}
