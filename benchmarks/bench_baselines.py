"""Speed of the baseline calibrators beside scikit-learn's isotonic regression.

Times fit and predict of venncal's Platt, isotonic (nearest and linear),
histogram binning and BBQ calibrators, and of
``sklearn.isotonic.IsotonicRegression(out_of_bounds="clip")``, on the same
data in the same run: k calibration scores
``s ~ U[0, 1]``, labels ``y ~ Bernoulli(s)``, k fresh test scores.  Best of N
calls after a warm-up call.

This is a script, not a test::

    python benchmarks/bench_baselines.py                  # 1e4, 1e5, 1e6
    python benchmarks/bench_baselines.py --sizes 1e6 --min-time 2
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from sklearn.isotonic import IsotonicRegression

from venncal import (
    BBQCalibrator,
    HistogramBinningCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
)

from _harness import add_sizes, machine_lines, measure


def best_of(fn, min_time):
    """Best of at least 3 calls and ``min_time`` seconds, after a warm-up call (numba)."""
    return measure(fn, repeats=3, min_time=min_time).best


def fmt(t):
    return f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_sizes(parser, (10**4, 10**5, 10**6), help="calibration sizes k")
    parser.add_argument("--min-time", type=float, default=1.0)
    args = parser.parse_args(argv)
    print("# Baseline calibrators: fit and predict\n")
    print("\n".join(machine_lines(argv)) + "\n")
    contenders = {
        "venncal Platt": lambda: PlattCalibrator(),
        "venncal isotonic (nearest)": lambda: IsotonicCalibrator(),
        "venncal isotonic (linear)": lambda: IsotonicCalibrator(interpolation="linear"),
        "venncal histogram (10 bins)": lambda: HistogramBinningCalibrator(),
        "venncal BBQ": lambda: BBQCalibrator(),
    }
    print("| k | calibrator | fit | predict (k scores) |")
    print("|---:|---|---:|---:|")
    for k in args.sizes:
        rng = np.random.default_rng(0)
        s = rng.random(k)
        y = (rng.random(k) < s).astype(int)
        q = rng.random(k)
        rows = []
        for name, make in contenders.items():
            fitted = make().fit(s, y)
            rows.append(
                (
                    name,
                    best_of(lambda make=make, s=s, y=y: make().fit(s, y), args.min_time),
                    best_of(lambda fitted=fitted, q=q: fitted.predict_proba(q), args.min_time),
                )
            )
        iso = IsotonicRegression(out_of_bounds="clip").fit(s, y)
        rows.append(
            (
                "scikit-learn IsotonicRegression",
                best_of(
                    lambda s=s, y=y: IsotonicRegression(out_of_bounds="clip").fit(s, y),
                    args.min_time,
                ),
                best_of(lambda iso=iso, q=q: iso.predict(q), args.min_time),
            )
        )
        rows.append(("np.sort (floor)", best_of(lambda s=s: np.sort(s), args.min_time), math.nan))
        for name, fit_t, pred_t in rows:
            pred = "-" if math.isnan(pred_t) else fmt(pred_t)
            print(f"| {k:.0e} | {name} | {fmt(fit_t)} | {pred} |")


if __name__ == "__main__":
    main()
