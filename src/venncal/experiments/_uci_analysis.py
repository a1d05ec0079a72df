"""The tables and statements of Vovk & Petej 2014, and our results beside them (vovk2014-uci).

The paper's Tables 1-3 are read from :func:`venncal.datasets.paper_tables` ``("001")``;
its section 5 statements are :data:`PAPER_CLAIMS`. :func:`best_per_method`,
:func:`ranking` and :func:`claims` compute the same quantities on any table of mean
losses (ours or the paper's); the ``*_table`` functions build the report's sections.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._report import fmt_loss, scatter_vs_paper

__all__ = [
    "CLASSIFIERS",
    "DATASETS",
    "LOSSES",
    "METHODS",
    "PAPER_CLAIMS",
    "best_per_method",
    "claims",
    "paper_names",
    "paper_values",
    "ranking",
]

#: Learner codes of the paper's tables, in its column order.
CLASSIFIERS = ("J", "JB", "LR", "NB", "NN", "SVM")
#: The nine data sets of Vovk & Petej 2014, in the paper's row order (names of ``load_dataset``).
DATASETS = (
    "australian", "breast", "diabetes", "echo", "hepatitis",
    "ionosphere", "labor", "liver", "vote",
)  # fmt: skip
METHODS = ("W", "VA", "SVA", "DIR")
LOSSES = ("log loss", "RMSE")
#: Paper table holding each loss.
_PAPER_TABLE = {"log loss": "table1", "RMSE": "table2"}

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


def paper_values() -> dict:
    """Return the paper's Tables 1-2 as ``loss -> learner -> data set -> method -> value``.

    Infinity is ``math.inf``; cells the paper's text does not show legibly are None.
    """
    from ..datasets import paper_tables

    t = paper_tables("001")
    out: dict = {}
    for loss, key in _PAPER_TABLE.items():
        out[loss] = {
            c: {
                d: {m: (math.inf if v == "inf" else v) for m, v in cells.items()}
                for d, cells in rows.items()
            }
            for c, rows in t[key].items()
        }
    return out


def best_per_method(table: dict, dataset: str, learners: Sequence[str]) -> dict:
    """Return ``method -> (best value over the learners, that learner)`` for one data set.

    Learners whose cell is missing (None or NaN) are skipped; a method with no value
    maps to ``(nan, None)``.
    """
    out = {}
    for m in METHODS:
        best: tuple[float, str | None] = (math.nan, None)
        for c in learners:
            v = table[c].get(dataset, {}).get(m)
            if v is None or (isinstance(v, float) and math.isnan(v)):
                continue
            if best[1] is None or v < best[0]:
                best = (v, c)
        out[m] = best
    return out


def ranking(table: dict, dataset: str, learners: Sequence[str]) -> list[tuple[str, str, float]]:
    """Rank the four methods on one data set by their best learner (Vovk & Petej 2014, Table 3).

    Returns
    -------
    list of (method, learner, value)
        Best first; methods without any value are left out.
    """
    best = best_per_method(table, dataset, learners)
    ranked = [(m, c, v) for m, (v, c) in best.items() if c is not None]
    return sorted(ranked, key=lambda t: (t[2], METHODS.index(t[0])))


def claims(table: dict, datasets: Sequence[str], learners: Sequence[str]) -> dict[str, int]:
    """Count the data sets / cells behind the paper's section 5 statements, for one loss.

    Keys: ``"VA or SVA best"`` (data sets where the best method is VA or SVA),
    ``"SVA beats W"`` and ``"VA beats W"`` (data sets where the method's best learner
    beats W's best learner), ``"VA best"``, ``"SVA best"``, ``"W best"``, ``"DIR best"``,
    ``"VA < W cells"``, ``"SVA < W cells"`` (learner-data set cells), ``"DIR infinite
    cells"``, and ``"cells"`` (cells where all four methods have a value).
    """
    out = dict.fromkeys(
        ["VA or SVA best", "SVA beats W", "VA beats W", "VA best", "SVA best", "W best",
         "DIR best", "VA < W cells", "SVA < W cells", "DIR infinite cells", "cells"], 0,
    )  # fmt: skip
    for d in datasets:
        best = best_per_method(table, d, learners)
        if any(c is None for _, c in best.values()):
            continue
        top = ranking(table, d, learners)[0][0]
        out[f"{top} best"] += 1
        out["VA or SVA best"] += top in ("VA", "SVA")
        out["SVA beats W"] += best["SVA"][0] < best["W"][0]
        out["VA beats W"] += best["VA"][0] < best["W"][0]
    for c in learners:
        for d in datasets:
            cell = table[c].get(d, {})
            if any(cell.get(m) is None or math.isnan(cell[m]) for m in METHODS):
                continue
            out["cells"] += 1
            out["VA < W cells"] += cell["VA"] < cell["W"]
            out["SVA < W cells"] += cell["SVA"] < cell["W"]
            out["DIR infinite cells"] += math.isinf(cell["DIR"])
    return out


def paper_names() -> dict[str, str]:
    """Learner code -> the paper's name (from the packaged paper tables)."""
    from ..datasets import paper_tables

    return paper_tables("001")["classifiers"]


# ------------------------------------------------------------------------ report sections


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


def _loss_row(c: str, d: str, ours: dict, theirs: dict) -> tuple[str, str]:
    """One (learner, data set) row of Table 1 or 2: Markdown and plain text."""
    b_o, b_p = _best(ours, METHODS), _best(theirs, METHODS)
    cells = []
    for m in METHODS:
        o, p = ours.get(m), theirs.get(m)
        co = f"**{_fmt(o)}**" if m == b_o else _fmt(o)
        flag = "" if _same_kind(o, p) else " ⚠"
        cells.append(f"{co} / {_fmt(p)}{flag}")
    differs = b_p is not None and b_o != b_p
    md = f"| {d} | " + " | ".join(cells) + f" | {b_o}{' ⚠' if differs else ''} | {b_p or '?'} |"
    txt = (
        f"  {c:<4}{d:<11}"
        + "".join(f"{_fmt(ours.get(m)):>6}/{_fmt(theirs.get(m)):<6}" for m in METHODS)
        + f"  {b_o} ({b_p or '?'})"
    )
    return md, txt


def loss_tables(result: Any, paper: dict) -> tuple[list[str], list[str]]:
    """Markdown (Tables 1-2, ours beside the paper's) and a plain-text summary."""
    md, txt = [], []
    names = paper_names()
    for loss in LOSSES:
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
        for c in result.learners:
            md += [
                f"**{names[c]} ({c})**",
                "",
                "| data set | " + " | ".join(METHODS) + " | best ours | best paper |",
                "|---|" + "---|" * (len(METHODS) + 2),
            ]
            for d in result.datasets:
                row_md, row_txt = _loss_row(
                    c, d, result.table[loss][c][d], paper[loss].get(c, {}).get(d, {})
                )
                md.append(row_md)
                txt.append(row_txt)
            md.append("")
        txt.append("")
    return md, txt


def ranking_table(result: Any) -> tuple[list[str], list[str]]:
    """Build Table 3 (the best three methods per data set), ours beside the paper's."""
    from ..datasets import paper_tables

    table3 = paper_tables("001")["table3"]
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
        for d in result.datasets:
            ours = ranking(result.table[loss], d, result.learners)[:3]
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


def claims_table(result: Any, paper: dict) -> tuple[list[str], list[str]]:
    """Count the paper's section 5 statements on our table, beside the paper's counts."""
    md = [
        "### The paper's statements, counted on our numbers",
        "",
        "| loss | statement | ours | paper |",
        "|---|---|---|---|",
    ]
    txt = ["Statements (ours | paper)"]
    n_sets = len(result.datasets)
    for loss in LOSSES:
        ours = claims(result.table[loss], result.datasets, result.learners)
        legible = claims(paper[loss], DATASETS, CLASSIFIERS)
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


def figure(result: Any, paper: dict, path: Path) -> bool:
    """Scatter our means against the paper's (finite cells), one panel per loss."""
    panels = {
        f"mean {loss}": {
            m: [
                (paper[loss].get(c, {}).get(d, {}).get(m), result.table[loss][c][d].get(m))
                for c in result.learners
                for d in result.datasets
            ]
            for m in METHODS
        }
        for loss in LOSSES
    }
    return scatter_vs_paper(panels, path)
