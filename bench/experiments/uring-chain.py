#!/usr/bin/env python3
"""Where a forwarded request waits inside idemproxy's io_uring event loop.

Reads `perf script -F comm,tid,cpu,time,event,trace` output of the io_uring tracepoints
io_uring_task_add, io_uring_submit_req and io_uring_complete (see uring-chain.sh) and rebuilds
each request's path from Netty's user_data (registration id << 32 | opcode << 16 | data):

  A  the request reaches the client socket   (task_add of the client's poll, in wrk's context)
  C  the proxy's recv of it completes         (RECV completion on the client registration)
  D  the request is submitted upstream        (SEND submission on an upstream registration)
  E  the response reaches the upstream socket (task_add of the upstream's poll, in nginx's context)
  G  the proxy's recv of it completes         (RECV completion on the upstream registration)
  H  the response is submitted to the client  (SEND submission on the client registration)

A client registration is one whose poll wake-ups come from wrk, an upstream one whose come from
nginx. C is linked to the next upstream SEND and G to the next client SEND in the loop's order
(first in, first out), which holds for bodiless requests answered in one read each (the GET
scenario). Prints each segment's percentiles, the mean segments of the median band and of the
slowest 1%, and in how many 10 ms windows the slowest 1% arrived.
"""
import collections
import re
import sys

from tracestats import slowest_windows, summary

EVENT = re.compile(r'^\s*(\S+)\s+\d+\s+\[\d+\]\s+([\d.]+):\s+io_uring:io_uring_(\w+):.*?user_data 0x([0-9a-f]+)'
                   r'(?:, opcode (\w+))?(?:.*?result (-?\d+))?')
OP_RECV = 27


def events(path):
    for line in open(path):
        m = EVENT.match(line)
        if m:
            comm, t, kind, ud, op, res = m.groups()
            ud = int(ud, 16)
            yield float(t) * 1e6, comm, kind, ud >> 32, (ud >> 16) & 0xff, op, int(res) if res else None


def requests(path, loop_prefix):
    evs = list(events(path))
    side = {}
    for _, comm, kind, reg, _, _, _ in evs:
        if kind == 'task_add':
            side[reg] = 'client' if comm.startswith('wrk') else 'upstream'
    arrived = {}                       # registration -> first wake-up not yet read
    read_requests = collections.deque()
    read_responses = collections.deque()
    awaiting = {}                      # upstream registration -> the request sent on it
    done = []
    for t, comm, kind, reg, op, opname, res in evs:
        s = side.get(reg)
        if kind == 'task_add':
            arrived.setdefault(reg, t)
        elif not comm.startswith(loop_prefix):
            continue
        elif kind == 'complete' and op == OP_RECV and res and res > 0:
            if s == 'client':
                read_requests.append({'A': arrived.pop(reg, None), 'C': t})
            elif s == 'upstream':
                r = awaiting.pop(reg, None)
                e = arrived.pop(reg, None)
                if r is not None:
                    r['E'], r['G'] = e, t
                    read_responses.append(r)
        elif kind == 'submit_req' and opname == 'SEND':
            if s == 'upstream' and read_requests:
                r = read_requests.popleft()
                r['D'] = t
                awaiting[reg] = r
            elif s == 'client' and read_responses:
                r = read_responses.popleft()
                r['H'] = t
                done.append(r)
    return [r for r in done if r['A'] is not None and r['E'] is not None]


SEGMENTS = {
    'in (A-C)': lambda r: r['C'] - r['A'],
    'loop (C-D)': lambda r: r['D'] - r['C'],
    'upstream (D-E)': lambda r: r['E'] - r['D'],
    'back in (E-G)': lambda r: r['G'] - r['E'],
    'loop (G-H)': lambda r: r['H'] - r['G'],
    'total (A-H)': lambda r: r['H'] - r['A'],
}


def main():
    if len(sys.argv) < 2:
        sys.exit('usage: uring-chain.py PERF_SCRIPT_OUTPUT [LOOP_THREAD_PREFIX]')
    done = requests(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else 'idemproxy-io')
    if not done:
        sys.exit('no request could be followed from arrival to answer')
    for name, f in SEGMENTS.items():
        summary(name, [f(r) for r in done], 15)
    by_total = sorted(done, key=SEGMENTS['total (A-H)'])
    n = len(by_total)
    for label, group in (('median band (p45-p55)', by_total[int(.45 * n):int(.55 * n)]),
                         ('slowest 1%', by_total[int(.99 * n):])):
        print('%-22s %s' % (label, '  '.join('%s %.0f' % (k.split('(')[1].rstrip(')'), sum(f(r) for r in group) / len(group))
                                              for k, f in SEGMENTS.items())))
    windows, slow = slowest_windows([r['A'] for r in done], [r['A'] for r in by_total[int(.99 * n):]])
    print('slowest 1%%: %d requests, arrived in %d of %d 10 ms windows; the fullest: %s'
          % (sum(slow.values()), len(slow), len(windows),
             ', '.join('%d of %d at +%d ms' % (k, windows[w], w * 10) for w, k in slow.most_common(5))))


if __name__ == '__main__':
    main()
