"""The report of the multiclass experiment: its tables, its findings and its figure.

:func:`report` writes ``report.md`` and ``multiclass-top-label.png`` from a
:class:`~venncal.experiments.multiclass_benchmark.MulticlassResult`. The findings are
computed from the numbers: a method "wins" or "loses" against another only where the mean
of their paired differences over the repetitions is more than two standard errors from 0.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import numpy as np

from . import _multiclass_cases as mc
from ._report import Report, ReportDraft, new_figure

__all__ = ["FIGURE_CASES", "METRICS", "ORACLE", "aggregate", "paired_difference", "report"]

#: The cases whose pooled test predictions are drawn (top-label reliability diagrams).
FIGURE_CASES = (("digits", "LR"), ("digits", "MLP"), ("synthetic", "logits"))
#: The metrics, in the tables' order; all but accuracy are lower-is-better.
METRICS = ("log_loss", "brier", "top_label_ece", "classwise_ece", "accuracy")
#: The row of the synthetic data's true probabilities.
ORACLE = "true probabilities (floor)"
_HEADS = {"log_loss": "log loss", "brier": "Brier", "top_label_ece": "top-label ECE",
          "classwise_ece": "class-wise ECE", "accuracy": "accuracy"}
_FIGURE_METHODS = ("uncalibrated", "VA OvR (IVAP)", "VA OvO price", "CVAP OvR (5 folds)",
                   "sklearn sigmoid", "sklearn temperature")
_OURS = ("VA OvR (IVAP)", "VA OvO price", "VA OvO normalize", "VA OvO wu-lin-weng",
         "CVAP OvR (5 folds)")


def _others(methods: Sequence[str]) -> list[str]:
    """The calibrators that are not Venn–Abers (neither ours nor the venn-abers package's)."""
    return [m for m in methods
            if m not in _OURS and m != "uncalibrated" and not m.startswith("venn-abers")]


def aggregate(tasks: Sequence) -> dict[str, dict[str, tuple[float, float, int]]]:
    """Per method and metric of one case: ``(mean, standard error, repetitions with inf)``.

    The mean of values of which one is infinite is infinite (its standard error NaN); a
    method that failed in some repetitions is averaged over the others.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> t = [SimpleNamespace(values={"m": {"log_loss": v}}) for v in (0.5, 0.7, math.inf)]
    >>> mean, se, n_inf = aggregate(t[:2])["m"]["log_loss"]
    >>> round(mean, 6), round(se, 6), n_inf
    (0.6, 0.1, 0)
    >>> aggregate(t)["m"]["log_loss"]
    (inf, nan, 1)
    """
    by: dict[str, dict[str, list[float]]] = {}
    for t in tasks:
        for method, vals in t.values.items():
            for metric, v in vals.items():
                by.setdefault(method, {}).setdefault(metric, []).append(v)
    out: dict[str, dict[str, tuple[float, float, int]]] = {}
    for method, metrics in by.items():
        out[method] = {}
        for metric, vs in metrics.items():
            a = np.asarray(vs, dtype=float)
            n_inf = int(np.isinf(a).sum())
            if n_inf:
                out[method][metric] = (math.inf, math.nan, n_inf)
                continue
            se = float(np.std(a, ddof=1) / math.sqrt(len(a))) if len(a) > 1 else math.nan
            out[method][metric] = (float(np.mean(a)), se, 0)
    return out


def paired_difference(tasks: Sequence, a: str, b: str, metric: str) -> tuple[float, float, int]:
    """Mean and standard error of ``a - b`` where both are finite, and the repetitions counted.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> t = [SimpleNamespace(values={"a": {"m": x}, "b": {"m": y}})
    ...      for x, y in ((1.0, 0.5), (2.0, 1.0), (math.inf, 0.0))]
    >>> paired_difference(t, "a", "b", "m")
    (0.75, 0.25, 2)
    """
    d = [t.values[a][metric] - t.values[b][metric] for t in tasks
         if a in t.values and b in t.values
         and math.isfinite(t.values[a][metric]) and math.isfinite(t.values[b][metric])]
    if not d:
        return math.nan, math.nan, 0
    se = float(np.std(d, ddof=1) / math.sqrt(len(d))) if len(d) > 1 else math.nan
    return float(np.mean(d)), se, len(d)


def _verdict(mean: float, se: float) -> str:
    """"lower", "higher" or "tie" for a paired difference (2 standard errors)."""
    if not math.isfinite(mean) or not math.isfinite(se) or abs(mean) <= 2 * se:
        return "tie"
    return "lower" if mean < 0 else "higher"


def _compare(tasks: Sequence, agg: dict, a: str, b: str, metric: str) -> tuple[str, str]:
    """``(text, verdict)`` of ``a - b``: paired over the finite repetitions, or by infinity."""
    inf_a, inf_b = math.isinf(agg[a][metric][0]), math.isinf(agg[b][metric][0])
    if inf_a != inf_b:  # one of them is infinite in some repetition: it loses
        return f"{b if inf_b else a} infinite", "lower" if inf_b else "higher"
    mean, se, n = paired_difference(tasks, a, b, metric)
    if not n:
        return "-", "tie"
    return f"{mean:+.4f} ± {se:.4f}", _verdict(mean, se)


def _cell(stat: tuple[float, float, int], digits: int = 4, bold: bool = False) -> str:
    mean, se, n_inf = stat
    if math.isinf(mean):
        return f"inf ({n_inf} reps)"
    text = f"{mean:.{digits}f}" + (f" ± {se:.{digits}f}" if math.isfinite(se) else "")
    return f"**{text}**" if bold else text


def _name(case: tuple[str, str]) -> str:
    return f"{case[0]} / {case[1]}"


def _best(agg: dict, metric: str, among: Sequence[str]) -> str | None:
    """The method of ``among`` with the lowest (accuracy: highest) finite mean, or None."""
    sign = -1 if metric == "accuracy" else 1
    finite = [(sign * agg[m][metric][0], m) for m in among
              if m in agg and math.isfinite(agg[m][metric][0])]
    return min(finite)[1] if finite else None


# ------------------------------------------------------------------------------ tables


def _case_table(result, case) -> tuple[list[str], list[str]]:
    tasks = result.case_tasks(case)
    agg = aggregate(tasks)
    rows = [m for m in (*result.methods, ORACLE) if m in agg]
    methods = [m for m in rows if m != ORACLE]
    best = {metric: _best(agg, metric, methods) for metric in METRICS}
    md = [f"### {_name(case)}", "",
          "| method | " + " | ".join(_HEADS[m] for m in METRICS) + " | conf − acc | width | ms |",
          "|---|" + "---|" * (len(METRICS) + 3)]
    txt = [f"{_name(case)}",
           f"  {'method':<26}" + "".join(f"{_HEADS[m]:>15}" for m in METRICS)
           + f"{'conf-acc':>10}{'width':>8}{'ms':>9}"]
    for m in rows:
        cells = [_cell(agg[m][metric], bold=best[metric] == m) for metric in METRICS]
        width, seconds = agg[m]["width"][0], agg[m]["seconds"][0]
        gap = f"{agg[m]['conf_minus_acc'][0]:+.4f}"
        w = f"{width:.4f}" if math.isfinite(width) else "-"
        ms = f"{1000 * seconds:.1f}" if math.isfinite(seconds) else "-"
        md.append(f"| {m} | " + " | ".join(cells) + f" | {gap} | {w} | {ms} |")
        txt.append(f"  {m:<26}" + "".join(
            f"{('inf' if math.isinf(v) else f'{v:.4f}'):>15}"
            for v in (agg[m][metric][0] for metric in METRICS)) + f"{gap:>10}{w:>8}{ms:>9}")
    failed = Counter((m, msg) for t in tasks for m, msg in t.failures.items())
    for (m, msg), n in sorted(failed.items()):
        md.append(f"| {m} | failed in {n} of {len(tasks)} repetitions: {msg} |" + " |" * 7)
        txt.append(f"  {m:<26}failed in {n} of {len(tasks)} repetitions")
    return [*md, ""], [*txt, ""]


def _summary_table(result, metric: str) -> list[str]:
    """Per case: uncalibrated, the best of ours and of the others (non-Venn–Abers), paired gaps."""
    md = ["| case | uncalibrated | best Venn–Abers (venncal) | best other calibrator | "
          "VA − uncalibrated, paired | VA − other, paired | OvO price − OvR, paired |",
          "|---|---|---|---|---|---|---|"]
    others = _others(result.methods)
    for case in result.cases:
        tasks = result.case_tasks(case)
        agg = aggregate(tasks)
        ours, other = _best(agg, metric, _OURS), _best(agg, metric, others)
        unc = _cell(agg["uncalibrated"][metric]) if "uncalibrated" in agg else "-"
        cells = [f"{m}: {_cell(agg[m][metric])}" if m else "-" for m in (ours, other)]
        gaps = []
        for a, b in ((ours, "uncalibrated"), (ours, other), ("VA OvO price", "VA OvR (IVAP)")):
            if a is None or b is None or a not in agg or b not in agg:
                gaps.append("-")
                continue
            text, verdict = _compare(tasks, agg, a, b, metric)
            gaps.append(f"{text} ({verdict})")
        md.append(f"| {_name(case)} | {unc} | {cells[0]} | {cells[1]} | " + " | ".join(gaps) + " |")
    return [*md, ""]


def _pair_rows(result, case) -> float:
    """Mean calibration rows per one-vs-one pair (over the pairs, first repetition)."""
    t = result.case_tasks(case)[0]
    K, n_cal = t.n_classes, t.sizes[1]
    return 2 * n_cal / K


def _findings(result) -> list[str]:
    """Bullets computed from the numbers: where Venn–Abers wins and where it loses."""
    lines = []
    others = _others(result.methods)
    n = len(result.cases)
    for metric in ("log_loss", "top_label_ece"):
        head = _HEADS[metric]
        for ours in ("VA OvR (IVAP)", "CVAP OvR (5 folds)"):
            if ours not in result.methods:
                continue
            for against in ("uncalibrated", "other"):
                versus: dict[str, list[str]] = {"lower": [], "higher": [], "tie": []}
                for case in result.cases:
                    tasks = result.case_tasks(case)
                    agg = aggregate(tasks)
                    b = _best(agg, metric, others) if against == "other" else "uncalibrated"
                    if b is None or b not in agg or ours not in agg:
                        continue
                    text, verdict = _compare(tasks, agg, ours, b, metric)
                    vs = "" if text.endswith("infinite") else f" vs {b}"
                    versus[verdict].append(f"{_name(case)} ({text}{vs})")
                what = ("the best non-Venn–Abers calibrator of each case" if against == "other"
                        else "the uncalibrated model")
                lines.append(
                    f"- {head}, {ours} against {what}: lower in {len(versus['lower'])} of {n} "
                    f"cases ({'; '.join(versus['lower']) or 'none'}), higher in "
                    f"{len(versus['higher'])}, a tie in {len(versus['tie'])}."
                )
    if {"VA OvO price", "VA OvR (IVAP)"} <= set(result.methods):
        gaps = []
        for case in result.cases:
            mean, se, _ = paired_difference(result.case_tasks(case), "VA OvO price",
                                            "VA OvR (IVAP)", "log_loss")
            gaps.append((mean, case, se))
        worse = [g for g in gaps if _verdict(g[0], g[2]) == "higher"]
        lines.append(
            f"- Log loss, one-vs-one (price) against one-vs-rest: higher in {len(worse)} of {n} "
            "cases; the gaps (mean calibration rows per pair): " + "; ".join(
                f"{_name(c)} {m:+.4f} ({_pair_rows(result, c):.0f})" for m, c, _se in gaps) + "."
        )
    for method in ("uncalibrated", "VA OvR (IVAP)"):
        if method in result.methods:
            gaps = [(_name(c), aggregate(result.case_tasks(c))[method]["conf_minus_acc"][0])
                    for c in result.cases]
            lines.append(f"- Mean confidence minus accuracy, {method} (negative: underconfident): "
                         + "; ".join(f"{c} {g:+.4f}" for c, g in gaps) + ".")
    infinite = sorted({(m, _name(case)) for case in result.cases
                       for m, s in aggregate(result.case_tasks(case)).items()
                       if math.isinf(s["log_loss"][0])})
    lines.append("- Infinite mean log loss (a test row given probability 0 for its class): "
                 + ("; ".join(f"{m} on {c}" for m, c in infinite) or "none") + ".")
    if result.venn_abers and {"venn-abers OvR", "VA OvR (IVAP)"} <= set(result.methods):
        diffs = [(abs(paired_difference(result.case_tasks(c), "venn-abers OvR",
                                        "VA OvR (IVAP)", "log_loss")[0]), _name(c))
                 for c in result.cases]
        lines.append(
            "- venn-abers' one-vs-rest (on probabilities) against ours (on logits), mean "
            "log-loss difference: " + "; ".join(f"{c} {d:.1e}" for d, c in diffs)
            + " (the same IVAP where the probabilities keep the logits' order; naive Bayes' "
            "probabilities round to 0 and 1 and tie)."
        )
    return [*lines, ""]


def _facts(result) -> list[str]:
    sizes = {}
    for case in result.cases:
        t = result.case_tasks(case)[0]
        sizes.setdefault(case[0], (t.n_classes, *t.sizes))
    va = (f"venn-abers {result.venn_abers}" if result.venn_abers
          else "venn-abers: not installed (its methods are left out)")
    return [
        f"- repetitions: {result.reps} random splits per case (the same for every learner of "
        "a data set)",
        "- data sets (classes; proper training / calibration / test rows): " + ", ".join(
            f"{d} ({K}; {a}/{b}/{c})" for d, (K, a, b, c) in sizes.items()),
        f"- {va}",
        "- learners: " + "; ".join(f"{c} = {mc.LEARNERS[c]}"
                                    for c in dict.fromkeys(c for _d, c in result.cases)),
        "- synthetic data: " + ", ".join(f"{k} {v}" for k, v in mc.SYNTHETIC.items())
        + "; observed logits = true logits / temperature + shifts",
    ]


def _warnings_table(result) -> list[str]:
    md = ["### Warnings and run time", "",
          "| case | warnings caught (method: category × count) | seconds (all repetitions) |",
          "|---|---|---|"]
    for case in result.cases:
        tasks = result.case_tasks(case)
        caught: Counter = Counter()
        for t in tasks:
            caught.update(t.warnings)
        text = ", ".join(f"{k} × {v}" for k, v in sorted(caught.items())) or "none"
        md.append(f"| {_name(case)} | {text} | {sum(t.seconds for t in tasks):.1f} |")
    return [*md, ""]


def _figure(result, path: Path) -> bool:
    from ..plotting import top_label_reliability_diagram

    cases = [c for c in FIGURE_CASES if c in result.cases
             and result.case_tasks(c)[0].predictions is not None]
    if not cases:
        return False
    made = new_figure(len(cases), (5.2 * len(cases), 5.4))
    if made is None:
        return False
    fig, axes = made
    for ax, case in zip(axes, cases, strict=True):
        tasks = result.case_tasks(case)
        y = np.concatenate([t.predictions[0] for t in tasks])
        names = [m for m in (*_FIGURE_METHODS, ORACLE) if all(m in t.predictions[1] for t in tasks)]
        curves = {m: np.concatenate([t.predictions[1][m] for t in tasks]) for m in names}
        top_label_reliability_diagram(y, curves, ax=ax, show_counts=False)
        ax.set_title(f"{_name(case)}: top label, {result.reps} test sets pooled", fontsize=10)
        ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def report(result, out_dir: str | Path, *, command: str | None = None) -> Report:
    """Write ``out_dir/report.md`` and ``multiclass-top-label.png``.

    The text is one table per case. Parameters and return value: as for every experiment
    (:mod:`venncal.experiments._report`).
    """
    draft = ReportDraft(result.info, out_dir, result.protocol, command, _facts(result))
    draft.md += ["## Findings (computed from the tables below)", "",
                 "Paired differences over the repetitions (where both are finite); "
                 "\"lower\"/\"higher\" only beyond two standard errors, else a tie; \"other\" "
                 "calibrators: scikit-learn's (not venn-abers, which is Venn–Abers too).", "",
                 *_findings(result)]
    draft.md += ["## Summary: log loss", "", *_summary_table(result, "log_loss"),
                 "## Summary: top-label ECE", "", *_summary_table(result, "top_label_ece")]
    draft.image("multiclass-top-label.png", partial(_figure, result),
                "top-label reliability diagrams")
    draft.md += ["## Per case", "",
                 "Means ± standard errors over the repetitions; **bold**: the best method of the "
                 "column; width: mean p1 − p0 of the binary Venn–Abers intervals (per class "
                 "for OvR and CVAP, per pair for OvO); conf − acc: mean largest probability minus "
                 "accuracy (negative: underconfident); ms: fitted model to test probabilities.",
                 ""]
    for case in result.cases:
        md, txt = _case_table(result, case)
        draft.md += md
        draft.text += txt
    draft.md += _warnings_table(result)
    return draft.write()
