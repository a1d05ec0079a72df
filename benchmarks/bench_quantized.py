"""Speed of sequential quantized isotonic regression (paper 003) beside refitting.

Times, with K levels (default 100, evenly spaced in [0, 1]):

- unordered inserts (``QuantizedIsotonic.learn_many``) while the tree grows
  to n observations, and the marginal rate over the last tenth (at ~n);
- at the refit size m: the last tenth, and the amortised rate over the
  tree's cycle around m, from one doubling of its buckets to the next (the
  tenth contains the doubling's pause or not, depending on the data), with
  the slowest 1,000 inserts of the cycle (the pause);
- single ``insert`` calls from Python at ~n (the per-call overhead included);
- a sliding window of W observations: each insert also deletes the oldest,
  timed as insert+delete pairs per second once the window is full;
- ordered inserts (``OrderedQuantizedIsotonic.learn_many``) of sorted scores;
- the alternative: refitting ``sklearn.isotonic.IsotonicRegression`` (and
  venncal's batch ``QuantizedIsotonicCalibrator``) on m observations after
  every update, timed over a few refits and extrapolated to updates/s.

Data: scores ``s ~ U[0, 1]`` (continuous, so every score is a new distinct
one: the worst case for the tree), labels ``y ~ Bernoulli(s)``.

This is a script, not a test::

    python benchmarks/bench_quantized.py
    python benchmarks/bench_quantized.py --n 1e5 --window 1e4 --ordered 1e6   # quick
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.isotonic import IsotonicRegression

from venncal import QuantizedIsotonicCalibrator
from venncal.online.quantized import OrderedQuantizedIsotonic, QuantizedIsotonic

from _harness import Clock, add_sizes, machine_lines, measure


def data(rng, n):
    s = rng.random(n)
    return s, (rng.random(n) < s).astype(float)


def tree_bytes(model):
    return sum(a.nbytes for a in model._tree)


def warm_up(levels):
    rng = np.random.default_rng(1)
    s, y = data(rng, 5000)
    QuantizedIsotonic(levels).learn_many(s, y)
    QuantizedIsotonic(levels, window=100).learn_many(s, y)
    OrderedQuantizedIsotonic(levels).learn_many(np.sort(s), y)


def unordered(rng, levels, n, single_calls):
    s, y = data(rng, n)
    model = QuantizedIsotonic(levels)
    tenth = n // 10
    with Clock() as first:
        model.learn_many(s[: n - tenth], y[: n - tenth])
    with Clock() as last:
        model.learn_many(s[n - tenth :], y[n - tenth :])
    extra_s, extra_y = data(rng, single_calls)
    with Clock() as single:
        for a, b in zip(extra_s.tolist(), extra_y.tolist(), strict=True):
            model.insert(a, b)
    total = Clock()
    total.wall, total.cpu = first.wall + last.wall, first.cpu + last.cpu
    return {
        "overall": total.rates(n),
        "last tenth": last.rates(tenth),
        "single insert() calls": single.rates(single_calls),
        "groups": model.n_groups,
        "MB": tree_bytes(model) / 1e6,
    }


def doubling(rng, levels, n, chunk=1000):
    """The rate over the tree's cycle around n: from one doubling of its buckets to the next.

    The tree doubles its buckets about once per doubling of n (when it is
    60-75% full, depending on the data), in one pause; the inserts from the
    chunk after one doubling to the chunk of the next, that one included,
    pay for exactly one pause, so their rate is the amortised rate at that
    size, which a tenth of the stream may over- or understate.  Returns
    that rate, the cycle's first and last insert, and its slowest chunk.
    """
    s, y = data(rng, 3 * n)
    model = QuantizedIsotonic(levels)
    times, ends, grew = [], [], []
    for i in range(0, 3 * n, chunk):
        buckets = model._cnt.shape[0]
        with Clock() as c:
            model.learn_many(s[i : i + chunk], y[i : i + chunk])
        times.append((c.wall, c.cpu))
        ends.append(i + chunk)
        grew.append(model._cnt.shape[0] != buckets)
        if grew[-1] and i + chunk > n and sum(grew) >= 2:
            break
    marks = [j for j, g in enumerate(grew) if g]
    last = next(j for j in marks if ends[j] > n)
    first = max(j for j in marks if j < last)
    walls, cpus = zip(*times[first + 1 : last + 1], strict=True)
    count = ends[last] - ends[first]
    return (count / sum(walls), count / sum(cpus)), ends[first], ends[last], max(walls)


def window(rng, levels, w, pairs, single_calls):
    s, y = data(rng, w + pairs + single_calls)
    model = QuantizedIsotonic(levels, window=w)
    model.learn_many(s[:w], y[:w])
    with Clock() as many:
        model.learn_many(s[w : w + pairs], y[w : w + pairs])
    with Clock() as single:
        for a, b in zip(s[w + pairs :].tolist(), y[w + pairs :].tolist(), strict=True):
            model.insert(a, b)
    return {"pairs (learn_many)": many.rates(pairs),
            "pairs (single insert() calls)": single.rates(single_calls)}


def ordered(rng, levels, n):
    s, y = data(rng, n)
    s = np.sort(s)
    model = OrderedQuantizedIsotonic(levels)
    with Clock() as clock:
        model.learn_many(s, y)
    return clock.rates(n)


def refit(rng, levels, m, repeats):
    s, y = data(rng, m)
    out = {}
    for name, fit in (
        ("sklearn IsotonicRegression refit", lambda: IsotonicRegression(
            out_of_bounds="clip").fit(s, y)),
        ("venncal QuantizedIsotonicCalibrator refit", lambda: QuantizedIsotonicCalibrator(
            levels=levels).fit(s, y)),
    ):
        t = measure(fit, repeats=repeats)  # a warm-up fit, then the median of `repeats`
        out[name] = (1.0 / t.median, 1.0 / t.cpu_median)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, default=100)
    add_sizes(parser, 10**6, "--n", "unordered stream length", many=False)
    add_sizes(parser, 10**5, "--window", "window W", many=False)
    add_sizes(parser, 3 * 10**5, "--pairs", "timed window updates", many=False)
    add_sizes(parser, 10**7, "--ordered", "ordered stream length", many=False)
    add_sizes(parser, 10**5, "--refit-n", "refit size m", many=False)
    parser.add_argument("--single-calls", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    k = args.levels
    print("# Quantized isotonic regression: sequential updates beside refits\n")
    print("\n".join([*machine_lines(argv), f"- K = {k} levels"]) + "\n")
    warm_up(k)
    n, w = int(args.n), int(args.window)
    rows = []
    un = unordered(rng, k, n, args.single_calls)
    for key in ("overall", "last tenth", "single insert() calls"):
        rows.append((f"unordered inserts, n = 0 .. {n:.0e} ({key})", un[key]))
    win = window(rng, k, w, int(args.pairs), args.single_calls)
    for key, rate in win.items():
        rows.append((f"window W = {w:.0e}: insert+delete {key}", rate))
    rows.append((f"ordered inserts, n = {args.ordered:.0e}", ordered(rng, k, int(args.ordered))))
    m = int(args.refit_n)
    un_m = unordered(rng, k, m, 2000)
    rows.append((f"unordered inserts at n = {m:.0e} (last tenth)", un_m["last tenth"]))
    cycle, lo, hi, worst = doubling(rng, k, m)
    label = f"unordered inserts from n = {lo:,} to {hi:,}, one doubling of the tree (amortised)"
    rows.append((label, cycle))
    for name, rate in refit(rng, k, m, repeats=7).items():
        rows.append((f"{name} after each update, n = {m:.0e}", rate))
    print("| operation | updates/s (wall clock) | updates/s (CPU time) |")
    print("|---|---:|---:|")
    for name, (wall, cpu) in rows:
        print(f"| {name} | {wall:,.0f} | {cpu:,.0f} |")
    sk = rows[-2][1]
    for i, what in ((0, "wall clock"), (1, "CPU time")):
        print(f"\nratios ({what}): tree inserts at n = {m:.0e} / sklearn refits at n = {m:.0e} = "
              f"{un_m['last tenth'][i] / sk[i]:,.0f}x (last tenth), {cycle[i] / sk[i]:,.0f}x "
              f"(amortised); window pairs (W = {w:.0e}) / sklearn refits = "
              f"{win['pairs (learn_many)'][i] / sk[i]:,.0f}x")
    print(f"\nslowest 1,000 inserts from n = {lo:,} to {hi:,} (the doubling): {1e3 * worst:.1f} ms "
          f"(one sklearn refit: {1e3 / sk[0]:.1f} ms)")
    print(f"\ntree at n = {n:.0e}: {un['groups']} groups at the root, {un['MB']:.0f} MB of arrays")

if __name__ == "__main__":
    main()
