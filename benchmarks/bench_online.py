"""Speed benchmark of the online Jumper objects (paper 002), ``venncal.online``.

Measures, on synthetic streams (base forecasts ``p ~ U[0.1, 0.9]``, labels
``y ~ Bernoulli(min(p + 0.1, 1))``: a base model that underestimates, so the
martingale grows) of the Bank Marketing test length (45,211 steps) and of
1e6 and 1e7 steps:

* ``JumperMartingale(jump_rate=0.01).run(p, y)`` with the quadratic family,
  ``|E| = 5`` (validation, family tables and kernel: everything a user pays),
  per step, amortised; target <= 0.3 us per step;
* the same for ``MeanJumper()`` (four rates, so about four Jumpers);
* the kernel alone (tables precomputed) and the family table alone;
* ``learn_one`` and ``predict_proba_one`` per call (the Python overhead of a
  live stream), on the first 20,000 steps;
* the first call in a fresh process (numba compilation, or loading it from
  the on-disk cache);
* PyPI ``protected-classification`` (its ``ProtectedClassification`` on
  ``test_probs=[1 - p, p]`` and ``y``), when it is importable, on the
  Bank-length stream.  It implements the later Composite Jumper with Cox
  calibrators (a different computation), so this compares cost per step on
  the same stream, not results.

Times are the best of ``--repeat`` runs after a warm-up run that is not
counted (numba compiles the kernels on the first call, or loads them from its
cache), both wall clock and process CPU time (CPU time is the fairer number on
a shared machine).  It also checks the identity ``log10 S_N = L_base -
L_protected`` on every stream.

This is a script, not a test: ``python benchmarks/bench_online.py``.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys

import numpy as np

from _harness import Clock, add_sizes, machine_lines, measure, save_report, version

BANK_LENGTH = 45_211
TARGET_NS = 300.0


def stream(n: int, seed: int = 2021) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.1, 0.9, n)
    return p, (rng.random(n) < np.minimum(p + 0.1, 1.0)).astype(np.int64)


def best(fn, repeat: int) -> tuple[float, float]:
    """Best wall-clock and best CPU seconds of ``repeat`` calls after a warm-up call."""
    t = measure(fn, repeats=repeat)
    return t.best, t.cpu_best


def log10_loss(q: np.ndarray, y01: np.ndarray) -> float:
    return -math.fsum(np.log10(np.where(y01, q, 1.0 - q)))


def time_stream(n: int, repeat: int) -> list[tuple[str, int, float, float, str]]:
    from venncal._kernels.jumper import jumper_run
    from venncal.online import JumperMartingale, MeanJumper, quadratic

    p, y = stream(n)
    rows = []
    for name, make in [("JumperMartingale.run", lambda: JumperMartingale(jump_rate=0.01)),
                       ("MeanJumper.run", MeanJumper)]:
        obj = make()
        obj.run(p[:10], y[:10])  # compile (or load from the cache)

        def go(obj=obj):
            obj.reset()
            return obj.run(p, y)

        wall, cpu = best(go, repeat)
        res = go()
        gap = log10_loss(p, y == 1) - log10_loss(res.protected_proba, y == 1)
        rel = abs(res.log10_final - gap) / abs(gap)
        note = f"log10 S_N = {res.log10_final:.1f}; identity rel err {rel:.1e}"
        rows.append((name, n, wall, cpu, note))
    fam = quadratic()
    wall, cpu = best(lambda: fam.table(p), repeat)
    rows.append(("family table (K=5)", n, wall, cpu, "numpy, one (5, n) table"))
    table = fam.table(p)
    y01 = y == 1
    rates = np.array([0.01])

    def kernel():
        jumper_run(p, y01, table, rates, np.full((1, 5), 0.2), np.zeros(1), np.zeros(1),
                   np.empty(n), np.empty(n))

    wall, cpu = best(kernel, repeat)
    rows.append(("kernel alone (R=1)", n, wall, cpu, "one call on precomputed tables"))
    return rows


def time_per_call(steps: int, repeat: int) -> list[tuple[str, int, float, float, str]]:
    from venncal.online import JumperMartingale

    p, y = stream(steps)
    pl, yl = p.tolist(), y.tolist()
    rows = []
    mart = JumperMartingale(jump_rate=0.01)
    mart.learn_one(0.5, 1)

    def learn():
        mart.reset()
        mart.learn_one(0.5, 1)  # the first label fixes the classes (batch path)
        for pi, yi in zip(pl, yl, strict=True):
            mart.learn_one(pi, yi)

    wall, cpu = best(learn, repeat)
    rows.append(("learn_one (per call)", steps, wall, cpu, "python floats and ints"))

    def predict():
        for pi in pl:
            mart.predict_proba_one(pi)

    wall, cpu = best(predict, repeat)
    rows.append(("predict_proba_one (per call)", steps, wall, cpu, "returns {label: prob}"))
    return rows


def first_call() -> str:
    code = ("import time; t=time.perf_counter(); import numpy as np; "
            "from venncal.online import JumperMartingale; t1=time.perf_counter(); "
            "JumperMartingale().run(np.array([0.3, 0.6]), np.array([0, 1])); "
            "t2=time.perf_counter(); print(f'{t1-t:.2f} {t2-t1:.2f}')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    imp, call = out.stdout.split()
    return f"fresh process: import {imp} s, first run (compile or cache load) {call} s"


def time_protected_classification(n: int) -> tuple[str, int, float, float, str] | None:
    try:
        from protected_classification import ProtectedClassification
    except ImportError:
        return None
    p, y = stream(n)
    probs = np.c_[1.0 - p, p]
    with Clock() as clock:  # one run, no warm-up (pure Python: nothing to compile)
        ProtectedClassification().predict_proba(test_probs=probs, y=y)
    return (f"protected-classification {version('protected-classification')}", n, clock.wall,
            clock.cpu,
            "Composite Jumper, Cox betas (1, 0.5, 2), 3 rates; pure Python")


def report(rows, extra: list[str], args, argv=None) -> str:
    lines = ["# venncal online benchmark", "", *machine_lines(argv), "",
             "| what | steps | best wall | best CPU | CPU ns/step | notes |",
             "|---|---:|---:|---:|---:|---|"]
    for name, n, wall, cpu, note in rows:
        per = cpu / n * 1e9
        lines.append(f"| {name} | {n:,} | {wall:.4f} s | {cpu:.4f} s | {per:,.1f} | {note} |")
    lines += [""] + [f"- {e}" for e in extra]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_sizes(parser, (BANK_LENGTH, 10**6, 10**7), help="stream lengths")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--calls", type=int, default=20_000, help="steps for learn_one timing")
    parser.add_argument("--reference-steps", type=int, default=BANK_LENGTH,
                        help="steps for protected-classification (0: skip)")
    parser.add_argument("-o", "--output", help="also write the Markdown report here")
    args = parser.parse_args(argv)
    rows = []
    for n in args.sizes:
        rows += time_stream(n, args.repeat if n <= 10**6 else max(1, args.repeat // 2))
    rows += time_per_call(args.calls, max(1, args.repeat // 2))
    extra = [first_call()]
    jumper = [r for r in rows if r[0] == "JumperMartingale.run"]
    ok = all(r[3] / r[1] * 1e9 <= TARGET_NS for r in jumper)
    extra.append(f"Target `run` <= {TARGET_NS:.0f} ns/step (CPU time, |E| = 5): "
                 f"{'PASS' if ok else 'FAIL'} at every size")
    if args.reference_steps:
        ref = time_protected_classification(args.reference_steps)
        if ref is None:
            extra.append("protected-classification: not installed (skipped)")
        else:
            rows.append(ref)
            ours = next(r for r in jumper if r[1] == args.reference_steps) if any(
                r[1] == args.reference_steps for r in jumper) else None
            if ours is not None:
                extra.append(f"protected-classification / JumperMartingale.run, CPU time on the "
                             f"same stream: {ref[3] / ours[3]:,.0f}x")
    text = report(rows, extra, args, argv)
    print(text)
    if args.output:
        save_report(text, "online", args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
