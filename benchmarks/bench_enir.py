"""Speed and accuracy benchmark of the near-isotonic path and ENIR.

Measures, side by side in one run and on the same synthetic data,

* ``np.sort`` of the calibration scores (the floor of every fit),
* ``near_isotonic_path`` (validation, sort, tie pooling and the whole path)
  and the path kernel alone on a prebuilt summary,
* ``ENIRCalibrator().fit`` and ``predict_proba`` of as many fresh scores,
* scikit-learn's ``IsotonicRegression`` fit, venncal's ``IsotonicCalibrator``
  fit and ``BBQCalibrator`` fit, on the same data.

netcal's ENIR is not run: netcal pulls in several GB of CUDA PyTorch, which
this benchmark environment does not install (issue 11 measured it at 7.9 s
for 1e4 scores, 89 s for 3e4, and no result for 1e5 within ten minutes).

Then the issue's non-monotone benchmark: ``scores = sigmoid(z)``,
``z ~ N(0, 2^2)``, true probability
``clip(sigmoid(0.6 z + 0.4) + 0.1 sin 3z, 0.01, 0.99)``, 1e4 calibration and
1e5 test labels; log loss (natural log) and RMSE against the true
probability of ENIR, isotonic regression and BBQ, over ``--repeats`` draws.

Data for the timings: ``s ~ U[0, 1]``, ``y ~ Bernoulli(s + 0.15 sin(12 s))``
(clipped to [0.01, 0.99]: not monotone), as many fresh test scores.  Times
are wall clock per call: best of N after a warm-up call (which also compiles
the numba kernels) and the median.

This is a script, not a test::

    python benchmarks/bench_enir.py                      # 1e3 ... 1e6
    python benchmarks/bench_enir.py --sizes 1e5 --min-time 2
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from venncal import BBQCalibrator, IsotonicCalibrator
from venncal.enir import ENIRCalibrator, NearIsotonicPath, near_isotonic_path
from venncal.summary import ScoreSummary

from _harness import add_sizes, fmt_fixed, log, machine_lines, measure

DEFAULT_SIZES = (10**3, 10**4, 10**5, 10**6)
TARGETS = {"fit 1e5": 1.0, "fit 1e6": 10.0, "predict 1e6": 1.0, "path / sort 1e6": 20.0}


def timing_data(n, rng):
    s = rng.uniform(size=n)
    p = np.clip(s + 0.15 * np.sin(12 * s), 0.01, 0.99)
    return s, (rng.uniform(size=n) < p).astype(np.int64), rng.uniform(size=n)


def time_size(n, args, rng):
    from sklearn.isotonic import IsotonicRegression

    s, y, q = timing_data(n, rng)
    summary = ScoreSummary.from_arrays(s, y)
    fitted = ENIRCalibrator().fit(s, y)
    reps = 1 if n >= 10**6 else args.min_repeats
    cases = {
        "np.sort": lambda: np.sort(s),
        "path": lambda: near_isotonic_path(s, y),
        "path kernel": lambda: NearIsotonicPath(
            summary.scores, summary.weights, summary.positive_weights),
        "ENIR fit": lambda: ENIRCalibrator().fit(s, y),
        "ENIR predict": lambda: fitted.predict_proba(q),
        "sklearn isotonic fit": lambda: IsotonicRegression(out_of_bounds="clip").fit(s, y),
        "venncal isotonic fit": lambda: IsotonicCalibrator().fit(s, y),
        "BBQ fit": lambda: BBQCalibrator().fit(s, y),
    }
    row = {}
    for name, fn in cases.items():
        t = measure(fn, repeats=reps, min_time=args.min_time)
        row[name] = (t.best, t.median)
    models = fitted.lambdas_.shape[0]
    scored = int(np.isfinite(fitted.bic_).sum())
    used = int((fitted.model_weights_ > 0).sum())
    return row, (models, scored, used)


def accuracy(args):
    rng = np.random.default_rng(args.seed)

    def draw(n):
        z = rng.normal(0.0, 2.0, n)
        truth = np.clip(1 / (1 + np.exp(-(0.6 * z + 0.4))) + 0.1 * np.sin(3 * z), 0.01, 0.99)
        return 1 / (1 + np.exp(-z)), (rng.uniform(size=n) < truth).astype(np.int64), truth

    out = {name: [] for name in ("ENIR", "ENIR best", "isotonic", "BBQ")}
    for _ in range(args.repeats):
        s, y, _ = draw(10_000)
        t, yt, truth = draw(100_000)
        models = {
            "ENIR": ENIRCalibrator(), "ENIR best": ENIRCalibrator(model="best"),
            "isotonic": IsotonicCalibrator(), "BBQ": BBQCalibrator(),
        }
        for name, model in models.items():
            p = model.fit(s, y).predict_proba(t)[:, 1]
            pc = np.clip(p, 1e-15, 1 - 1e-15)  # isotonic predicts 0 and 1
            loss = -np.mean(yt * np.log(pc) + (1 - yt) * np.log1p(-pc))
            out[name].append((loss, np.sqrt(np.mean((p - truth) ** 2))))
    return {name: np.mean(v, axis=0) for name, v in out.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_sizes(parser, DEFAULT_SIZES, help="calibration sizes n")
    parser.add_argument("--min-time", type=float, default=1.0)
    parser.add_argument("--min-repeats", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5, help="draws of the accuracy benchmark")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print("# ENIR benchmark\n")
    print("\n".join(machine_lines(argv)) + "\n")

    rng = np.random.default_rng(args.seed)
    results = {}
    names = None
    for n in args.sizes:
        row, counts = time_size(n, args, rng)
        results[n] = row
        names = list(row)
        log(f"n = {n:.0e}: {counts[0]} models, {counts[1]} scored, {counts[2]} of weight > 0")
    print("times: best of N (median)\n")
    print("| n | " + " | ".join(names) + " | path / sort |")
    print("|---" * (len(names) + 2) + "|")
    for n, row in results.items():
        cells = [f"{fmt_fixed(b)} ({fmt_fixed(m)})" for b, m in row.values()]
        ratio = row["path"][0] / row["np.sort"][0]
        print(f"| {n:.0e} | " + " | ".join(cells) + f" | {ratio:.1f} |")

    print("\ntargets (best-of-N times):")
    checks = []
    if 10**5 in results:
        checks.append(("fit 1e5", results[10**5]["ENIR fit"][0]))
    if 10**6 in results:
        r = results[10**6]
        checks += [("fit 1e6", r["ENIR fit"][0]), ("predict 1e6", r["ENIR predict"][0]),
                   ("path / sort 1e6", r["path"][0] / r["np.sort"][0])]
    for name, value in checks:
        verdict = "PASS" if value <= TARGETS[name] else "FAIL"
        print(f"- {name}: {value:.3g} (target <= {TARGETS[name]:g}) {verdict}")

    if args.repeats > 0:
        acc = accuracy(args)
        print(f"\nnon-monotone benchmark (mean of {args.repeats} draws; 1e4 calibration, "
              "1e5 test):\n")
        print("| method | log loss | RMSE vs truth |")
        print("|---|---|---|")
        for name, (loss, rmse) in acc.items():
            print(f"| {name} | {loss:.5f} | {rmse:.5f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
