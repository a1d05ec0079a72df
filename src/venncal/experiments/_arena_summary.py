"""The calibration arena's numbers: ranks, win rates, times, widths and the issue's targets.

Pure functions of the task results (anything with ``spec.group``, ``spec.data``,
``spec.model``, ``scores``: method -> an object with ``log_loss``, ``brier``,
``width`` and ``seconds``), so that each can be checked on a hand-made result.

Ranks (as CalArena): on each task the fixed methods that ran are ranked by the loss
(1 is best, ties share their mean rank, a method that failed is last); a method's mean
rank is over the tasks where it ran or failed (a method left out of a task by design,
as the one-vs-one methods at K = 100, is not ranked there).  The meta-method
"venncal recommends" takes, on each task, the rank of the method it picked (the same
test predictions), so it is ranked against the fixed methods without moving their ranks;
so does "lowest CV mean (old rule)", the same comparison's pick under the rule before
(``recommended_old``), so that the two rules are compared on the same run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..comparison._ranking import average_ranks
from ._arena_methods import FIRST_STAGE, RECOMMENDS, RECOMMENDS_OLD

__all__ = ["CHAIN_TOLERANCE", "GROUPS", "META", "TARGET_SHARE", "chain_target", "group_methods",
           "mean_ranks", "median_of", "recommend_target", "task_ranks", "where_methods_win",
           "win_rates"]

#: The report's groups of tasks, in order, and their titles.
GROUPS = {
    "binary": "binary tabular (UCI and bundled sets x models)",
    "multiclass": "multiclass tabular (iris, wine, digits x models)",
    "synthetic-binary": "synthetic logits, K = 2 (deep-learning-like)",
    "synthetic-multiclass": "synthetic logits, K = 10 and 100 (deep-learning-like)",
}
#: The meta-methods: name -> the task attribute naming the fixed method it picked.
META = {RECOMMENDS: "recommended", RECOMMENDS_OLD: "recommended_old"}
#: Target (1): a chain's test log loss at most this factor of its first stage's ...
CHAIN_TOLERANCE = 1.01
#: ... on at least this share of the multiclass tasks.
TARGET_SHARE = 0.8


def group_methods(tasks: Sequence) -> list[str]:
    """The methods seen on ``tasks`` (ran or failed), in first-seen order, the meta-method last."""
    seen: dict[str, None] = {}
    for t in tasks:
        for m in (*t.scores, *t.failures):
            if m not in META:
                seen.setdefault(m, None)
    return [*seen, *(m for m in META if any(m in _present(t) for t in tasks))]


def _present(t) -> set[str]:
    """The methods of a task (ran or failed), the meta-methods included."""
    out = set((*t.scores, *t.failures))
    if getattr(t, "recommended_old", None) is not None:
        out.add(RECOMMENDS_OLD)
    return out


def _loss(t, m: str, loss: str) -> float:
    if m == RECOMMENDS_OLD:
        m = getattr(t, "recommended_old", None)
    s = t.scores.get(m)
    return math.inf if s is None else float(getattr(s, loss))


def task_ranks(t, loss: str = "log_loss") -> dict[str, float]:
    """The ranks of one task's methods (fixed ones ranked; the meta-method its pick's rank)."""
    fixed = [m for m in (*t.scores, *t.failures) if m not in META]
    fixed = list(dict.fromkeys(fixed))
    values = np.array([_loss(t, m, loss) for m in fixed])
    ranks = dict(zip(fixed, average_ranks(values).tolist(), strict=True))
    pick = getattr(t, "recommended", None)
    if RECOMMENDS in t.scores and pick in ranks:
        ranks[RECOMMENDS] = ranks[pick]
    elif RECOMMENDS in t.failures:
        ranks[RECOMMENDS] = float(len(fixed))
    old = getattr(t, "recommended_old", None)
    if old is not None:  # its pick's rank; last if the pick failed on the test rows
        ranks[RECOMMENDS_OLD] = ranks[old] if old in t.scores else float(len(fixed))
    return ranks


def mean_ranks(tasks: Sequence, loss: str = "log_loss") -> dict[str, tuple[float, int]]:
    """``method -> (mean rank, tasks ranked)`` over ``tasks``."""
    sums: dict[str, list[float]] = {m: [] for m in group_methods(tasks)}
    for t in tasks:
        for m, r in task_ranks(t, loss).items():
            sums.setdefault(m, []).append(r)
    return {m: (float(np.mean(v)) if v else math.nan, len(v)) for m, v in sums.items()}


def win_rates(tasks: Sequence, methods: Sequence[str],
              loss: str = "log_loss") -> dict[str, dict[str, float]]:
    """``rates[a][b]``: share of the tasks with both where ``a``'s loss is below ``b``'s (ties half)."""
    out: dict[str, dict[str, float]] = {a: {} for a in methods}
    for a in methods:
        for b in methods:
            if a == b:
                continue
            both = [t for t in tasks if {a, b} <= _present(t)]
            if not both:
                out[a][b] = math.nan
                continue
            la = np.array([_loss(t, a, loss) for t in both])
            lb = np.array([_loss(t, b, loss) for t in both])
            out[a][b] = float(np.mean((la < lb) + 0.5 * (la == lb)))
    return out


def median_of(tasks: Sequence, method: str, field: str) -> float:
    """The median of ``field`` (``"seconds"``, ``"width"``) of a method over tasks (NaN if none)."""
    v = [getattr(t.scores[method], field) for t in tasks if method in t.scores]
    v = [x for x in v if not math.isnan(x)]
    return float(np.median(v)) if v else math.nan


def chain_target(tasks: Sequence) -> dict[str, tuple[float, int, float]]:
    """Target (1): per chain, over the multiclass tasks where it and its first stage ran.

    Returns ``chain -> (share of tasks with log loss <= CHAIN_TOLERANCE x the first
    stage's, tasks, median ratio of the two log losses)``.
    """
    out = {}
    for chain, first in FIRST_STAGE.items():
        ratios = [_ratio(_loss(t, chain, "log_loss"), _loss(t, first, "log_loss"))
                  for t in tasks if t.spec.group in ("multiclass", "synthetic-multiclass")
                  and first in t.scores and chain in (*t.scores, *t.failures)]
        if ratios:
            r = np.array(ratios)
            out[chain] = (float(np.mean(r <= CHAIN_TOLERANCE)), len(r), float(np.median(r)))
    return out


def _ratio(chain: float, first: float) -> float:
    """``chain / first``; 1 when they are equal (both infinite included: inf / inf is NaN)."""
    return 1.0 if chain == first else chain / first


def recommend_target(tasks: Sequence, loss: str = "log_loss",
                     meta: str = RECOMMENDS) -> tuple[float, str, float, int]:
    """Target (2): ``(the meta-method's mean rank, the best fixed method, its mean rank,
    the meta-method's rank among all fixed methods by mean rank (1: best))``.

    ``meta``: :data:`RECOMMENDS` (the default rule) or ``RECOMMENDS_OLD`` (the
    lowest-mean rule).  Over tasks of several groups a fixed method's mean rank is
    over the tasks where it was run (so binary and multiclass methods are averaged over
    different tasks)."""
    ranks = mean_ranks(tasks, loss)
    if meta not in ranks or not ranks[meta][1]:
        return math.nan, "", math.nan, 0
    fixed = {m: r for m, (r, _n) in ranks.items() if m not in META and not math.isnan(r)}
    best = min(fixed, key=lambda m: (fixed[m], m))
    mine = ranks[meta][0]
    place = 1 + sum(r < mine for r in fixed.values())
    return mine, best, fixed[best], place


def paired_ranks(tasks: Sequence, loss: str = "log_loss",
                 meta: str = RECOMMENDS) -> dict[str, tuple[float, float, int]]:
    """Per fixed method: ``(its mean rank, the meta-method's mean rank, tasks)`` over the
    tasks where both were ranked.

    Over tasks of several groups the mean ranks of :func:`recommend_target` average over
    different tasks (a multiclass method over the multiclass tasks only, the meta-method
    over all); this compares each method with the meta-method on the same tasks.
    """
    per_task = [task_ranks(t, loss) for t in tasks]
    out = {}
    for m in group_methods(tasks):
        if m in META:
            continue
        both = [r for r in per_task if m in r and meta in r]
        if both:
            out[m] = (float(np.mean([r[m] for r in both])),
                      float(np.mean([r[meta] for r in both])), len(both))
    return out


def where_methods_win(tasks: Sequence, loss: str = "log_loss") -> dict[str, dict]:
    """Per method: share of tasks where it is best, share where it beats the uncalibrated
    scores, and the (data, model) where its mean rank is best and worst."""
    out = {}
    per_task = [(t, task_ranks(t, loss)) for t in tasks]
    for m in group_methods(tasks):
        mine = [(t, r) for t, r in per_task if m in r]
        if not mine:
            continue
        best = float(np.mean([r[m] == min(r.values()) for _t, r in mine]))
        beats = [_loss(t, m, loss) < _loss(t, "uncalibrated", loss) for t, _r in mine
                 if "uncalibrated" in t.scores]
        by_case: dict[str, list[float]] = {}
        for t, r in mine:
            by_case.setdefault(f"{t.spec.data}/{t.spec.model}", []).append(r[m])
        means = {c: float(np.mean(v)) for c, v in by_case.items()}
        out[m] = {"best_share": best,
                  "beats_uncalibrated": float(np.mean(beats)) if beats else math.nan,
                  "best_case": min(means, key=lambda c: (means[c], c)),
                  "worst_case": max(means, key=lambda c: (means[c], c)),
                  "case_ranks": means}
    return out
