"""What uring-chain.py and socket-chain.py print alike: percentiles of a span, and in how many
10 ms windows the slowest 1% of requests arrived."""
import collections

WINDOW_US = 10_000


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


def summary(name, values, width):
    """One line: the span's count, p50, p90, p99, p99.9 and mean, in µs."""
    print('%-*s n %7d  p50 %6.0f  p90 %6.0f  p99 %6.0f  p99.9 %6.0f  mean %6.0f us'
          % (width, name, len(values), pct(values, .5), pct(values, .9), pct(values, .99),
             pct(values, .999), sum(values) / len(values)))


def slowest_windows(arrivals, slow_arrivals):
    """(windows of the run, windows of the slow requests): arrivals per 10 ms window, from the first."""
    start = min(arrivals)
    window = lambda t: int((t - start) / WINDOW_US)
    return collections.Counter(map(window, arrivals)), collections.Counter(map(window, slow_arrivals))
