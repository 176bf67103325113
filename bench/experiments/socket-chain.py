#!/usr/bin/env python3
"""Where a GET's time goes between the sockets, for any proxy: nginx and idemproxy alike.

Reads `perf script -F time,trace` output of the tcp:tcp_probe tracepoint (filtered to segments
that carry data; see socket-chain.sh). tcp_probe fires when a socket receives a segment and names
that socket's own port as src, so for a proxy listening on PROXY and an upstream on UPSTREAM:

  src=PROXY     the proxy's client socket receives a request   (A: the request has arrived)
  dest=PROXY    wrk's socket receives the response              (H: the answer has left the proxy)
  src=UPSTREAM  the upstream's socket receives the request      (D)
  dest=UPSTREAM the proxy's upstream socket receives a response (E)

Prints, per connection and request: the proxy's residence (A to H, the upstream's leg included),
the upstream's leg (D to E), and wrk's turnaround (H to the next A on that connection: the response
waiting in wrk's socket, wrk's own work, its next request). With wrk's read(2) calls in the trace
(syscalls:sys_enter_read/sys_exit_read of wrk's threads) and a map of wrk's descriptors to their
local ports (FDS: lines "fd inode"; NET_TCP: a copy of /proc/net/tcp), also how long each answer
waited in wrk's socket until wrk read it (H to read), and A to that read, which is what wrk counts
as the request's latency. Also: how many responses reach wrk per 50 µs, and in how many 10 ms
windows the slowest 1% (by residence) arrived. Addresses may be IPv4 or IPv4-mapped IPv6 (Java's
sockets).
"""
import collections
import re
import sys

from tracestats import pct, slowest_windows, summary

SEGMENT = re.compile(r'^\s*(?:\d+\s+)?([\d.]+):\s+tcp:tcp_probe:.*?src=\[?(?:::ffff:)?127\.0\.0\.1\]?:(\d+) '
                     r'dest=\[?(?:::ffff:)?127\.0\.0\.1\]?:(\d+) ')


def first_after(later, t, j):
    while j < len(later) and later[j] <= t:
        j += 1
    return j


def spans(starts, ends):
    """(start, end - start) for each request: its first segment, then the first reply segment after it."""
    out = []
    for conn, ts in starts.items():
        rs = sorted(ends.get(conn, []))
        j, last = 0, -1.0
        for t in sorted(ts):
            if t <= last:
                continue                # a further segment of the same request
            j = first_after(rs, t, j)
            if j == len(rs):
                break
            out.append((t, rs[j] - t))
            last = rs[j]
    return out


READ_ENTER = re.compile(r'^\s*(\d+)\s+([\d.]+):\s+syscalls:sys_enter_read:\s+fd: 0x([0-9a-f]+)')
READ_EXIT = re.compile(r'^\s*(\d+)\s+([\d.]+):\s+syscalls:sys_exit_read:\s+0x([0-9a-f]+)')


def fd_ports(fds, net_tcp):
    """wrk's descriptors -> their local ports, from "fd inode" lines and /proc/net/tcp."""
    port_of_inode = {}
    for row in list(open(net_tcp))[1:]:
        f = row.split()
        port_of_inode[f[9]] = int(f[1].split(':')[1], 16)
    ports = {}
    for row in open(fds):
        fd, inode = row.split()
        if inode in port_of_inode:
            ports[int(fd)] = port_of_inode[inode]
    return ports


def waits_in_wrk(a, h, reads):
    """(H to wrk's next read on that connection, A to that read) for every answer."""
    waited, latency = [], []
    for conn, answers in h.items():
        requests, rd = sorted(a.get(conn, [])), sorted(reads.get(conn, []))
        i = j = 0
        for t in sorted(answers):
            while i + 1 < len(requests) and requests[i + 1] < t:
                i += 1
            j = first_after(rd, t, j)
            if not requests or requests[i] >= t or j == len(rd):
                continue
            waited.append(rd[j] - t)
            latency.append(rd[j] - requests[i])
    return waited, latency


def main():
    if len(sys.argv) not in (4, 6):
        sys.exit('usage: socket-chain.py PERF_SCRIPT_OUTPUT PROXY_PORT UPSTREAM_PORT [FDS NET_TCP]')
    proxy, upstream = int(sys.argv[2]), int(sys.argv[3])
    ports = fd_ports(sys.argv[4], sys.argv[5]) if len(sys.argv) == 6 else {}
    a, h, d, e, reads = (collections.defaultdict(list) for _ in range(5))
    reading = {}
    for text in open(sys.argv[1]):
        m = SEGMENT.match(text)
        if not m:
            r = READ_ENTER.match(text)
            if r:
                reading[r.group(1)] = int(r.group(3), 16)
                continue
            r = READ_EXIT.match(text)
            if r:
                fd, got = reading.pop(r.group(1), None), int(r.group(3), 16)
                if fd in ports and 0 < got < 1 << 31:
                    reads[ports[fd]].append(float(r.group(2)) * 1e6)
            continue
        t, src, dest = float(m.group(1)) * 1e6, int(m.group(2)), int(m.group(3))
        if src == proxy:
            a[dest].append(t)
        elif dest == proxy:
            h[src].append(t)
        elif src == upstream:
            d[dest].append(t)
        elif dest == upstream:
            e[src].append(t)
    residence = spans(a, h)
    if not residence:
        sys.exit('no request followed: are the ports right?')
    summary('residence in the proxy (A-H)', [x[1] for x in residence], 40)
    summary('upstream leg (D-E)', [x[1] for x in spans(d, e)], 40)
    summary("wrk's turnaround (H-next A)", [x[1] for x in spans(h, a)], 40)
    if reads:
        waited, latency = waits_in_wrk(a, h, reads)
        summary("answer waiting in wrk's socket (H-read)", waited, 40)
        summary("A to wrk's read (wrk's latency)", latency, 40)
    slots = collections.Counter(int(t / 50) for ts in h.values() for t in ts)
    print('responses reaching wrk per 50 us (slots with any): mean %.2f, p90 %d, max %d'
          % (sum(slots.values()) / len(slots), pct(list(slots.values()), .9), max(slots.values())))
    slow_from = pct([x[1] for x in residence], .99)
    windows, slow = slowest_windows([x[0] for x in residence], [x[0] for x in residence if x[1] >= slow_from])
    print('slowest 1%% by residence: %d requests in %d of %d 10 ms windows'
          % (sum(slow.values()), len(slow), len(windows)))


if __name__ == '__main__':
    main()
