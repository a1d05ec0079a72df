"""``venncal reproduce NAME``: rerun a published experiment and compare with the paper."""

from __future__ import annotations

import argparse
import datetime
import itertools
import math
import platform
import shlex
import sys
import time
from pathlib import Path

__all__ = ["add_parser", "run"]

DEFAULT_OUT = "venncal-reproduce"


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register the ``reproduce`` subcommand.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The object returned by ``ArgumentParser.add_subparsers``.

    Returns
    -------
    argparse.ArgumentParser
        The ``reproduce`` parser.
    """
    from ..experiments import EXPERIMENTS, PLANNED

    lines = [f"  {name}: {summary}" for name, (_, summary) in EXPERIMENTS.items()]
    lines += [f"  {name}: not yet available ({summary})" for name, summary in PLANNED.items()]
    parser = subparsers.add_parser(
        "reproduce",
        help="rerun a published experiment and write a report beside the paper's numbers",
        description=(
            "Rerun an experiment of a calibration paper, print our tables beside the "
            "paper's and write DIR/report.md.\n\nexperiments:\n" + "\n".join(lines)
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("name", metavar="NAME", help="the experiment to run (see above)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smaller grids, fewer splits and a subsample of the test set (a few minutes)",
    )
    parser.add_argument(
        "--out",
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"folder for report.md (created if needed; default: {DEFAULT_OUT})",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="run the learners (vovk2014-uci: data set x learner tasks) on N processes "
        "(joblib; default: 1)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="S",
        help="seed of the learners, the random splits and the test subsample (default: 0)",
    )
    parser.add_argument(
        "--data-dir",
        default=None,
        metavar="DIR",
        help=(
            "read the data from this folder (laid out as the shared data store) instead of "
            "the files shipped with venncal; vovk2014-uci needs it or VENNCAL_DATA"
        ),
    )
    # Internal: shrink the run further (used by the test suite). --max-test-rows caps the
    # test rows (vovk2014-uci: the VA test rows per split); --datasets and --learners take
    # comma-separated subsets and --reps "N,M" the splits of vovk2014-uci.
    parser.add_argument("--max-test-rows", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--datasets", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--learners", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--reps", default=None, help=argparse.SUPPRESS)
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run ``venncal reproduce``; return the exit code (2 for an unknown experiment)."""
    from ..experiments import EXPERIMENTS, PLANNED

    name = args.name
    if name in PLANNED:
        print(f"venncal reproduce: experiment {name!r} is not yet available", file=sys.stderr)
        return 2
    if name not in EXPERIMENTS:
        known = ", ".join(EXPERIMENTS)
        print(
            f"venncal reproduce: unknown experiment {name!r} (available: {known})", file=sys.stderr
        )
        return 2
    if args.jobs < 1:
        print("venncal reproduce: --jobs must be at least 1", file=sys.stderr)
        return 2
    if name == "vovk2015-adult-small":
        return _adult_small(args)
    if name == "vovk2015-adult-ratios":
        return _adult_ratios(args)
    if name == "vovk2014-uci":
        from ._reproduce_uci import run_uci

        return run_uci(args)
    raise AssertionError(name)  # pragma: no cover


# ------------------------------------------------------------------------- adult small


def fmt_loss(v: float | None, digits: int = 4) -> str:
    """Format a loss for the reports: ``?`` for a missing value, ``inf``, ``nan`` or digits."""
    if v is None:
        return "?"
    return "inf" if math.isinf(v) else f"{v:.{digits}f}"


def _ranking(values, methods) -> str:
    """Methods from best to worst; ties (e.g. two infinities) joined by '='."""
    order = sorted(range(len(methods)), key=lambda i: values[i])
    out = methods[order[0]]
    for a, b in itertools.pairwise(order):
        out += ("=" if values[a] == values[b] else " < ") + methods[b]
    return out


def _tables(results, paper, methods, losses):
    """Markdown lines of one table per loss, and a plain-text rendering."""
    md, txt = [], []
    for loss in losses:
        head = "| learner | " + " | ".join(f"{m} ours | {m} paper" for m in methods)
        head += " | ranking ours | ranking paper |"
        md += [f"### Mean {loss}", "", head, "|" + "---|" * (1 + 2 * len(methods) + 2)]
        txt += [
            f"Mean {loss}: ours (paper)",
            f"  {'learner':<17}" + "".join(f"{m:>20}" for m in methods),
        ]
        for r in results:
            ours = [r.losses[loss][m] for m in methods]
            theirs = list(paper[loss][r.learner])
            rank_o, rank_p = _ranking(ours, methods), _ranking(theirs, methods)
            best_o, best_p = min(ours), min(theirs)
            cells = []
            for o, p in zip(ours, theirs, strict=False):
                co = f"**{fmt_loss(o)}**" if o == best_o else fmt_loss(o)
                cp = f"**{fmt_loss(p)}**" if p == best_p else fmt_loss(p)
                if math.isinf(o) != math.isinf(p):
                    co += " ⚠"
                cells += [co, cp]
            flag = "" if rank_o == rank_p else " ⚠"
            md.append(f"| {r.learner} | " + " | ".join(cells) + f" | {rank_o}{flag} | {rank_p} |")
            txt.append(
                f"  {r.learner:<17}"
                + "".join(
                    f"{fmt_loss(o) + ' (' + fmt_loss(p) + ')':>20}"
                    for o, p in zip(ours, theirs, strict=False)
                )
                + ("   ranking differs" if flag else "")
            )
        md.append("")
        txt.append("")
    return md, txt


def _adult_small(args: argparse.Namespace) -> int:
    from ..experiments import vovk2015_adult_small as exp

    start = time.perf_counter()
    out_dir = Path(args.out)
    print(f"venncal reproduce {args.name}{' --quick' if args.quick else ''}")
    result = exp.run(
        quick=args.quick,
        seed=args.seed,
        jobs=args.jobs,
        data_dir=args.data_dir,
        max_test_rows=args.max_test_rows,
        echo=print,
    )
    results = result["results"]
    md_tables, txt_tables = _tables(results, exp.PAPER_TABLES, exp.METHODS, exp.LOSSES)
    print()
    print("\n".join(txt_tables))
    elapsed = time.perf_counter() - start

    md = [f"# Reproduction: {args.name} ({_mode(args)} mode)", ""]
    md += header(
        args,
        (
            "Paper 000 (Vovk, Petej & Fedorova, *Large-scale probabilistic predictors with and "
            "without guarantees of validity*, 2015), section 6, Tables 1 (log loss) and 2 "
            "(Brier loss): the first 5,000 adult training rows (rows 1-4,000 proper training, "
            "4,001-5,000 calibration; CVAP: 5 contiguous folds over the 5,000 rows); test set "
            "= the rest of the training file and the whole test file. Mean log loss in base 2; "
            "mean Brier loss 4(y-p)^2 (the paper's scaling: predicting 1/2 costs 1)."
        ),
        elapsed,
    )
    md += [
        f"- test rows: {result['n_test']:,} of {result['n_test_total']:,}"
        + (" (seeded random subsample)" if result["n_test"] < result["n_test_total"] else ""),
        "",
        (
            "The learners are scikit-learn stand-ins for the paper's Weka learners, so equal "
            "numbers are not expected. Cells: ours, then the paper's; **bold** marks the best "
            "method of the row; ⚠ after a ranking marks a row whose method ranking differs from "
            "the paper's, ⚠ after a loss marks a finite/infinite mismatch with the paper."
        ),
        "",
    ]
    md += md_tables
    md += [
        "### Learners and chosen parameters",
        "",
        (
            "| learner | grid | chosen (calibration set) | chosen (CVAP folds) "
            "| ConvergenceWarnings | seconds |"
        ),
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        md.append(
            f"| {r.learner} | {_grid_text(exp.grid(r.learner, args.quick))} "
            f"| {r.params['calibration set']} | {r.params['CVAP folds']} "
            f"| {r.convergence_warnings} | {r.seconds:.1f} |"
        )
    md += [
        "",
        (
            "Stand-ins: J48 = DecisionTreeClassifier(criterion='entropy') (min_samples_leaf "
            "instead of the pruning confidence); J48 bagging = BaggingClassifier of 10 such "
            "trees; logistic = LogisticRegression on standardized features (C = 1/ridge); "
            "naive Bayes = Weka-like naive Bayes (Laplace-smoothed frequency tables for the "
            "nominal attributes, normal densities for the numeric ones; pseudo-count tuned); "
            "neural networks = MLPClassifier (one hidden layer of 53 "
            "units, SGD, learning rate and momentum tuned) on standardized features; SVM = "
            "LinearSVC on standardized features, decision_function scores. Parameters minimise "
            "the Brier loss of the learner's own probabilities on the calibration set (CVAP: "
            "cumulative over the 5 held-out folds); for the SVM, of a Platt sigmoid fitted on "
            "those same rows. Platt = PlattCalibrator, IR = IsotonicCalibrator(interpolation="
            "'nearest'), IVAP = VennAbersCalibrator(merge='log'), CVAP = merge_folds(..., "
            "merge='log')."
        ),
        "",
    ]
    out_dir.mkdir(parents=True, exist_ok=True)
    png = out_dir / "adult-small-vs-paper.png"
    panels = {
        f"mean {loss}": {
            m: [(exp.PAPER_TABLES[loss][r.learner][i], r.losses[loss][m]) for r in results]
            for i, m in enumerate(exp.METHODS)
        }
        for loss in exp.LOSSES
    }
    if scatter_vs_paper(panels, png):
        md += [f"![ours against the paper's]({png.name})", ""]
    report = out_dir / "report.md"
    report.write_text("\n".join(md), encoding="utf-8")
    print(f"report written to {report} ({elapsed:.1f} s)")
    return 0


def _adult_ratios(args: argparse.Namespace) -> int:
    from ..experiments import vovk2015_adult_ratios as exp

    start = time.perf_counter()
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    print(f"venncal reproduce {args.name}{' --quick' if args.quick else ''}")
    result = exp.run(
        quick=args.quick,
        seed=args.seed,
        jobs=args.jobs,
        data_dir=args.data_dir,
        max_test_rows=args.max_test_rows,
        echo=print,
    )
    results = result["results"]
    tables = []
    for loss in exp.LOSSES:
        tables += [f"### Mean {loss}", ""]
        for r in results:
            tables += [
                f"**{r.learner}**",
                "",
                "| method | " + " | ".join(r.columns) + " |",
                "|" + "---|" * (1 + len(r.columns)),
            ]
            for m in exp.METHODS:
                tables.append(
                    f"| {m} | " + " | ".join(fmt_loss(v) for v in r.losses[loss][m]) + " |"
                )
            tables.append("")
    print()
    print("\n".join(line for line in tables if line.startswith(("|", "#", "**"))))

    def settings(params) -> str:
        return "-" if params is None else ", ".join(f"{k}={v}" for k, v in params.items())

    chosen = ["### Chosen parameters", ""]
    if results:
        columns = results[0].columns
        chosen += [
            "| learner | chosen for | " + " | ".join(columns) + " |",
            "|" + "---|" * (2 + len(columns)),
            "| | CVAP folds K | " + " | ".join(str(k or "-") for k in results[0].folds) + " |",
        ]
        for r in results:
            for key in ("calibration set", "CVAP folds"):
                cells = " | ".join(settings(p) for p in r.params[key])
                chosen.append(f"| {r.learner} | {key} | {cells} |")
        chosen.append("")
    plots = []
    for r in results:
        png = out_dir / f"ratios-{r.learner.replace(' ', '-')}.png"
        exp.plot_learner(r, png)
        plots.append(png.name)
    elapsed = time.perf_counter() - start
    md = [f"# Reproduction: {args.name} ({_mode(args)} mode)", ""]
    md += header(
        args,
        (
            "Paper 000 (Vovk, Petej & Fedorova 2015), section 6, Figures 1-2 and 13-14: adult, "
            "the training file split contiguously into proper training and calibration sets "
            "in the ratios of the columns (all = the whole training set as both); test set = "
            "the test file. raw = the learner's own probabilities (none for the SVM: nan). "
            "CVAP in column a:b uses K = a+b contiguous folds: for a:1 each fold in turn is "
            "the calibration set, for 1:b each fold in turn is the proper training set (the "
            "rest the calibration set); the paper gives no CVAP rule for column all (left "
            "out: nan). "
            "Each learner's parameters are chosen per column from its grid by the Brier loss "
            "on the column's calibration set (all: the training set), shared by raw, Platt, "
            "IR and IVAP; for CVAP by the cumulative Brier loss of its K IVAPs (table "
            "'Chosen parameters'). Mean log loss in base 2; mean Brier loss 4(y-p)^2. The "
            "paper gives its results only as plots."
        ),
        elapsed,
    )
    md += [
        (
            f"- training rows: {result['n_train']:,}; test rows: {result['n_test']:,} of "
            f"{result['n_test_total']:,}"
        ),
        "",
        "| learner | grid | ConvergenceWarnings | seconds (all columns) | plot |",
        "|---|---|---|---|---|",
    ]
    for r, png in zip(results, plots, strict=True):
        md.append(
            f"| {r.learner} | {_grid_text(exp.grid(r.learner, args.quick))} "
            f"| {r.convergence_warnings} | {r.seconds:.1f} | ![{r.learner}]({png}) |"
        )
    md += ["", *chosen, *tables]
    report = out_dir / "report.md"
    report.write_text("\n".join(md), encoding="utf-8")
    print(f"report written to {report} ({elapsed:.1f} s)")
    return 0


def _mode(args: argparse.Namespace) -> str:
    return "quick" if args.quick else "full"


def command_line(args: argparse.Namespace) -> str:
    """Return the command that reproduces this run (the real one when run as ``venncal``)."""
    if Path(sys.argv[0]).name in ("venncal", "__main__.py"):
        return "venncal " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    return (
        f"venncal reproduce {args.name}"
        + (" --quick" if args.quick else "")
        + f" --seed {args.seed} --jobs {args.jobs}"
    )


def header(args: argparse.Namespace, description: str, elapsed: float) -> list[str]:
    """Markdown lines shared by every report: protocol, date, machine, command, versions."""
    import joblib
    import numpy as np
    import scipy
    import sklearn

    from .. import __version__

    return [
        description,
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}",
        (
            f"- machine: {platform.node()} ({platform.platform()}, {platform.machine()}, "
            f"{_cpus()} CPUs)"
        ),
        f"- command: `{command_line(args)}`",
        (
            f"- versions: venncal {__version__}, Python {platform.python_version()}, "
            f"numpy {np.__version__}, scipy {scipy.__version__}, scikit-learn "
            f"{sklearn.__version__}, joblib {joblib.__version__}"
        ),
        f"- seed {args.seed}, jobs {args.jobs}, runtime {elapsed:.1f} s",
    ]


def scatter_vs_paper(panels: dict, path: Path) -> bool:
    """Write a PNG of our values against the paper's, one panel per loss, one colour per method.

    Parameters
    ----------
    panels : dict
        ``loss -> method -> list of (paper's value, our value)``; pairs where either value
        is missing (None) or not finite are left out.
    path : Path
        The PNG to write.

    Returns
    -------
    bool
        False (and nothing written) when matplotlib is not installed.
    """
    try:
        import matplotlib
    except ImportError:
        return False
    if "matplotlib.pyplot" not in sys.modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4.6), squeeze=False)
    try:
        for ax, (loss, by_method) in zip(axes[0], panels.items(), strict=True):
            lo, hi = math.inf, -math.inf
            for i, (method, pairs) in enumerate(by_method.items()):
                kept = [
                    (p, o)
                    for p, o in pairs
                    if p is not None and o is not None and math.isfinite(p) and math.isfinite(o)
                ]
                if not kept:
                    continue
                xs, ys = zip(*kept, strict=True)
                ax.scatter(xs, ys, s=14, color=f"C{i}", label=method, alpha=0.8)
                lo, hi = min(lo, *xs, *ys), max(hi, *xs, *ys)
            if math.isfinite(lo):
                ax.plot([lo, hi], [lo, hi], color="0.5", lw=0.8)
            ax.set_xlabel(f"paper's {loss}")
            ax.set_ylabel(f"our {loss}")
            ax.set_title(f"{loss}: finite values (below the line: ours is lower)", fontsize=10)
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
    finally:
        plt.close(fig)
    return True


def _grid_text(settings) -> str:
    keys = list(settings[0])
    return "; ".join(f"{k} in {sorted({s[k] for s in settings})}" for k in keys)


def _cpus() -> str:
    import os

    return str(os.cpu_count() or "?")
