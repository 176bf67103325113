#!/usr/bin/python3
"""CPU per protected call: plain HTTP to the proxy vs HTTPS_PROXY interception.

Starts nginx as a TLS upstream on loopback (a certificate made here with openssl) and idemproxy
(memory store, one io thread, forwardProxy) with two protected routes to that upstream, both
over TLS: `plain` (the client sends plain HTTP to the proxy, base-URL style) and `intercepted`
(the client CONNECTs and speaks TLS to the proxy, HTTPS_PROXY style). A client on another core
sends POSTs, each with a key of its own, in three modes:

  plain        HTTP/1.1 keep-alive to the listener
  keepalive    one CONNECT, then every call inside its TLS session
  resumed      a new CONNECT per call, its TLS session resumed (TLS 1.3 session ticket)

and the proxy's CPU time (utime + stime of the JVM from /proc) over each measured batch gives
CPU microseconds per call. Rounds interleave the modes after a warm-up of each; the medians are
printed. Usage:

  bench/https-proxy-cpu.py [--jar proxy-app/target/idemproxy.jar] [--calls 20000] [--resumed-calls 2000]
                           [--rounds 3] [--warmup-seconds 60]
"""
import argparse
import http.client
import os
import shutil
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time

TICK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, what, seconds=60):
    end = time.time() + seconds
    while time.time() < end:
        if proc.poll() is not None:
            sys.exit(f"{what} exited at start")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    sys.exit(f"{what} not listening on {port} after {seconds} s")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


def post(conn, path, key):
    conn.request("POST", path, body=b'{"amount":100}', headers={"Content-Type": "application/json", "Idempotency-Key": key})
    r = conn.getresponse()
    r.read()
    if r.status != 200:
        sys.exit(f"{path}: status {r.status}")


class Modes:
    def __init__(self, proxy_port, upstream_port, ca):
        self.proxy_port = proxy_port
        self.upstream_port = upstream_port
        self.ctx = ssl.create_default_context(cafile=ca)
        self.session = None
        self.n = 0
        self.reused = 0

    def key(self):
        self.n += 1
        return f"cpu-{os.getpid()}-{self.n}"

    def plain(self, calls):
        # A new connection per batch: one left idle while the other modes ran may have been closed.
        c = http.client.HTTPConnection("127.0.0.1", self.proxy_port)
        for _ in range(calls):
            post(c, "/plain/charges", self.key())
        c.close()

    def keepalive(self, calls):
        c = http.client.HTTPSConnection("127.0.0.1", self.proxy_port, context=self.ctx)
        c.set_tunnel("localhost", self.upstream_port)
        for _ in range(calls):
            post(c, "/i/charges", self.key())
        c.close()

    def resumed(self, calls):
        for _ in range(calls):
            sock = socket.create_connection(("127.0.0.1", self.proxy_port))
            sock.sendall(f"CONNECT localhost:{self.upstream_port} HTTP/1.1\r\nHost: localhost:{self.upstream_port}\r\n\r\n".encode())
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                head += sock.recv(1)
            tls = self.ctx.wrap_socket(sock, server_hostname="localhost", session=self.session)
            c = http.client.HTTPSConnection("localhost", self.upstream_port, context=self.ctx)
            c.sock = tls
            post(c, "/i/charges", self.key())
            self.reused += 1 if tls.session_reused else 0
            self.session = tls.session
            c.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jar", default="proxy-app/target/idemproxy.jar")
    ap.add_argument("--calls", type=int, default=20000, help="calls per measured batch of plain and keepalive")
    ap.add_argument("--resumed-calls", type=int, default=2000, help="calls per measured batch of resumed (a CONNECT each)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup-seconds", type=int, default=60)
    ap.add_argument("--jvm-opts", default="-Xms512m -Xmx512m -XX:+UseParallelGC")
    a = ap.parse_args()
    jar = os.path.abspath(a.jar)
    work = tempfile.mkdtemp(prefix="idemproxy-https-cpu-")
    procs = []
    try:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                        "-keyout", f"{work}/up.key", "-out", f"{work}/up.crt", "-days", "2", "-subj", "/CN=localhost",
                        "-addext", "subjectAltName=DNS:localhost"], check=True, capture_output=True)
        up, proxy, admin = free_port(), free_port(), free_port()
        with open(f"{work}/nginx.conf", "w") as f:
            f.write(f"""daemon off; worker_processes 1; pid {work}/nginx.pid; error_log {work}/nginx.err;
events {{ worker_connections 1024; }}
http {{ access_log off; keepalive_requests 1000000;
  server {{ listen 127.0.0.1:{up} ssl; ssl_certificate {work}/up.crt; ssl_certificate_key {work}/up.key;
    location / {{ return 200 "charged"; }} }} }}
""")
        procs.append(subprocess.Popen(["taskset", "-c", "1", "nginx", "-c", f"{work}/nginx.conf", "-p", work],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_port(up, procs[-1], "nginx")
        with open(f"{work}/idemproxy.yaml", "w") as f:
            f.write(f"""listen: 127.0.0.1:{proxy}
admin: {{ listen: 127.0.0.1:{admin} }}
server: {{ ioThreads: 1 }}
store: {{ type: memory, embedded: {{ path: {work}/data }} }}
forwardProxy: {{ connect: refuse }}
routes:
  - name: plain
    match: {{ pathPrefix: /plain/ }}
    upstream: https://localhost:{up}
    tls: {{ caFile: {work}/up.crt }}
    idempotency: {{ enabled: true, ttl: 2m }}
  - name: intercepted
    match: {{ host: localhost, pathPrefix: /i/ }}
    intercept: true
    tls: {{ caFile: {work}/up.crt }}
    idempotency: {{ enabled: true, ttl: 2m }}
""")
        log = open(f"{work}/idemproxy.log", "w")
        procs.append(subprocess.Popen(["taskset", "-c", "0", "java", *a.jvm_opts.split(), "-jar", jar, "run", "--config",
                                       f"{work}/idemproxy.yaml"], cwd=work, stdout=log, stderr=subprocess.STDOUT))
        jvm = procs[-1]
        wait_port(proxy, jvm, "idemproxy")
        os.sched_setaffinity(0, {1})
        modes = Modes(proxy, up, f"{work}/data/ca.crt")
        order = ["plain", "keepalive", "resumed"]
        for name in order:
            end = time.time() + a.warmup_seconds
            while time.time() < end:
                getattr(modes, name)(500)
        results = {name: [] for name in order}
        for r in range(a.rounds):
            for name in order:
                calls = a.resumed_calls if name == "resumed" else a.calls
                before, t0, reused = cpu_seconds(jvm.pid), time.time(), modes.reused
                getattr(modes, name)(calls)
                cpu, wall = cpu_seconds(jvm.pid) - before, time.time() - t0
                us = cpu / calls * 1e6
                results[name].append(us)
                resumed = f"  TLS sessions resumed: {modes.reused - reused}/{calls}" if name == "resumed" else ""
                print(f"round {r + 1} {name:9s} {calls} calls  {us:7.1f} µs CPU/call  ({calls / wall:6.0f} calls/s){resumed}",
                      flush=True)
        print("median CPU µs per protected call (proxy JVM, all threads):")
        for name in order:
            print(f"  {name:9s} {statistics.median(results[name]):7.1f}")
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
