"""The memory of ``venncal.load`` against its ``max_bytes`` budget (issue 22, attacks 33 and 35).

For an IVAP on ``n`` distinct scores (format versions 3 and 1) and a one-vs-rest IVAP of
4 classes on ``n_ovr`` rows: the least ``max_bytes`` that loads the saved file (bisection,
to 1 %) and the traced peak of a load (``tracemalloc``; the least of 3).  The budget's
promise is that the first is above the second.  Not a test (tens of seconds).

    python benchmarks/load_budget.py [--n 1e6] [--n-ovr 3e5]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import tracemalloc
import warnings

import numpy as np
from _harness import load_average, machine_lines, parse_size

import venncal
from venncal import persist
from venncal.multiclass import OneVsRestCalibrator


def least_max_bytes(path) -> int:
    lo, hi = 1, 1 << 33
    while hi - lo > hi // 100:
        mid = (lo + hi) // 2
        try:
            persist.load(path, max_bytes=mid)
            hi = mid
        except persist.ModelFormatError:
            lo = mid
    return hi


def traced_peak(path) -> int:
    peaks = []
    for _ in range(3):
        tracemalloc.start()
        try:
            persist.load(path, max_bytes=None)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    return min(peaks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=parse_size, default=10**6)
    parser.add_argument("--n-ovr", type=parse_size, default=3 * 10**5)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(1)
    scores = rng.random(args.n)
    ivap = venncal.VennAbersCalibrator().fit(scores, rng.random(args.n) < scores)
    z = rng.normal(size=(args.n_ovr, 4))
    proba = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    ovr = OneVsRestCalibrator(venncal.VennAbersCalibrator()).fit(
        proba, rng.integers(0, 4, args.n_ovr))
    print("\n".join(machine_lines()))
    print("\n| model | file MB | least max_bytes MB | traced peak MB |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, model, version in ((f"IVAP, {args.n:,} scores", ivap, 3),
                                     (f"IVAP, {args.n:,} scores", ivap, 1),
                                     (f"one-vs-rest IVAP, {args.n_ovr:,} x 4", ovr, 3)):
            path = os.path.join(tmp, f"m{version}.json" + (".gz" if version == 3 else ""))
            persist.save(model, path, format_version=version)
            print(f"| {name}, v{version} | {os.path.getsize(path) / 1e6:.1f} | "
                  f"{least_max_bytes(path) / 1e6:.0f} | {traced_peak(path) / 1e6:.0f} |")
    print(f"\nload average at the end: {load_average()}")


if __name__ == "__main__":
    main()
