"""``venncal reproduce vovk2014-uci``: paper 001, Tables 1-3, report and figure."""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

from ._reproduce import fmt_loss, header, scatter_vs_paper

__all__ = ["run_uci"]

#: The paper's statements in section 5 (for each loss), checked against our numbers.
#: "For MLE, the best algorithm is VA or SVA for 8 data sets out of 9; for RMSE this is
#: true for 6 data sets out of 9. In all other cases the best algorithm is W rather than
#: DIR." "VA and SVA perform best on equal numbers of datasets, 4 each in the case of MLE
#: and 3 each in the case of RMSE." "SVA performs better than W on 7 data sets out of 9
#: for MLE, and on 5 data sets out of 9 for RMSE. [...] VA performs better than W on 6
#: data sets out of 9 for MLE, and on 5 data sets out of 9 for RMSE." "In all our
#: experiments DIR suffers infinite log loss" (54 cells of Table 1).
PAPER_CLAIMS = {
    "log loss": {
        "VA or SVA best": 8, "VA best": 4, "SVA best": 4, "W best": 1, "DIR best": 0,
        "SVA beats W": 7, "VA beats W": 6, "DIR infinite cells": 54,
    },
    "RMSE": {
        "VA or SVA best": 6, "VA best": 3, "SVA best": 3, "W best": 3, "DIR best": 0,
        "SVA beats W": 5, "VA beats W": 5,
    },
}  # fmt: skip

_CLAIM_TEXT = {
    "VA or SVA best": "data sets where the best method is VA or SVA",
    "VA best": "data sets where VA is best",
    "SVA best": "data sets where SVA is best",
    "W best": "data sets where W is best",
    "DIR best": "data sets where DIR is best",
    "SVA beats W": "data sets where SVA (best learner) beats W (best learner)",
    "VA beats W": "data sets where VA (best learner) beats W (best learner)",
    "VA < W cells": "learner x data set cells where VA beats W",
    "SVA < W cells": "learner x data set cells where SVA beats W",
    "DIR infinite cells": "learner x data set cells where DIR's mean log loss is infinite",
}


def _fmt(v) -> str:
    return fmt_loss(v, digits=3)


def _same_kind(a, b) -> bool:
    return a is None or b is None or math.isinf(a) == math.isinf(b)


def _best(cells: dict, methods) -> str | None:
    values = [(cells.get(m), i) for i, m in enumerate(methods)]
    values = [(v, i) for v, i in values if v is not None and not math.isnan(v)]
    if len(values) < len(methods):
        return None
    return methods[min(values)[1]]


def _subset(text: str | None, pool, what: str) -> tuple[str, ...]:
    if text is None:
        return tuple(pool)
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = sorted(set(names) - set(pool))
    if unknown or not names:
        raise ValueError(f"unknown {what} {unknown}; expected some of {', '.join(pool)}")
    return names


def _loss_tables(result, paper, exp) -> tuple[list[str], list[str]]:
    """Markdown (Tables 1-2, ours beside the paper's) and a plain-text summary."""
    md, txt = [], []
    names = paper_names()
    for loss in exp.LOSSES:
        md += [f"### Table {1 if loss == 'log loss' else 2}: mean {loss}", ""]
        md += [
            (
                "Cells: ours / paper's. **Bold**: the best of the four methods in our row. "
                "⚠ after a cell: finite here and infinite in the paper or the reverse; ⚠ after "
                "the best method: it differs from the paper's."
            ),
            "",
        ]
        txt += [f"Mean {loss} (ours / paper), best method ours (paper)"]
        for c in result["learners"]:
            md += [
                f"**{names[c]} ({c})**",
                "",
                "| data set | " + " | ".join(exp.METHODS) + " | best ours | best paper |",
                "|---|" + "---|" * (len(exp.METHODS) + 2),
            ]
            for d in result["datasets"]:
                ours = result["table"][loss][c][d]
                theirs = paper[loss].get(c, {}).get(d, {})
                b_o, b_p = _best(ours, exp.METHODS), _best(theirs, exp.METHODS)
                cells = []
                for m in exp.METHODS:
                    o, p = ours.get(m), theirs.get(m)
                    co = f"**{_fmt(o)}**" if m == b_o else _fmt(o)
                    flag = "" if _same_kind(o, p) else " ⚠"
                    cells.append(f"{co} / {_fmt(p)}{flag}")
                differs = b_p is not None and b_o != b_p
                md.append(
                    f"| {d} | " + " | ".join(cells)
                    + f" | {b_o}{' ⚠' if differs else ''} | {b_p or '?'} |"
                )  # fmt: skip
                txt.append(
                    f"  {c:<4}{d:<11}"
                    + "".join(
                        f"{_fmt(ours.get(m)):>6}/{_fmt(theirs.get(m)):<6}" for m in exp.METHODS
                    )
                    + f"  {b_o} ({b_p or '?'})"
                )
            md.append("")
        txt.append("")
    return md, txt


def paper_names() -> dict[str, str]:
    """Learner code -> the paper's name (from the packaged paper tables)."""
    from ..datasets import paper_tables

    return paper_tables()["classifiers"]


def _ranking_table(result, exp) -> tuple[list[str], list[str]]:
    from ..datasets import paper_tables

    table3 = paper_tables()["table3"]
    md = [
        "### Table 3: ranking of the methods",
        "",
        (
            "Each method is represented by its best learner on the data set (in parentheses); "
            "the paper lists the best three methods. ⚠: our order of the three differs."
        ),
        "",
    ]
    txt = ["Ranking (best three methods, best learner): ours | paper"]
    for loss, key in (("log loss", "log loss"), ("RMSE", "square loss")):
        md += [
            f"**{loss}**",
            "",
            "| data set | ours: 1st | 2nd | 3rd | paper: 1st | 2nd | 3rd |",
            "|---|---|---|---|---|---|---|",
        ]
        for d in result["datasets"]:
            ours = exp.ranking(result["table"][loss], d, result["learners"])[:3]
            theirs = table3[key][d]
            o_cells = [f"{m} ({c}) {_fmt(v)}" for m, c, v in ours]
            p_cells = [f"{m} ({c})" for m, c in theirs]
            same = [m for m, _, _ in ours] == [m for m, _ in theirs]
            md.append(f"| {d}{'' if same else ' ⚠'} | " + " | ".join(o_cells + p_cells) + " |")
            txt.append(
                f"  {loss:<9}{d:<11} "
                + ", ".join(f"{m} ({c})" for m, c, _ in ours)
                + " | "
                + ", ".join(f"{m} ({c})" for m, c in theirs)
            )
        md.append("")
    txt.append("")
    return md, txt


def _claims_table(result, paper, exp) -> tuple[list[str], list[str]]:
    md = [
        "### The paper's statements, counted on our numbers",
        "",
        "| loss | statement | ours | paper |",
        "|---|---|---|---|",
    ]
    txt = ["Statements (ours | paper)"]
    n_sets = len(result["datasets"])
    for loss in exp.LOSSES:
        ours = exp.claims(result["table"][loss], result["datasets"], result["learners"])
        legible = exp.claims(paper[loss], exp.DATASETS, exp.CLASSIFIERS)
        for key, text in _CLAIM_TEXT.items():
            if key == "DIR infinite cells" and loss != "log loss":
                continue
            if key.endswith("cells"):
                mine = f"{ours[key]} of {ours['cells']}"
                stated = PAPER_CLAIMS[loss].get(key)
                theirs = (
                    f"{stated} of 54 (text)" if stated is not None
                    else f"{legible[key]} of {legible['cells']} legible cells"
                )  # fmt: skip
            else:
                mine = f"{ours[key]} of {n_sets}"
                theirs = f"{PAPER_CLAIMS[loss][key]} of 9"
            md.append(f"| {loss} | {text} | {mine} | {theirs} |")
            txt.append(f"  {loss:<9}{text:<66}{mine:>10} | {theirs}")
    md.append("")
    txt.append("")
    return md, txt


def _figure(result, paper, exp, path: Path) -> bool:
    """Scatter our means against the paper's (finite cells), one panel per loss."""
    panels = {
        f"mean {loss}": {
            m: [
                (paper[loss].get(c, {}).get(d, {}).get(m), result["table"][loss][c][d].get(m))
                for c in result["learners"]
                for d in result["datasets"]
            ]
            for m in exp.METHODS
        }
        for loss in exp.LOSSES
    }
    return scatter_vs_paper(panels, path)


def run_uci(args: argparse.Namespace) -> int:
    """Run ``venncal reproduce vovk2014-uci``; return the exit code."""
    from ..experiments import vovk2014_uci as exp

    if args.data_dir is None and not os.environ.get("VENNCAL_DATA"):
        print(
            "venncal reproduce: vovk2014-uci reads the UCI data sets from a folder laid out "
            "as the shared data store: give it with --data-dir DIR or the environment "
            "variable VENNCAL_DATA",
            file=sys.stderr,
        )
        return 2
    try:
        datasets = _subset(args.datasets, exp.DATASETS, "data sets")
        learners = _subset(args.learners, exp.CLASSIFIERS, "learners")
        reps = None
        if args.reps is not None:
            reps = tuple(int(v) for v in args.reps.split(","))
            if len(reps) != 2 or min(reps) < 1:
                raise ValueError("--reps takes two positive counts: N,M")
    except ValueError as exc:
        print(f"venncal reproduce: {exc}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    out_dir = Path(args.out)
    print(f"venncal reproduce {args.name}{' --quick' if args.quick else ''}")
    try:
        result = exp.run(
            quick=args.quick,
            seed=args.seed,
            jobs=args.jobs,
            data_dir=args.data_dir,
            datasets=datasets,
            learners=learners,
            reps=reps,
            max_test_rows=args.max_test_rows,
            echo=print,
        )
    except FileNotFoundError as exc:
        print(f"venncal reproduce: {exc}", file=sys.stderr)
        return 2
    paper = exp.paper_values()
    md_loss, txt_loss = _loss_tables(result, paper, exp)
    md_rank, txt_rank = _ranking_table(result, exp)
    md_claims, txt_claims = _claims_table(result, paper, exp)
    print()
    print("\n".join(txt_loss + txt_rank + txt_claims))
    out_dir.mkdir(parents=True, exist_ok=True)
    png = out_dir / "uci-vs-paper.png"
    has_figure = _figure(result, paper, exp, png)
    elapsed = time.perf_counter() - start

    n_shared, n_va = result["reps"]
    va_rows = result["va_test_rows"]
    md = [f"# Reproduction: {args.name} ({'quick' if args.quick else 'full'} mode)", ""]
    md += header(
        args,
        (
            "Paper 001 (Vovk & Petej, *Venn-Abers predictors*, 2014), section 5, Tables 1 "
            "(mean log loss, natural log), 2 (RMSE) and 3 (ranking): each data set randomly "
            "permuted, the first 2/3 of the rows for training and the rest for testing; W = "
            "the learner's own probabilities, VA = full Venn-Abers (the learner retrained "
            "for each test object and each postulated label), SVA = simplified Venn-Abers "
            "(the training scores as calibration set), DIR = direct isotonic regression "
            "(nearest training score). VA and SVA pairs are merged by the log-loss minimax "
            "for the log loss and the square-loss minimax for the RMSE; losses are computed "
            "per split and averaged over the splits."
        ),
        elapsed,
    )
    md += [
        (
            f"- splits: {n_shared} per data set for W, SVA and DIR (shared by all learners), "
            f"{n_va} other splits for VA (paper: 100 and 16)"
            + (f"; VA: at most {va_rows} test rows per split (seeded subsample)" if va_rows else "")
        ),
        "- data set rows (training / test): "
        + ", ".join(f"{d} {n} ({a}/{b})" for d, (n, a, b) in result["sizes"].items()),
        "",
        (
            "The learners are scikit-learn stand-ins for the paper's Weka learners with Weka's "
            "default parameters (see the table at the end), so equal numbers are not expected; "
            "the comparison is about the papers' conclusions. Paper cells shown as ? are "
            "illegible in the paper's text (see `venncal.datasets.paper_tables()['notes']`)."
        ),
        "",
    ]
    if has_figure:
        md += [f"![ours against the paper's]({png.name})", ""]
    md += md_claims + md_rank + md_loss
    md += [
        "### Learners, infinite log losses and run time",
        "",
        (
            "| learner | stand-in | W: data sets with infinite log loss | DIR: splits with "
            "infinite log loss | ConvergenceWarnings | seconds (shared / VA) |"
        ),
        "|---|---|---|---|---|---|",
    ]
    names = paper_names()
    for c in result["learners"]:
        est = exp.make_learner(c, 10, args.seed)
        inf_w = sum(result["infinite"][c][d].get("W", 0) > 0 for d in result["datasets"])
        inf_dir = sum(result["infinite"][c][d].get("DIR", 0) for d in result["datasets"])
        tasks = [t for t in result["tasks"] if t.learner == c]
        warn = sum(t.convergence_warnings for t in tasks)
        sec = {k: sum(t.seconds for t in tasks if t.kind == k) for k in ("shared", "va")}
        stand_in = " ".join(repr(est).split())
        md.append(
            f"| {names[c]} ({c}) | `{stand_in}` | {inf_w} of {len(result['datasets'])} "
            f"| {inf_dir} of {n_shared * len(result['datasets'])} | {warn} "
            f"| {sec['shared']:.1f} / {sec['va']:.1f} |"
        )
    md += [
        "",
        (
            "The neural network's hidden layer has (columns + 2) / 2 units (shown for 10 "
            "columns above). The SVM's W is a Platt sigmoid fitted on its training decision "
            "values (Weka's SMO with logistic models); VA, SVA and DIR use the decision values."
        ),
        "",
    ]
    report = out_dir / "report.md"
    report.write_text("\n".join(md), encoding="utf-8")
    print(f"report written to {report} ({elapsed:.1f} s)")
    return 0
