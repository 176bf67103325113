# Shared by bench/run.sh, bench/cpu.sh, bench/footprint.sh and bench/soak.sh (sourced, not run): logging, the EXIT
# trap that stops everything a script started, free loopback ports, per-process CPU time, and the
# nginx configuration of the upstream and of nginx as the reverse proxy compared with idemproxy.
# The sourcing script sets LOG_TAG before it logs and appends every pid it starts to STARTED_PIDS.

log() { printf '[%s %s] %s\n' "${LOG_TAG:-bench}" "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ---------------------------------------------------------------- cleanup
STARTED_PIDS=()
CLEANUP_HOOKS=()   # commands run after every started process has stopped (footprint.sh: its cgroup)
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
    local hook
    for hook in "${CLEANUP_HOOKS[@]}"; do eval "$hook" || true; done
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
wait_port() { # port timeout_s
    local deadline=$((SECONDS + $2))
    until port_in_use "$1"; do
        (( SECONDS < deadline )) || return 1
        sleep 0.1
    done
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
cpu_ticks() { # pid -> utime+stime of the whole process (all threads), in clock ticks
    local stat f
    stat=$(<"/proc/$1/stat") || return 1
    stat=${stat##*) }
    # after "comm)": state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15)
    read -r -a f <<<"$stat"
    echo $(( f[11] + f[12] ))
}

# ---------------------------------------------------------------- nginx
# The upstream's answers: 128-byte JSON for GET; every POST is answered with small JSON.
GET_BODY='{"id":"bench-00001","status":"ok","items":[1,2,3,4,5,6,7,8],"note":"a fixed 128-byte body for idemproxy GET pass-through bench"}'
POST_BODY='{"ok":true}'
# One worker; keep-alive without a request limit on both legs (a recycled connection would cost
# nginx a handshake the other proxies do not pay); every temp path under the instance's dir.
nginx_common() { # dir
    cat <<EOC
worker_processes 1;
daemon off;
master_process on;
pid $1/nginx.pid;
error_log $1/error.log warn;
worker_rlimit_nofile 65536;
events { worker_connections 4096; multi_accept on; }
EOC
}
nginx_http_common() { # dir
    cat <<EOC
    access_log off;
    server_tokens off;
    keepalive_timeout 75s;
    keepalive_requests 100000000;
    client_body_temp_path $1/client_body;
    proxy_temp_path $1/proxy;
    fastcgi_temp_path $1/fastcgi;
    uwsgi_temp_path $1/uwsgi;
    scgi_temp_path $1/scgi;
EOC
}
write_nginx_conf() { # dir http-body: DIR/nginx.conf, the common settings above and BODY inside http { }
    mkdir -p "$1"
    {
        nginx_common "$1"
        echo "http {"
        nginx_http_common "$1"
        printf '%s\n' "$2"
        echo "}"
    } >"$1/nginx.conf"
}
nginx_proxy_http() { # port upstream_port -> nginx as the reverse proxy, inside http { }
    cat <<EOC
    # a 16 KiB body stays in memory (the default buffer, 8 KiB on x86-64, spills it to a file)
    client_body_buffer_size 64k;
    upstream bench_upstream {
        server 127.0.0.1:$2;
        keepalive 64;
        keepalive_requests 100000000;
    }
    server {
        listen 127.0.0.1:$1 backlog=4096;
        location / {
            proxy_pass http://bench_upstream;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto \$scheme;
            proxy_set_header X-Forwarded-Host \$host;
        }
    }
EOC
}

# ---------------------------------------------------------------- tools
# Installs what is missing from Debian's packages, keeping their services (nginx on port 80,
# redis on 6379) from starting: a temporary policy-rc.d denies service starts.
ensure_tools() { # command...
    local missing=() t pkg
    for t in "$@"; do
        command -v "$t" >/dev/null 2>&1 || [[ -x /usr/sbin/$t ]] && continue
        case $t in redis-server) pkg=redis-server ;; *) pkg=$t ;; esac
        missing+=("$pkg")
    done
    [[ ${#missing[@]} -eq 0 ]] && return 0
    [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1 \
        || die "missing ${missing[*]}: install them (apt-get install ${missing[*]})"
    log "installing ${missing[*]} from Debian's packages"
    local policy=/usr/sbin/policy-rc.d created=0 rc=0
    [[ -e $policy ]] || { printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && created=1; }
    DEBIAN_FRONTEND=noninteractive apt-get update -qq || rc=$?
    (( rc == 0 )) && { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" || rc=$?; }
    (( created )) && rm -f "$policy"
    (( rc == 0 )) || die "apt-get could not install ${missing[*]}"
    export PATH=$PATH:/usr/sbin
}
start_upstream_on() { # dir port body core [mcp-body] -> UPSTREAM_WORKER: an nginx worker on CORE answering every path
    # with BODY; with MCP-BODY, the paths under /mcp with that (a JSON-RPC response) instead
    local mcp=""
    [[ -n ${5:-} ]] && mcp="location /mcp { return 200 '$5'; }"
    write_nginx_conf "$1" "    server { listen 127.0.0.1:$2 backlog=4096; default_type application/json;
        $mcp location / { return 200 '$3'; } }"
    taskset -c "$4" nginx -p "$1/" -c "$1/nginx.conf" -e "$1/error.log" &
    local master=$!
    STARTED_PIDS+=("$master")
    wait_port "$2" 10 || die "the upstream nginx is not listening (see $1/error.log)"
    UPSTREAM_WORKER=$(nginx_worker_pid "$master") || die "the upstream nginx has no worker"
}

# ---------------------------------------------------------------- nginx as the reverse proxy
start_proxy_nginx() { # dir port upstream_port -> NGINX_WORKER: nginx as the reverse proxy on core 0, once it listens
    write_nginx_conf "$1" "$(nginx_proxy_http "$2" "$3")"
    taskset -c 0 nginx -p "$1/" -c "$1/nginx.conf" -e "$1/error.log" &
    local master=$!
    STARTED_PIDS+=("$master")
    wait_port "$2" 10 || die "nginx is not listening (see $1/error.log)"
    NGINX_WORKER=$(nginx_worker_pid "$master") || die "nginx has no worker"
}
