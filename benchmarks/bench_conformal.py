"""Speed (and one drift check) of label-free monitoring: ``venncal.online.ConformalMartingale``.

Measures, on i.i.d. normal scores (1e6 by default; ``--sizes``):

* ``conformal_pvalues(scores, nonconformity=...)``: the smoothed conformal p-values of
  each score against the scores before it, for "high", "low" and "two-sided"
  (``O(n log n)``: a Fenwick tree on ranks); target <= 1 s for 1e6 scores;
* ``ConformalMartingale(betting).run(scores)``: p-values and martingale path, for the
  Simple Jumper and the composite;
* the betting kernel alone (``jumper_bet`` on precomputed p-values), per step; target
  <= 0.3 us a step (the martingale path);
* ``learn_one(score)`` per call after a bag of 1e5 scores (the treap path);
* the quadratic baseline: crepes computes its semi-online p-values in ``O(n^2)``.
  crepes is not installed in the project's environment (the script says whether it is
  importable), so the script times the same ``O(n^2)`` count in numpy
  (``(a[:n] > a[n]).sum()`` per step) on ``--quadratic`` scores and extrapolates it to
  the measured sizes;
* drift (``--no-drift`` skips it): a logistic regression trained on the Adult training
  file scores the test file; the stream is 5,000 random test rows, then rows of an
  older population (2,000 rows with age >= 50); it reports the steps after the shift until
  ``S >= 100``, median over 20 random streams, per betting and nonconformity.

Times are best of ``--repeat`` after a warm-up call that is not counted (numba loads or
compiles the kernels then), wall clock and process CPU time.

This is a script, not a test: ``python benchmarks/bench_conformal.py [--save]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import time

import numpy as np

from _harness import add_sizes, fmt_time, load_average, machine_lines, measure, save_report

TARGET_PVALUES_S = 1.0
TARGET_STEP_NS = 300.0
AFTER = 2000  # scores after the shift in the drift check


def time_pvalues(n: int, repeat: int) -> list[str]:
    from venncal._kernels.conformal import jumper_bet
    from venncal.online import ConformalMartingale
    from venncal.online.conformal import conformal_pvalues

    scores = np.random.default_rng(2026).normal(size=n)
    rows = []
    for kind in ("high", "low", "two-sided"):
        t = measure(lambda k=kind: conformal_pvalues(scores, nonconformity=k), repeats=repeat)
        ok = "PASS" if t.cpu_best <= TARGET_PVALUES_S else "FAIL"
        rows.append(f"| `conformal_pvalues` {kind} | {n:,} | {fmt_time(t.best)} | "
                    f"{fmt_time(t.cpu_best)} | {t.cpu_best / n * 1e9:,.0f} | {ok} (<= 1 s) |")
    for betting in ("simple-jumper", "composite"):
        t = measure(lambda b=betting: ConformalMartingale(b).run(scores), repeats=repeat)
        rows.append(f"| `ConformalMartingale('{betting}').run` | {n:,} | {fmt_time(t.best)} | "
                    f"{fmt_time(t.cpu_best)} | {t.cpu_best / n * 1e9:,.0f} | |")
    p = conformal_pvalues(scores)
    for eps, rates, name in (((-1.0, 0.0, 1.0), (0.01,), "simple-jumper"),
                             ((-1.0, -0.5, 0.0, 0.5, 1.0), (0.1, 0.01, 0.001), "composite")):
        e, r = np.array(eps), np.array(rates)

        def bet(e=e, r=r):
            w = np.full((r.shape[0], e.shape[0]), 1.0 / e.shape[0])
            out, fac = np.empty(n), np.empty(n)
            jumper_bet(p, e, r, w, np.zeros(r.shape[0]), np.zeros(r.shape[0]), out, fac)

        t = measure(bet, repeats=repeat)
        ns = t.cpu_best / n * 1e9
        ok = "PASS" if ns <= TARGET_STEP_NS else "FAIL"
        rows.append(f"| martingale path alone ({name}) | {n:,} | {fmt_time(t.best)} | "
                    f"{fmt_time(t.cpu_best)} | {ns:,.0f} | {ok} (<= 300 ns/step) |")
    return rows


def time_learn_one(bag: int, calls: int) -> str:
    from venncal.online import ConformalMartingale

    rng = np.random.default_rng(7)
    cm = ConformalMartingale("composite", nonconformity="two-sided")
    cm.learn_many(rng.normal(size=bag))
    zs = rng.normal(size=calls).tolist()
    cm.learn_one(zs[0])
    t0, c0 = time.perf_counter(), time.process_time()
    for z in zs[1:]:
        cm.learn_one(z)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    k = calls - 1
    return (f"| `learn_one` (composite, two-sided) after {bag:,} scores | {k:,} calls | "
            f"{fmt_time(wall / k)} | {fmt_time(cpu / k)} | {cpu / k * 1e9:,.0f} | per call |")


def time_quadratic(n_quad: int, sizes: list[int]) -> list[str]:
    a = np.random.default_rng(3).normal(size=n_quad)
    u = np.random.default_rng(4).random(n_quad)
    t0, c0 = time.perf_counter(), time.process_time()
    out = np.empty(n_quad)
    for i in range(n_quad):
        head = a[: i + 1]
        out[i] = ((head > a[i]).sum() + u[i] * (head == a[i]).sum()) / (i + 1)
    cpu = time.process_time() - c0
    wall = time.perf_counter() - t0
    rows = [f"| O(n^2) count in numpy (crepes-style) | {n_quad:,} | {fmt_time(wall)} | "
            f"{fmt_time(cpu)} | {cpu / n_quad * 1e9:,.0f} | measured |"]
    for n in sizes:
        est = cpu * (n / n_quad) ** 2
        rows.append(f"| O(n^2) count, extrapolated | {n:,} | | ~{fmt_time(est)} | "
                    f"{est / n * 1e9:,.0f} | (n / {n_quad:,})^2 |")
    return rows


def steps_to_alarm(n_streams: int = 20) -> list[str]:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from venncal.datasets import load_adult
    from venncal.online import ConformalMartingale

    X, y, names = load_adult("train")
    Xt, _, _ = load_adult("test")
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X, y)
    scores = model.predict_proba(Xt)[:, 1]
    age = Xt[:, names.index("age")]
    old = np.flatnonzero(age >= 50)
    rows = [f"Adult test scores: mean {scores.mean():.3f}; rows with age >= 50: "
            f"{old.size:,}, their mean score {scores[old].mean():.3f}. Steps after the shift "
            f"(5,000 random rows, then {AFTER:,} rows with age >= 50) until S >= 100; median "
            f"[min, max] over {n_streams} random streams; alarms before the shift counted:",
            "", "| betting | nonconformity | steps to S >= 100 after the shift | "
            "false alarms before it |", "|---|---|---|---|"]
    for betting in ("simple-jumper", "composite"):
        for kind in ("high", "two-sided"):
            delays, early = [], 0
            for k in range(n_streams):
                rng = np.random.default_rng(100 + k)
                s = np.r_[scores[rng.choice(scores.size, 5000, replace=False)],
                          scores[rng.permutation(old)[:AFTER]]]
                res = ConformalMartingale(betting, nonconformity=kind, seed=k).run(s)
                hits = np.flatnonzero(res.log10_martingale >= 2.0)
                early += bool(hits.size and hits[0] < 5000)
                after = hits[hits >= 5000]
                delays.append(after[0] - 4999 if after.size else np.inf)
            d = np.array(delays)
            seen = np.isfinite(d)

            def fmt(v):
                return f"{v:,.0f}" if np.isfinite(v) else f"none in {AFTER:,}"

            rows.append(f"| {betting} | {kind} | {fmt(np.median(d))} [{fmt(d.min())}, "
                        f"{fmt(d.max())}]; alarm in {int(seen.sum())} of {n_streams} | "
                        f"{early} of {n_streams} |")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_sizes(parser, (10**6,), help="numbers of scores")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--calls", type=int, default=20_000, help="learn_one calls timed")
    parser.add_argument("--quadratic", type=int, default=20_000,
                        help="scores for the O(n^2) baseline (0: skip)")
    parser.add_argument("--no-drift", action="store_true", help="skip the Adult drift check")
    parser.add_argument("--save", action="store_true", help="write benchmarks/results/...")
    args = parser.parse_args(argv)
    lines = ["# Label-free monitoring: conformal test martingales", "",
             *machine_lines(argv), "",
             "| what | n | wall (best) | CPU (best) | CPU ns per score | target |",
             "|---|---|---|---|---|---|"]
    for n in args.sizes:
        lines += time_pvalues(n, args.repeat)
    lines.append(time_learn_one(10**5, args.calls))
    crepes = importlib.util.find_spec("crepes") is not None
    if args.quadratic:
        lines += time_quadratic(args.quadratic, list(args.sizes))
    lines += ["", f"crepes importable: {'yes' if crepes else 'no (not installed here)'}; "
              "its semi-online p-values are the O(n^2) count above."]
    if not args.no_drift:
        lines += ["", *steps_to_alarm()]
    lines += ["", f"Load average at the end: {load_average()}"]
    text = "\n".join(lines)
    print(text)
    if args.save:
        save_report(text, "conformal")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
