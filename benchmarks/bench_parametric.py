"""Time temperature scaling beside scikit-learn's, on float32 logits of two shapes.

    python benchmarks/bench_parametric.py [--save]

Fit runs on every usable core (``n_jobs=None``; the same fit for any number of
threads); scikit-learn's runs as it does. Wall-clock times: the targets are wall
time on two cores. Logits: rows of N(0, 1) * 4 with labels drawn from softmax(z / 2) (a model twice too
confident), float32 as deep nets give them. Times fit (first call excluded: numba
loads or compiles the kernel then; that time is printed separately) and
predict_proba, and scikit-learn 1.9's ``_TemperatureScaling`` (what
``CalibratedClassifierCV(method="temperature")`` fits: scipy's bounded Brent on
log(beta) in [-10, 10]) on the same arrays, and the log losses both reach.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import fmt_time, load_average, log, machine_lines, measure, save_report  # noqa: E402

SHAPES = ((50_000, 1000), (1_000_000, 10))


def _data(n: int, K: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    z = (rng.standard_normal((n, K), dtype=np.float32) * 4).astype(np.float32)
    half = z.astype(np.float64) / 2
    p = np.exp(half - half.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    u = rng.random(n)[:, None]
    y = np.minimum((p.cumsum(axis=1) < u).sum(axis=1), K - 1)
    return z, y


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", action="store_true", help="write benchmarks/results/...")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from sklearn.calibration import _TemperatureScaling

    from venncal.metrics import multiclass_log_loss
    from venncal.parametric import TemperatureCalibrator

    lines = ["# Temperature scaling: venncal beside scikit-learn", "", *machine_lines(), ""]
    lines += [
        "| n x K (float32) | venncal fit: wall best (median); CPU best; first call | "
        "predict_proba wall | scikit-learn fit wall best (median) | speed-up (wall) | "
        "log loss venncal / scikit-learn | evaluations |",
        "|---|---|---|---|---|---|---|",
    ]
    for n, K in SHAPES:
        z, y = _data(n, K)
        log(f"n={n:,} K={K}")
        cal = TemperatureCalibrator()
        fit = measure(lambda: cal.fit(z, y), repeats=args.repeats)
        pred = measure(lambda: cal.predict_proba(z), repeats=args.repeats)
        sk = _TemperatureScaling()
        theirs = measure(lambda: sk.fit(z, y), repeats=args.repeats)
        ours_loss = multiclass_log_loss(y, cal.predict_proba(z), base="e")
        zs = z.astype(np.float64) * float(sk.beta_)
        ps = np.exp(zs - zs.max(axis=1, keepdims=True))
        ps /= ps.sum(axis=1, keepdims=True)
        their_loss = multiclass_log_loss(y, ps, base="e")
        lines.append(
            f"| {n:,} x {K} | {fmt_time(fit.best)} ({fmt_time(fit.median)}); "
            f"{fmt_time(fit.cpu_best)}; {fmt_time(fit.first)} | {fmt_time(pred.best)} | "
            f"{fmt_time(theirs.best)} ({fmt_time(theirs.median)}) | "
            f"{theirs.best / fit.best:.1f}x | {ours_loss:.12f} / {their_loss:.12f} | "
            f"{cal.n_iter_} |"
        )
        log(lines[-1])
    lines += ["", f"- load average at the end: {load_average()}"]
    text = "\n".join(lines)
    print(text)
    if args.save:
        save_report(text, "parametric")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
