"""Batch throughput of the quantized kernels, in CPU time: run before and after a kernel change.

Times ``learn_many`` of ``--n`` uniform scores (labels ~ Bernoulli(score)) on
fresh objects, best of ``--rounds`` by the thread's CPU time (a shared
machine's waits are not counted): the dense tree (0/1 labels, unit weights),
the tree of groups (``half_life``, and non-whole weights), a window, and the
ordered stream (sorted scores).  Compile first (a warm-up call), then time::

    PYTHONPATH=src python benchmarks/bench_kernel_speed.py --n 1e6 --n-tree 1e5 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from venncal.online.quantized import OrderedQuantizedIsotonic, QuantizedIsotonic


def _cases(n, nt, rng):
    s = rng.random(n)
    y = (rng.random(n) < s).astype(float)
    w = rng.random(nt) + 0.5
    return {
        "dense learn_many": (lambda: QuantizedIsotonic(), s, y, None),
        "window=1e4 learn_many": (lambda: QuantizedIsotonic(window=10_000), s, y, None),
        "ordered learn_many": (lambda: OrderedQuantizedIsotonic(), np.sort(s), y, None),
        "tree: half_life=1e4 learn_many": (lambda: QuantizedIsotonic(half_life=1e4), s[:nt],
                                           y[:nt], None),
        "tree: weights U[.5,1.5] learn_many": (lambda: QuantizedIsotonic(), s[:nt], y[:nt], w),
        "tree: weights, window=1e4": (lambda: QuantizedIsotonic(window=10_000), s[:nt], y[:nt],
                                      w),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e6)
    parser.add_argument("--n-tree", type=float, default=1e5,
                        help="observations of the tree-of-groups cases (slower per insert)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    n, nt = int(args.n), int(args.n_tree)
    cases = _cases(n, nt, np.random.default_rng(0))
    print(f"n = {n:,} (tree: {nt:,}), best of {args.rounds}, load {os.getloadavg()[0]:.2f}")
    for name, (make, s, y, w) in cases.items():
        if args.only and args.only not in name:
            continue
        kw = {} if w is None else {"sample_weight": w[:100]}
        make().learn_many(s[:100], y[:100], **kw)  # compile
        best = np.inf
        for _ in range(args.rounds):
            m = make()
            kw = {} if w is None else {"sample_weight": w}
            t = time.thread_time()
            m.learn_many(s, y, **kw)
            best = min(best, time.thread_time() - t)
        print(f"{name:36s} {best:8.3f} s cpu  {s.shape[0] / best / 1e6:6.3f} M/s", flush=True)


if __name__ == "__main__":
    main()
