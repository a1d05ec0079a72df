"""Multiclass Venn-Abers: venncal's one-vs-rest and one-vs-one beside venn-abers 1.5.4.

Three measurements (issue 24's targets), on softmax probabilities of random
logits with labels drawn from them, calibration and test sets of ``n`` rows:

* **fit + predict_proba** of ``OneVsRestCalibrator()`` and
  ``OneVsOneCalibrator(coupling=...)`` (each coupling) against venn-abers'
  ``predict_proba_prefitted_va(..., va_tpe="one_vs_all" / "one_vs_one")``
  (which fits and predicts in one call; its one-vs-one couples as "price"),
  at n = 1e4, K = 10.  venn-abers is
  not a venncal dependency: it runs in the interpreter given by
  ``--compare-python`` (a virtualenv with venn-abers, numpy, scikit-learn),
  on the same data (same seeds), in a subprocess.
* **n = 1e5, K = 100 one-vs-rest** fit and predict.
* **prediction against numpy**: ``predict_proba`` beside K calls of
  ``np.searchsorted`` of the same sizes (tables of the calibration size, n
  queries each).

Times are CPU seconds of this process (``time.process_time``: the fairer
clock on a shared machine), best and median of the samples; the warm-up call
(numba compilation or cache load) is not counted.  This is a script, not a test.

    PYTHONPATH=src python benchmarks/bench_multiclass.py --compare-python /work/venvs/compare/bin/python
    PYTHONPATH=src python benchmarks/bench_multiclass.py --only ovo    # the one-vs-one rows only
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from _harness import fmt_time, load_average, log, machine_lines, measure, save_report

_VA_SCRIPT = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, {here!r})
from bench_multiclass import data
from venn_abers.venn_abers import predict_proba_prefitted_va
n, K, kind, repeats = {n}, {K}, {kind!r}, {repeats}
p, y = data(n, K, 0)
pt, _ = data(n, K, 1)
times = []
for _ in range(repeats + 1):
    t0 = time.process_time()
    predict_proba_prefitted_va(p, y, pt, va_tpe=kind)
    times.append(time.process_time() - t0)
print(json.dumps(times[1:]))
"""


def data(n: int, K: int, seed: int):
    """Softmax probabilities of random logits (scale 1.5) and labels drawn from them."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, K)) * 1.5
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    y = (p.cumsum(axis=1) < rng.random((n, 1))).sum(axis=1)
    y = np.minimum(y, K - 1)
    y[:K] = np.arange(K)
    return p, y


def venn_abers_times(python: str, n: int, K: int, kind: str, repeats: int) -> list[float]:
    here = str(Path(__file__).resolve().parent)
    script = _VA_SCRIPT.format(here=here, n=n, K=K, kind=kind, repeats=repeats)
    out = subprocess.run([python, "-c", script], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare-python", default=None,
                        help="python of a virtualenv with venn-abers 1.5.4 (skipped if not given)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--output", default=None)
    parser.add_argument("--only", choices=("all", "ovo"), default="all",
                        help="ovo: only the one-vs-one fit + predict_proba rows (n = 1e4, K = 10)")
    args = parser.parse_args(argv)

    from venncal import OneVsOneCalibrator, OneVsRestCalibrator

    lines = ["# Multiclass Venn-Abers: venncal beside venn-abers 1.5.4", "",
             *machine_lines(argv), ""]
    lines += ["## fit + predict_proba, n = 1e4 calibration and test rows, K = 10", "",
              "| method | venncal CPU best (median) | venn-abers CPU best (median) | speed-up (best) |",
              "|---|---|---|---|"]
    n, K = 10_000, 10
    p, y = data(n, K, 0)
    pt, _ = data(n, K, 1)
    runs = [] if args.only == "ovo" else [("one-vs-rest", OneVsRestCalibrator, "one_vs_all")]
    runs += [(f"one-vs-one ({c})", lambda c=c: OneVsOneCalibrator(coupling=c), "one_vs_one")
             for c in ("price", "normalize", "wu-lin-weng")]
    va_times: dict = {}
    for name, make, kind in runs:
        timing = measure(lambda make=make: make().fit(p, y).predict_proba(pt),
                         repeats=args.repeats, min_time=1.0)
        ours = f"{fmt_time(timing.cpu_best)} ({fmt_time(timing.cpu_median)})"
        if args.compare_python:
            if kind not in va_times:  # venn-abers couples one way (price): run it once
                log(f"venn-abers {kind} ...")
                va_times[kind] = venn_abers_times(args.compare_python, n, K, kind, 3)
            theirs = va_times[kind]
            best = min(theirs)
            median = float(np.median(theirs))
            lines.append(f"| {name} | {ours} | {fmt_time(best)} ({fmt_time(median)}) | "
                         f"{best / timing.cpu_best:.1f}x |")
        else:
            lines.append(f"| {name} | {ours} | not run | |")
        log(lines[-1])
    if args.only == "ovo":
        lines += ["", f"- load average at the end: {load_average()}"]
        save_report("\n".join(lines), "multiclass-ovo", args.output)
        return

    lines += ["", "## n = 1e5, K = 100, one-vs-rest", "",
              "| step | CPU best (median) |", "|---|---|"]
    n, K = 100_000, 100
    p, y = data(n, K, 0)
    pt, _ = data(n, K, 1)
    fitted = OneVsRestCalibrator().fit(p, y)
    for step, fn in (("fit", lambda: OneVsRestCalibrator().fit(p, y)),
                     ("predict_proba", lambda: fitted.predict_proba(pt))):
        timing = measure(fn, repeats=2)
        lines.append(f"| {step} | {fmt_time(timing.cpu_best)} ({fmt_time(timing.cpu_median)}) |")
        log(lines[-1])

    lines += ["", "## predict_proba beside K calls of np.searchsorted (same sizes)", "",
              "| n, K | predict_proba CPU best | K x np.searchsorted CPU best | ratio |",
              "|---|---|---|---|"]
    for n, K in ((10_000, 10), (100_000, 100)):
        p, y = data(n, K, 0)
        pt, _ = data(n, K, 1)
        fitted = OneVsRestCalibrator().fit(p, y)
        tables = [cal.scores_ for cal in fitted.calibrators_]
        columns = [np.ascontiguousarray(pt[:, k]) for k in range(K)]
        ours = measure(lambda: fitted.predict_proba(pt), repeats=args.repeats)
        numpy = measure(lambda: [np.searchsorted(t, q) for t, q in zip(tables, columns)],
                        repeats=args.repeats)
        lines.append(f"| {n:,}, {K} | {fmt_time(ours.cpu_best)} | {fmt_time(numpy.cpu_best)} | "
                     f"{ours.cpu_best / numpy.cpu_best:.2f} |")
        log(lines[-1])
    lines += ["", f"- load average at the end: {load_average()}"]
    save_report("\n".join(lines), "multiclass", args.output)


if __name__ == "__main__":
    sys.exit(main())
