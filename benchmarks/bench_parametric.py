"""Time temperature, vector, matrix and structured scaling on float32 logits.

    python benchmarks/bench_parametric.py [--save] [--only temperature|scaling] [--no-baseline]

Vector, matrix (Dirichlet/ODIR) and structured matrix scaling run on 1e5 x 10 and
5e4 x 100 logits, beside a numpy + scipy baseline that minimises the same objective
(vectorised numpy value and gradient, scipy's L-BFGS-B to the same gradient
tolerance 1e-8): no public implementation is installed here (netcal, dirichletcal
and probmetrics are not importable, and torch is absent). Each fit is timed once
after one warm-up fit (which also compiles or loads the numba kernels).

Temperature scaling:

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
from _harness import (  # noqa: E402
    fmt_time,
    load_average,
    log,
    machine_lines,
    measure,
    save_report,
    time_once,
)

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


SCALING_SHAPES = ((100_000, 10), (50_000, 100))


def _numpy_baseline(kind: str, z, y, pen: dict):
    """Fit ``kind`` by scipy's L-BFGS-B on a vectorised numpy objective; return (loss, |g|, iters)."""
    from scipy.optimize import minimize
    from scipy.special import log_softmax

    x = log_softmax(z.astype(np.float64), axis=1)
    n, K = x.shape
    rows = np.arange(n)
    off = 1.0 - np.eye(K)

    def unpack(t):
        if kind == "vector":
            return np.diag(t[:K]), np.append(t[K:], 0.0)
        if kind == "matrix":
            return t[: K * K].reshape(K, K), t[K * K:]
        return t[0] * np.eye(K) + t[1:1 + K * K].reshape(K, K), t[1 + K * K:]

    def fun(t):
        W, b = unpack(t)
        u = x @ W.T + b
        lse = np.logaddexp.reduce(u, axis=1)
        r = np.exp(u - lse[:, None])
        r[rows, y] -= 1.0
        f = float(np.mean(lse - u[rows, y]))
        gW, gb = r.T @ x / n, r.mean(axis=0)
        if kind == "vector":
            return f, np.concatenate([np.diag(gW), gb[:-1]])
        D = W - (t[0] * np.eye(K) if kind == "structured" else 0.0)
        pd = pen.get("l2_diagonal", 0.0) / K * np.eye(K)
        po = pen["l2_off_diagonal"] / (K * (K - 1)) * off
        f += float(np.sum((pd + po) * D * D) + pen["l2_intercept"] / K * (b @ b))
        gD = gW + 2 * (pd + po) * D
        gb = gb + 2 * pen["l2_intercept"] / K * b
        if kind == "matrix":
            return f, np.concatenate([gD.ravel(), gb])
        return f, np.concatenate([[np.trace(gW)], gD.ravel(), gb])

    t0 = {"vector": np.r_[np.ones(K), np.zeros(K - 1)],
          "matrix": np.r_[np.eye(K).ravel(), np.zeros(K)],
          "structured": np.r_[1.0, np.zeros(K * K + K)]}[kind]
    res = minimize(fun, t0, jac=True, method="L-BFGS-B",
                   options={"gtol": 1e-8, "ftol": 0.0, "maxiter": 2000, "maxcor": 30})
    f, g = fun(res.x)
    return f, float(np.max(np.abs(g))), int(res.nit)


def scaling_lines(repeats: int, shapes=SCALING_SHAPES, baseline: bool = True) -> list[str]:
    """The table of vector, matrix and structured scaling beside the numpy + scipy baseline.

    ``baseline=False`` leaves the baseline out (its columns say "not run").
    """
    from venncal.parametric import (
        MatrixScalingCalibrator,
        StructuredMatrixScalingCalibrator,
        VectorScalingCalibrator,
    )

    kinds = (("vector", VectorScalingCalibrator), ("matrix", MatrixScalingCalibrator),
             ("structured", StructuredMatrixScalingCalibrator))
    lines = [
        "| n x K (float32) | calibrator | venncal fit wall (first call) | solver, iterations | "
        "loss | max abs gradient | numpy + scipy L-BFGS-B wall | its loss | its gradient, iterations |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for n, K in shapes:
        z, y = _data(n, K)
        for kind, cls in kinds:
            log(f"n={n:,} K={K} {kind}")
            cal = cls()
            fit = measure(lambda cal=cal: cal.fit(z, y), repeats=repeats)
            pen = {k: v for k, v in cal.get_params().items() if k.startswith("l2_")}
            ours = (f"| {n:,} x {K} | {cls.__name__} | {fmt_time(fit.best)} ({fmt_time(fit.first)}) | "
                    f"{cal.solver_}, {cal.n_iter_} | {cal.loss_:.12f} | {cal.grad_norm_:.1e} |")
            if not baseline:
                lines.append(f"{ours} not run | | |")
                log(lines[-1])
                continue
            # the baseline once: pure numpy + scipy, nothing to compile or load
            base_time, (f, g, it) = time_once(lambda kind=kind, pen=pen: _numpy_baseline(
                kind, z, y, pen))
            lines.append(f"{ours} {fmt_time(base_time)} | {f:.12f} | {g:.1e}, {it} |")
            log(lines[-1])
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", action="store_true", help="write benchmarks/results/...")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", choices=("temperature", "scaling"), default=None)
    parser.add_argument("--scaling-shape", action="append", default=None, metavar="NxK",
                        help="a shape of the scaling table (repeatable; default 100000x10 "
                        "and 50000x100)")
    parser.add_argument("--no-baseline", action="store_true",
                        help="leave the numpy + scipy baseline out of the scaling table")
    args = parser.parse_args()
    shapes = (tuple(tuple(int(v) for v in s.split("x")) for s in args.scaling_shape)
              if args.scaling_shape else SCALING_SHAPES)
    if args.only == "scaling":
        lines = ["# Vector, matrix and structured scaling beside a numpy + scipy baseline", "",
                 *machine_lines(), "", *scaling_lines(args.repeats, shapes, not args.no_baseline),
                 "", f"- load average at the end: {load_average()}"]
        text = "\n".join(lines)
        print(text)
        if args.save:
            save_report(text, "parametric_scaling")
        return 0
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
    if args.only is None:
        lines += ["", "## Vector, matrix and structured scaling", "", *scaling_lines(args.repeats, shapes, not args.no_baseline)]
    lines += ["", f"- load average at the end: {load_average()}"]
    text = "\n".join(lines)
    print(text)
    if args.save:
        save_report(text, "parametric")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
