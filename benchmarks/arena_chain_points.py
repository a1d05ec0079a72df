"""The arena's chain target for each point rule of the K-class chains (issue 25).

Target (1) of the calibration arena: a chain "parametric first stage -> one-vs-rest
Venn-Abers" within 1 % of its first stage's test log loss on at least 80 % of the
multiclass tasks.  This script runs only what that target needs on the arena's own
multiclass tasks (iris, wine, digits under five models, synthetic K = 10 and K = 100
logits; :func:`venncal.experiments.calibration_arena.default_specs`), through the arena's
own ``run`` (the same task builder, seeds, fitting and scoring): the three first stages
(temperature, vector scaling, structured matrix scaling) and, for each, the chains with
``point="then"`` (vector and SMS are arena extras), ``"clip"`` and ``"cap"``.  No
comparison ("venncal recommends") is run, so it takes a fraction of the full arena.

This is a script, not a test::

    python benchmarks/arena_chain_points.py --seed 0 --jobs 2
    python benchmarks/arena_chain_points.py --seed 20261128 --jobs 2 --out chains.json
    python benchmarks/arena_chain_points.py --seed 20261128 --excursion
    python benchmarks/arena_chain_points.py --seed 20261128 --skip-k100 --recommend RUN

``--recommend RUN`` runs every method of the multiclass tasks and "venncal recommends"
too (the full arena's multiclass part) and writes the arena's report to ``RUN``;
``--skip-k100`` leaves out the K = 100 tasks (about 80 % of the multiclass part's time).

``--excursion`` measures instead how far ``point="cap"``'s renormalisation lifts a class
above the upper end of its interval (temperature scaling's chain, every multiclass task
but K = 100, its test rows): the share of class probabilities above it, and the largest
excess.
"""

from __future__ import annotations

import argparse
import json
import time

from venncal.experiments import calibration_arena
from venncal.experiments._arena_summary import CHAIN_TOLERANCE, chain_target

FIRSTS = ("temperature", "vector-scaling", "structured-matrix-scaling")
POINTS = ("", "-clip", "-cap")


def excursion(seed: int) -> None:
    """Print how far the guarded chains' renormalisation moves classes out of their intervals."""
    import warnings

    import numpy as np

    from venncal import ChainedCalibrator, OneVsRestCalibrator, VennAbersCalibrator
    from venncal.experiments._arena_tasks import build_task
    from venncal.parametric import TemperatureCalibrator

    specs = [s for s in calibration_arena.default_specs(False, calibration_arena.REPS[False],
                                                        False)
             if s.group in ("multiclass", "synthetic-multiclass") and "K100" not in s.data]
    cuts = (0.0, 1e-3, 1e-2, 1e-1)
    rows = 0
    out = {point: {"rows": np.zeros(len(cuts), dtype=np.int64), "worst": 0.0}
           for point in ("cap", "clip")}
    fitted = 0
    for spec in specs:
        task = build_task(spec, seed)
        then = OneVsRestCalibrator(VennAbersCalibrator(), score="proba")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                chain = ChainedCalibrator(TemperatureCalibrator(score=task.score), then,
                                          point="cap").fit(task.s_cal, task.y_cal)
            except ValueError as exc:
                print(f"  {spec.name}: not fitted ({str(exc)[:90]}...)")
                continue
        fitted += 1
        interval = chain.predict_interval(task.s_test)
        rows += interval.shape[0]
        for point, res in out.items():
            chain.set_params(point=point)  # the same fitted stages; only the point differs
            p = chain.predict_proba(task.s_test)
            outside = np.maximum(p - interval.max(axis=-1), interval.min(axis=-1) - p)
            if point == "cap":  # cap never raises: only the upper ends count
                outside = p - interval.max(axis=-1)
            worst_row = outside.max(axis=1)
            res["rows"] += [int((worst_row > c).sum()) for c in cuts]
            res["worst"] = max(res["worst"], float(worst_row.max()))
    print(f"{fitted} of {len(specs)} tasks fitted (K = 100 left out), seed {seed}, {rows:,} test "
          "rows; rows with a class outside its interval (cap: above its upper end) by more than")
    for point, res in out.items():
        shares = ", ".join(f"{c:g}: {n / rows:.1%}" for c, n in zip(cuts, res["rows"]))
        print(f"  {point:<5} {shares}; largest {res['worst']:.4f}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--reps", type=int, default=None, help="repetitions (default: the arena's)")
    parser.add_argument("--out", default=None, help="write the per-task log losses here (JSON)")
    parser.add_argument("--excursion", action="store_true",
                        help="measure the capped chain's excursions above its upper ends instead")
    parser.add_argument("--skip-k100", action="store_true", help="leave out the K = 100 tasks")
    parser.add_argument("--recommend", metavar="RUN", default=None,
                        help="run every method and 'venncal recommends'; write the report here")
    args = parser.parse_args(argv)
    if args.excursion:
        excursion(args.seed)
        return
    reps = calibration_arena.REPS[False] if args.reps is None else args.reps
    specs = [s for s in calibration_arena.default_specs(False, reps, False)
             if s.group in ("multiclass", "synthetic-multiclass")
             and not (args.skip_k100 and "K100" in s.data)]
    methods = [*FIRSTS, *(f"{f}+ovr-ivap{p}" for f in FIRSTS for p in POINTS)]
    start = time.perf_counter()
    full = args.recommend is not None
    result = calibration_arena.run(seed=args.seed, jobs=args.jobs, specs=specs,
                                   methods=None if full else methods, recommend=full, echo=print)
    seconds = time.perf_counter() - start
    if full:
        from venncal.experiments._arena_report import report

        report(result, args.recommend, command="python benchmarks/arena_chain_points.py "
               + " ".join(argv if argv is not None else __import__("sys").argv[1:]))
    print(f"\n{len(result.tasks)} multiclass tasks, seed {args.seed}, {seconds:.0f} s")
    print(f"chain within {100 * (CHAIN_TOLERANCE - 1):.0f} % of its first stage's log loss "
          "(share of tasks, tasks, median ratio):")
    target = chain_target(result.tasks)
    for chain in methods[len(FIRSTS):]:
        if chain in target:
            share, n, median = target[chain]
            print(f"  {chain:<45} {share:6.1%} of {n:>3}   median {median:.4f}")
    if args.out:
        rows = [{"task": t.spec.name, **{m: s.log_loss for m, s in t.scores.items()},
                 "failures": t.failures} for t in result.tasks]
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
