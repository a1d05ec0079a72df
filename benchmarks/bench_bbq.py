"""Speed benchmark of the BBQ calibrator (Bayesian Binning into Quantiles).

Measures, side by side in one run and on the same synthetic data,

* ``np.sort`` of the calibration scores (the floor for fit),
* ``BBQCalibrator().fit`` (validation, summary and the models),
  ``fit_summary`` on a prebuilt summary (the models alone) and a weighted fit,
* ``np.searchsorted`` of the test scores into the sorted calibration scores
  (a floor for predict) and ``predict_proba``,
* netcal's ``BBQ`` (``netcal.binning.BBQ``) when netcal is installed, up to
  ``--reference-max`` (it pulls in PyTorch, so it is optional).

Data: calibration scores ``s ~ U[0, 1]``, labels ``y ~ Bernoulli(s)``, as
many fresh ``U[0, 1]`` test scores.  Times are wall clock, per call: the
minimum (best of N) and the median over the samples taken after a warm-up
call (which also compiles the numba summary kernels).

This is a script, not a test::

    python benchmarks/bench_bbq.py                       # 1e4, 1e5, 1e6
    python benchmarks/bench_bbq.py --sizes 1e6 --min-time 3
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from venncal import ScoreSummary
from venncal.baselines.bbq import BBQCalibrator

from _harness import add_sizes, fmt_fixed, log, machine_lines, measure, version

DEFAULT_SIZES = (10**4, 10**5, 10**6)
FIT_TARGET_SECONDS = 0.5  # fit at k = 1e6, summary included


def load_netcal():
    """netcal's BBQ as ``fit_predict(s, y, q) -> p``, or (None, reason)."""
    try:
        from netcal.binning import BBQ
    except (ImportError, OSError, RuntimeError) as exc:  # also a broken torch install
        return None, f"netcal not available ({type(exc).__name__}: {exc})"

    def fit_predict(s, y, q):
        model = BBQ()
        model.fit(s, y)
        return np.asarray(model.transform(q), dtype=float).ravel()

    return fit_predict, "netcal " + version("netcal")


def run(k, args, netcal):
    rng = np.random.default_rng(k)
    s = rng.uniform(size=k)
    y = rng.uniform(size=k) < s
    w = rng.uniform(0.5, 2.0, size=k)
    q = rng.uniform(size=k)
    summary = ScoreSummary.from_arrays(s, y)
    cal = BBQCalibrator().fit(s, y)
    sorted_s = np.sort(s)

    def timed(fn):
        t = measure(fn, repeats=args.min_repeats, min_time=args.min_time)
        return t.best, t.median

    row = {
        "k": k,
        "models": int(cal.n_bins_.shape[0]),
        "bins": f"{int(cal.n_bins_.min())}-{int(cal.n_bins_.max())}",
        "thresholds": int(cal.thresholds_.shape[0]),
        "sort": timed(lambda: np.sort(s)),
        "fit": timed(lambda: BBQCalibrator().fit(s, y)),
        "fit_summary": timed(lambda: BBQCalibrator().fit_summary(summary)),
        "fit_weighted": timed(lambda: BBQCalibrator().fit(s, y, sample_weight=w)),
        "searchsorted": timed(lambda: np.searchsorted(sorted_s, q)),
        "predict": timed(lambda: cal.predict_proba(q)),
        "netcal": None,
        "netcal_diff": None,
    }
    if netcal is not None and k <= args.reference_max:
        row["netcal"] = timed(lambda: netcal(s, y, q))
        row["netcal_diff"] = float(np.abs(netcal(s, y, q) - cal.predict_proba(q)[:, 1]).max())
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_sizes(parser, DEFAULT_SIZES, help="calibration sizes k")
    parser.add_argument("--min-time", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument("--min-repeats", type=int, default=5, help="samples per measurement")
    parser.add_argument("--reference-max", type=float, default=1e5, help="largest k for netcal")
    parser.add_argument("--no-reference", action="store_true", help="skip netcal")
    args = parser.parse_args(argv)
    netcal, note = (None, "skipped (--no-reference)") if args.no_reference else load_netcal()
    print("# BBQ benchmark\n")
    print("\n".join([*machine_lines(argv), f"- reference: {note}"]) + "\n")
    rows = []
    for k in args.sizes:
        log(f"k = {k} ...")
        rows.append(run(k, args, netcal))

    for title, pick in (("Best of N", 0), ("Median", 1)):
        print(f"## {title} (seconds per call)\n")
        print(
            "| k | models | bins | thresholds | np.sort | fit | fit_summary | fit (weighted) "
            "| fit / sort | np.searchsorted | predict_proba | netcal fit+predict |"
        )
        print("|---:" * 12 + "|")
        for r in rows:
            ratio = r["fit"][pick] / r["sort"][pick]
            net = fmt_fixed(r["netcal"][pick]) if r["netcal"] else "-"
            print(
                f"| {r['k']:.0e} | {r['models']} | {r['bins']} | {r['thresholds']} "
                f"| {fmt_fixed(r['sort'][pick])} | {fmt_fixed(r['fit'][pick])} "
                f"| {fmt_fixed(r['fit_summary'][pick])} | {fmt_fixed(r['fit_weighted'][pick])} "
                f"| {ratio:.1f} | {fmt_fixed(r['searchsorted'][pick])} "
                f"| {fmt_fixed(r['predict'][pick])} | {net} |"
            )
        print()

    diffs = [(r["k"], r["netcal_diff"]) for r in rows if r["netcal_diff"] is not None]
    if diffs:
        print("max |venncal - netcal| on the test scores (different bin/prior conventions):")
        for k, d in diffs:
            print(f"  k = {k:.0e}: {d:.3g}")
        print()
    at_target = [r for r in rows if r["k"] == 10**6]
    if at_target:
        best = at_target[0]["fit"][0]
        verdict = "PASS" if best <= FIT_TARGET_SECONDS else "FAIL"
        print(
            f"Target: fit at k = 1e6 <= {FIT_TARGET_SECONDS} s (summary included): "
            f"{fmt_fixed(best)} best of N -> {verdict}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
