"""Speed benchmark of the score-level inductive Venn-Abers predictor (IVAP).

Measures, side by side in one run and on the same synthetic data,

* ``np.sort`` / ``np.argsort`` of the calibration scores (floors for fit),
* ``VennAbersCalibrator().fit`` (unweighted and weighted),
* ``np.searchsorted`` of the test scores into the sorted calibration scores
  (floor for predict) and ``predict_interval`` / ``predict_proba``,
* scikit-learn ``IsotonicRegression(out_of_bounds="clip")`` fit and predict,
* the ``venn-abers`` PyPI package and MAPIE's Venn-Abers, when installed,
  only up to ``--reference-max`` (they are roughly quadratic),

checks that venncal and the reference packages give the same ``(p0, p1)``,
and measures the first-call cost (numba compilation with a cold and a warm
on-disk cache) in subprocesses.  See ``benchmarks/README.md``.

This is a script, not a test: run it with ``python benchmarks/bench_ivap.py``.
"""

from __future__ import annotations

# Only the standard library at module level: the first-call child process
# (_ivap_first_call.py) imports make_data from here, and times the imports of numpy,
# numba, scikit-learn and venncal itself.
import argparse
import gc
import sys
from dataclasses import dataclass
from pathlib import Path

from _harness import (
    Timing,
    add_sizes,
    fmt_k,
    fmt_time,
    load_average,
    log,
    machine_lines,
    measure,
    mem_available,
    parse_size,
    save_report,
    version,
)
from _ivap_first_call import first_call_cost, first_call_table
from _ivap_references import (
    Reference,
    agreement_table,
    check_agreement,
    load_mapie,
    load_venn_abers,
)

DEFAULT_SIZES = (10**3, 10**4, 10**5, 10**6, 10**7)
# Peak resident memory per calibration score, measured at k = 1e7 (about
# 190 bytes: scores, labels, weights, test scores, sorted copies, the venncal
# tables and scikit-learn's internal copies), rounded up for safety.
BYTES_PER_SCORE = 300
TARGET_K = 10**6
FIT_TARGET = 10.0  # venncal fit <= 10x np.sort
PREDICT_TARGET = 2.0  # venncal predict_interval <= 2x np.searchsorted


# --------------------------------------------------------------------------
# The benchmark proper

COLUMNS = [
    "k",
    "np.sort",
    "venncal fit",
    "fit / sort",
    "np.argsort",
    "venncal fit (weighted)",
    "weighted fit / argsort",
    "np.searchsorted",
    "venncal predict_interval",
    "predict / searchsorted",
    "venncal predict_proba",
    "sklearn isotonic fit",
    "sklearn isotonic predict",
    "venn-abers fit+predict",
    "MAPIE fit+predict",
    "venn-abers / venncal",
]
RATIOS = {
    "fit / sort": ("venncal fit", "np.sort"),
    "weighted fit / argsort": ("venncal fit (weighted)", "np.argsort"),
    "predict / searchsorted": ("venncal predict_interval", "np.searchsorted"),
    "venn-abers / venncal": ("venn-abers fit+predict", "venncal fit+predict_proba"),
}


def make_data(k: int, seed: int, ties: bool):
    import numpy as np

    rng = np.random.default_rng([seed, k, int(ties)])
    s = rng.random(k)
    y = (rng.random(k) < s).astype(np.int64)  # Bernoulli(score)
    q = rng.random(k)  # m = k fresh test scores
    w = rng.uniform(0.5, 2.0, k)
    if ties:
        s = np.round(s, 3)
        q = np.round(q, 3)
    return s, y, q, w


def bench_size(k, args, refs, ties):
    """Time every operation at one size; return (row, agreement rows, k')."""
    import numpy as np
    from sklearn.isotonic import IsotonicRegression

    from venncal import VennAbersCalibrator

    s, y, q, w = make_data(k, args.seed, ties)
    s_sorted = np.sort(s)
    row: dict[str, object] = {}

    def run(name, fn):
        log(f"  k={fmt_k(k)}: {name} ...")
        row[name] = measure(
            fn, repeats=args.min_repeats, min_time=args.min_time, loop_below=2e-3
        )

    run("np.sort", lambda: np.sort(s))
    run("venncal fit", lambda: VennAbersCalibrator().fit(s, y))
    run("np.argsort", lambda: np.argsort(s))
    run("venncal fit (weighted)", lambda: VennAbersCalibrator().fit(s, y, sample_weight=w))
    cal = VennAbersCalibrator().fit(s, y)
    run("np.searchsorted", lambda: np.searchsorted(s_sorted, q))
    run("venncal predict_interval", lambda: cal.predict_interval(q))
    run("venncal predict_proba", lambda: cal.predict_proba(q))
    run("sklearn isotonic fit", lambda: IsotonicRegression(out_of_bounds="clip").fit(s, y))
    iso = IsotonicRegression(out_of_bounds="clip").fit(s, y)
    run("sklearn isotonic predict", lambda: iso.predict(q))
    fit_t, prob_t = row["venncal fit"], row["venncal predict_proba"]
    row["venncal fit+predict_proba"] = Sum(
        fit_t.best + prob_t.best, fit_t.median + prob_t.median
    )

    agreement = []
    p_cal = np.column_stack((1.0 - s, s))
    p_test = np.column_stack((1.0 - q, q))
    for ref in refs:
        col = f"{ref.name} fit+predict"
        if ref.status != "ok":
            row[col] = "not installed" if ref.status.startswith("not installed") else "n/a"
            continue
        if k > args.reference_max:
            row[col] = "skipped (too slow)"
            continue
        try:
            run(col, lambda ref=ref: ref.fit_predict(p_cal, y, p_test))
            agreement.extend(check_agreement(ref, cal, s, y, q, k))
        except Exception as exc:  # noqa: BLE001 - report, do not fail the benchmark
            row[col] = "error (see notes)"
            ref.notes.append(f"{ref.name} failed at k={fmt_k(k)}: {type(exc).__name__}: {exc}")
    return row, agreement, int(cal.scores_.shape[0])


# --------------------------------------------------------------------------
# Report


@dataclass(frozen=True)
class Sum:
    """Two measurements added (best and median), for a ratio."""

    best: float
    median: float


def cell(row: dict, col: str, stat: str) -> str:
    if col in RATIOS:
        num, den = (row.get(c) for c in RATIOS[col])
        if isinstance(num, Timing | Sum) and isinstance(den, Timing | Sum):
            return f"{getattr(num, stat) / getattr(den, stat):.2f}x"
        return "-"
    value = row.get(col, "-")
    if isinstance(value, Timing):
        text = fmt_time(getattr(value, stat))
        if stat == "median" and value.samples:
            text += f" (n={value.samples})"
        return text
    return str(value)


def results_table(rows: dict[int, dict], stat: str) -> str:
    lines = [
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "|".join("---:" for _ in COLUMNS) + "|",
    ]
    for k, row in rows.items():
        if isinstance(row, str):
            cells = [fmt_k(k), row] + ["-"] * (len(COLUMNS) - 2)
        else:
            cells = [fmt_k(k)] + [cell(row, c, stat) for c in COLUMNS[1:]]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def targets(rows: dict[int, dict]) -> list[str]:
    row = rows.get(TARGET_K)
    if not isinstance(row, dict):
        return [f"Targets not measured: k={fmt_k(TARGET_K)} is not among the sizes run."]
    out = []
    for what, num, den, limit in (
        ("venncal fit", "venncal fit", "np.sort", FIT_TARGET),
        ("venncal predict_interval", "venncal predict_interval", "np.searchsorted", PREDICT_TARGET),
    ):
        a, b = row[num], row[den]
        ratio, ratio_med = a.best / b.best, a.median / b.median
        verdict = "PASS" if ratio <= limit else "FAIL"
        out.append(
            f"- **{verdict}** {what} at k={fmt_k(TARGET_K)} <= {limit:g}x {den}: "
            f"{fmt_time(a.best)} vs {fmt_time(b.best)} = {ratio:.2f}x (best of N; "
            f"median-based {ratio_med:.2f}x)"
        )
    return out


def numpy_simd() -> str:
    """The widest x86 SIMD numpy dispatches to (its sort uses it)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as feats
    except ImportError:
        return "?"
    return "AVX512_SKX" if feats.get("AVX512_SKX") else "AVX2" if feats.get("AVX2") else "-"


# --------------------------------------------------------------------------
# Main


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Speed benchmark of venncal's score-level IVAP (VennAbersCalibrator).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_sizes(p, DEFAULT_SIZES, help="calibration sizes k (m = k test scores)")
    p.add_argument(
        "--ties", action="store_true", help="also run on tied data: scores rounded to 3 decimals"
    )
    p.add_argument(
        "--reference-max",
        type=parse_size,
        default=10**5,
        help="largest k at which venn-abers and MAPIE are run (they are slow)",
    )
    p.add_argument(
        "--no-reference", action="store_true", help="do not run venn-abers and MAPIE at all"
    )
    p.add_argument(
        "--min-time",
        type=float,
        default=1.0,
        help="seconds of samples per measurement (at least --min-repeats samples)",
    )
    p.add_argument("--min-repeats", type=int, default=3, help="minimum samples per measurement")
    p.add_argument("--seed", type=int, default=20240601)
    p.add_argument(
        "--first-call-k",
        type=parse_size,
        default=1000,
        help="data size of the first-call measurement",
    )
    p.add_argument(
        "--first-call-repeats",
        type=int,
        default=3,
        help="cold/warm subprocess pairs for the first-call cost (0 to skip)",
    )
    p.add_argument(
        "--save", action="store_true", help="write the report to benchmarks/results/ivap-<date>.md"
    )
    p.add_argument(
        "--output",
        type=Path,
        default=None,
        help="write the report to this file instead (implies --save)",
    )
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    sizes = sorted(args.sizes)
    info = machine_lines(argv)
    info += [f"- numpy SIMD: {numpy_simd()}; venn-abers {version('venn-abers')}, MAPIE "
             f"{version('mapie')}"]
    log("\n".join(info))
    refs: list[Reference] = []
    if not args.no_reference:
        refs = [load_venn_abers(), load_mapie()]
        for ref in refs:
            log(f"{ref.name}: {ref.status}" + (f" via {ref.entry}" if ref.entry else ""))

    datasets = [("continuous", False)] + ([("ties", True)] if args.ties else [])
    results: dict[str, dict] = {}
    agreement: dict[str, list] = {}
    distinct: dict[str, dict[int, int]] = {}
    skipped: list[str] = []
    for name, ties in datasets:
        rows: dict[int, object] = {}
        agreement[name] = []
        distinct[name] = {}
        for k in sizes:
            avail = mem_available()
            need = BYTES_PER_SCORE * k
            if avail is not None and need > 0.8 * avail:
                msg = (
                    f"skipped (needs ~{need / 1024**3:.1f} GiB, "
                    f"{avail / 1024**3:.1f} GiB available)"
                )
                rows[k] = msg
                skipped.append(f"{name} k={fmt_k(k)}: {msg}")
                log(f"{name} k={fmt_k(k)}: {msg}")
                continue
            log(f"{name} data, k={fmt_k(k)}")
            row, agr, kd = bench_size(k, args, refs, ties)
            rows[k] = row
            agreement[name].extend(agr)
            distinct[name][k] = kd
            gc.collect()
        results[name] = rows

    first = None
    if args.first_call_repeats > 0:
        first = first_call_cost(args)

    out = [
        "# venncal IVAP speed benchmark",
        "",
        *info,
        f"- load average (1 / 5 / 15 min) at end: {load_average()}",
        (
            f"- timing: warm-up call (not counted), then samples until {args.min_time:g} s "
            f"and at least {args.min_repeats} samples (calls under 2 ms looped inside a sample); "
            "time.perf_counter; per-call times; m = k fresh test scores"
        ),
        "",
    ]
    for name, _ in datasets:
        rows = results[name]
        title = (
            "Continuous scores: s ~ U[0, 1] (distinct), y ~ Bernoulli(s)"
            if name == "continuous"
            else "Tied scores: s ~ U[0, 1] rounded to 3 decimals, y ~ Bernoulli(s)"
        )
        out += [
            f"## {title}",
            "",
            "Distinct calibration scores k': "
            + ", ".join(f"{fmt_k(k)}: {v:,}" for k, v in distinct[name].items()),
            "",
            "### Best of N (minimum per call)",
            "",
            results_table(rows, "best"),
            "",
            "### Median per call (n = number of samples)",
            "",
            results_table(rows, "median"),
            "",
        ]
        if name == "continuous":
            out += [
                "### Targets (goals of the project, measured, not tests)",
                "",
                *targets(rows),
                "",
            ]
        out += [
            f"### Agreement with the reference packages ({name} data)",
            "",
            agreement_table(agreement[name]),
            "",
        ]
    if first is not None:
        out += [
            (
                "## First-call cost (fresh interpreters; NUMBA_CACHE_DIR = a new temporary "
                "directory for the cold run, the same one for the warm run)"
            ),
            "",
            first_call_table(first, args.first_call_k),
            "",
        ]
    notes = [n for ref in refs for n in ref.notes]
    notes += [f"{ref.name}: {ref.status}" for ref in refs if ref.status != "ok"]
    if refs:
        notes.append(
            f"venn-abers and MAPIE are run only for k <= {fmt_k(args.reference_max)} "
            "(--reference-max): their fit is roughly quadratic in the number of "
            "distinct scores (a minute at 1e6)."
        )
    notes.append(
        "'venn-abers / venncal' compares the reference's fit + predict_proba with "
        "venncal fit + predict_proba (sum of the two measurements)."
    )
    notes += skipped
    out += ["## Notes", "", *[f"- {n}" for n in notes], ""]
    report = "\n".join(out)
    print(report)

    if args.save or args.output:
        save_report(report, "ivap", args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
