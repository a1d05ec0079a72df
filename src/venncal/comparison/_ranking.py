"""Mean ranks, pairwise win rates, the noise between two methods and the recommendation."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

__all__ = ["DEFAULTS", "NOISE_SE", "SMALL_DEFAULTS", "SMALL_ROWS", "SMALL_ROWS_PER_PARAMETER",
           "SWITCH_SE", "Recommendation", "small",
           "average_ranks", "defaults_for", "mean_ranks", "paired_gap", "recommend", "win_rates"]

#: A method is within noise of the best when its mean paired log-loss gap over the
#: folds is at most this many standard errors of that mean.
NOISE_SE = 2.0
#: The recommendation leaves its default for the method of lowest mean log loss only when
#: that method's mean paired gap below the default exceeds this many standard errors:
#: :data:`NOISE_SE` times 1.5, Nadeau and Bengio's (2003) correction of the standard
#: error for the overlap of the training parts in 5-fold cross-validation,
#: ``sqrt(1 + folds * n_test / n_train) = sqrt(1 + 5/4) = 1.5``.
SWITCH_SE = 3.0

#: The defaults of the recommendation, in order (the first that ran on every fold is the
#: default), per problem and whether intervals are asked for.  Taken from CalArena's
#: published ranks by log loss (Berta et al. 2026, quoted in issue 25), not from venncal's
#: own arena: binary tabular, Beta calibration, quadratic logistic, then Platt lead;
#: multiclass tabular, structured matrix scaling, vector scaling, matrix scaling
#: (Dirichlet) and temperature scaling.  With intervals, first the leader clipped into the
#: Venn-Abers intervals (``point="clip"``): binary, Beta calibration's probability clipped
#: into IVAP's interval fitted on it; K classes, structured matrix scaling's clipped into
#: the one-vs-rest IVAP intervals, renormalised.  The clipped point prediction is CalArena's
#: leader wherever Venn-Abers finds it consistent with the data, and the intervals are the
#: unclipped chain's, so they keep its guarantee (what a chain fitted on the same rows keeps:
#: docs/parametric.md, "Venn-Abers on top"); but the clipped point is not itself a
#: Venn-Abers prediction: it keeps the interval's guarantee, not the calibration in the
#: small of the merged ``p`` (arena, 2026-11-26: within 1% of SMS's log loss on 95% of the
#: multiclass tasks, against 26% for temperature's unclipped chain).  Then
#: binary: CVAP, then IVAP (Vovk, Petej & Fedorova 2015: CVAP's log loss is the lowest of
#: Platt, isotonic, IVAP and CVAP); K classes: the chain from temperature scaling to
#: one-vs-rest IVAP, then one-vs-rest and one-vs-one IVAP (CalArena: one-vs-rest
#: Venn-Abers alone is worse than the uncalibrated model in 60-75% of the multiclass
#: experiments).
DEFAULTS = {
    ("binary", False): ("beta", "quadratic-logistic", "platt"),
    ("multiclass", False): ("structured-matrix-scaling", "vector-scaling", "matrix-scaling",
                            "temperature"),
    ("binary", True): ("beta+ivap-clip", "cvap", "ivap"),
    ("multiclass", True): ("structured-matrix-scaling+ovr-ivap-cap", "temperature+ovr-ivap",
                           "ovr-ivap", "ovo-ivap"),
}

#: Below this many calibration rows (of positive weight) the binary defaults start from
#: Platt scaling, two parameters, instead of Beta calibration, three
#: (:data:`SMALL_DEFAULTS`).  Measured (``benchmarks/bench_small_data.py``, report
#: ``benchmarks/results/small-data-2026-11-26.md``: 6 UCI sets, 3 models, 10 splits, the
#: calibrators fitted on ``n`` rows and scored on held-out rows): Platt's mean held-out log
#: loss is below Beta's at 50, 100 and 150 rows (0.334 against 0.409, 0.335 against 0.343,
#: 0.376 against 0.380; Beta's likelihood had no maximum on 6 and 1 of the 180 splits of
#: 50 and 100 rows), Beta's below Platt's at 200, 300, 400 and 1,000 rows.
SMALL_ROWS = 200
#: For K classes, below this many calibration rows per parameter of structured matrix
#: scaling (``K**2 + K + 1``) the defaults start from temperature scaling, one parameter
#: (:data:`SMALL_DEFAULTS`): 130 rows for K = 3, 430 for K = 6, 1,110 for K = 10.  Measured
#: on a benchmark that is not the calibration arena (``benchmarks/bench_small_multiclass.py``,
#: report ``benchmarks/results/small-multiclass-2026-11-26.md``: digits, iris, wine and
#: synthetic K = 4 and 6 sets under three models, 86 splits, fitted on ``n`` rows and scored
#: on held-out rows): below about 10 rows per parameter structured and full matrix scaling
#: lose to temperature scaling (K = 6, n = 100: 1.528 against 1.209; digits, n = 200: 0.354
#: against 0.099), from about 19 they tie or win; starting from temperature there lowered
#: the rule's held-out log loss in 9 of the 11 groups it changed (factors 10 to 16 alike).
SMALL_ROWS_PER_PARAMETER = 10
#: The defaults below :data:`SMALL_ROWS` rows (binary) or :data:`SMALL_ROWS_PER_PARAMETER`
#: rows per parameter of structured matrix scaling (K classes).  Binary: Platt's probability
#: clipped into IVAP's interval comes first, with intervals or not: on the small-data
#: benchmark (``benchmarks/results/small-data-2026-11-26.md``) its mean held-out log loss is
#: below Platt's at 50, 100 and 200 rows (0.3327 against 0.3339, 0.3317 against 0.3346,
#: 0.3698 against 0.3743).  K classes: when temperature scaling failed on a fold (its fit
#: refuses rows whose scores separate the classes: the likelihood has no maximum), the next
#: default is the uncalibrated scores, no parameter, not vector scaling, ``2K``: on the
#: small K-class benchmark (``benchmarks/results/small-multiclass-2026-11-26.md``, K = 3,
#: 40 rows) the rule starting from temperature ended on vector scaling, held-out log loss
#: 1.318, against the scores' 0.155 and temperature's 0.116.  Both were chosen after reading the
#: full arena of 2026-11-27 (``benchmarks/results/arena-2026-11-27.md``), so its figures
#: for them are not independent evidence (see there).
SMALL_DEFAULTS = {
    ("binary", False): ("platt+ivap-clip", "platt", "beta", "quadratic-logistic"),
    ("binary", True): ("platt+ivap-clip", "beta+ivap-clip", "cvap", "ivap"),
    ("multiclass", False): ("temperature", "uncalibrated", "vector-scaling",
                            "structured-matrix-scaling", "matrix-scaling"),
    ("multiclass", True): ("temperature+ovr-ivap-cap", "temperature+ovr-ivap", "ovr-ivap",
                           "ovo-ivap"),
}


def small(problem: str, rows: int | None, classes: int | None = None) -> bool:
    """Whether ``rows`` calibration rows are few for the problem's defaults (see SMALL_*).

    Examples
    --------
    >>> small("binary", 150), small("multiclass", 449, 10), small("multiclass", 2000, 10)
    (True, True, False)
    """
    if rows is None:
        return False
    if problem == "binary":
        return rows < SMALL_ROWS
    return classes is not None and rows < SMALL_ROWS_PER_PARAMETER * (classes**2 + classes + 1)


def defaults_for(problem: str, intervals: bool, rows: int | None = None,
                 classes: int | None = None) -> tuple:
    """The defaults of the rule, in order, for a problem, intervals, rows and classes.

    Examples
    --------
    >>> defaults_for("binary", False)[0], defaults_for("binary", False, rows=150)[0]
    ('beta', 'platt+ivap-clip')
    >>> defaults_for("multiclass", False, rows=449, classes=10)[0]
    'temperature'
    """
    key = (problem, bool(intervals))
    return SMALL_DEFAULTS[key] if small(problem, rows, classes) else DEFAULTS[key]


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..m of ``values`` (lower is better), ties sharing their mean rank, NaN last.

    Examples
    --------
    >>> average_ranks(np.array([0.3, 0.1, 0.3, np.nan])).tolist()
    [2.5, 1.0, 2.5, 4.0]
    """
    v = np.where(np.isnan(values), np.inf, values)
    order = np.argsort(v, kind="stable")
    ranks = np.empty(v.shape[0])
    i = 0
    while i < v.shape[0]:
        j = i
        while j + 1 < v.shape[0] and v[order[j + 1]] == v[order[i]]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def mean_ranks(per_fold: Mapping[str, np.ndarray]) -> dict[str, float]:
    """Each method's rank on each fold (among ``per_fold``'s methods), averaged over the folds."""
    names = list(per_fold)
    if not names:
        return {}
    table = np.array([per_fold[m] for m in names])  # (methods, folds)
    ranks = np.column_stack([average_ranks(table[:, f]) for f in range(table.shape[1])])
    return {m: float(ranks[i].mean()) for i, m in enumerate(names)}


def win_rates(per_fold: Mapping[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """``rates[a][b]``: the fraction of folds where ``a``'s loss is below ``b``'s, ties half.

    So ``rates[a][b] + rates[b][a] == 1``.
    """
    out: dict[str, dict[str, float]] = {}
    for a, la in per_fold.items():
        out[a] = {}
        for b, lb in per_fold.items():
            if a != b:
                la_, lb_ = np.nan_to_num(la, nan=np.inf), np.nan_to_num(lb, nan=np.inf)
                out[a][b] = float(np.mean((la_ < lb_) + 0.5 * (la_ == lb_)))
    return out


def paired_gap(loss: np.ndarray, best: np.ndarray) -> tuple[float, float]:
    """``(mean, standard error)`` over the folds of ``loss - best`` (equal infinities: 0)."""
    with np.errstate(invalid="ignore"):  # inf - inf where both are infinite: 0 below
        d = np.where(loss == best, 0.0, loss - best)
    if not np.isfinite(d).all():
        return (math.inf if (d > 0).any() else -math.inf), math.nan
    return float(d.mean()), float(d.std(ddof=1) / math.sqrt(d.shape[0]))


def within_noise(loss: np.ndarray, best: np.ndarray) -> bool:
    """Whether the mean paired gap is at most :data:`NOISE_SE` standard errors (or zero)."""
    mean, se = paired_gap(loss, best)
    return mean == 0.0 or (math.isfinite(mean) and mean <= NOISE_SE * se)


class Recommendation(NamedTuple):
    """The method a comparison recommends, and why.

    Attributes
    ----------
    method : str or None
        None when no method ran on every fold.
    reason : str
    best : str or None
        The method of lowest mean out-of-fold log loss.
    within_noise : tuple of str
        The methods whose log loss is within noise of ``best``'s, ``best`` included.
    default : str or None
        The default the rule started from (None under the lowest-mean rule, or
        when no default ran on every fold).
    """

    method: str | None
    reason: str
    best: str | None
    within_noise: tuple
    default: str | None = None


#: How to ask for intervals, in both spellings.
ASK_INTERVALS = "intervals=True in Python, --intervals on the command line"


def recommend(order: Sequence[str], ranks: Mapping[str, float], losses: Mapping[str, np.ndarray],
              gives_intervals: Mapping[str, bool], intervals: bool, *,
              problem: str | None = None, failed: Sequence[str] = (), rows: int | None = None,
              certain: Mapping[str, bool] | None = None, classes: int | None = None,
              unsettled: Mapping[str, bool] | None = None) -> Recommendation:
    """The recommendation among the methods of ``order`` (best mean log-loss rank first).

    With ``problem`` ("binary" or "multiclass"), the default rule: the default
    is the first method of ``DEFAULTS[(problem, intervals)]`` that ran on
    every fold (one not applicable to the scores, or failed on a fold, passes
    to the next); it is kept unless the method of lowest mean out-of-fold log
    loss (with ``intervals``: among the Venn-Abers methods) beats it by more
    than :data:`SWITCH_SE` standard errors of their paired gap over the folds.
    Picking the lowest of some twenty noisy cross-validated means favours the
    luckiest method (the winner's curse); the default, chosen on an
    independent benchmark, moves only for a clear gap.  When no default ran,
    or without ``problem``, the lowest-mean rule: the method of lowest mean
    out-of-fold log loss (ties: the better mean rank; with ``intervals`` the
    Venn-Abers method of lowest mean).  Either way a Venn-Abers method within
    noise of the pick is named in the reason.  ``failed``: the methods that
    failed on a fold (named when a default is among them).

    ``rows``: the number of calibration rows (of positive weight); below
    :data:`SMALL_ROWS` the binary defaults are :data:`SMALL_DEFAULTS`, and so
    are the K-class ones (``classes``: K) below :data:`SMALL_ROWS_PER_PARAMETER`
    rows per parameter of structured matrix scaling.
    ``unsettled``: the methods whose fit did not converge on some fold (a
    likelihood without a maximum, on nearly separable data: the fold's log loss
    says little about new rows); the default rule does not move to them either.
    ``certain``: the methods that forecast a probability of exactly 0 or 1
    on some out-of-fold row.  The default rule never moves to one of them:
    a wrong certain forecast costs an infinite log loss, which a few folds
    of a few hundred rows often do not meet (on the small-data benchmark the
    rule's moves to histogram binning cost +53 and +2.3 in held-out log
    loss, where its other moves gained).
    """
    if not order:
        return Recommendation(None, "no method ran on every fold (see the failures)", None, ())
    means = {m: float(np.mean(losses[m])) for m in order}
    by_mean = sorted(order, key=lambda m: (means[m], order.index(m)))
    best = by_mean[0]
    folds = losses[best].shape[0]
    near = tuple(m for m in by_mean if within_noise(losses[m], losses[best]))
    va = [m for m in by_mean if gives_intervals[m]]
    default, passed = None, []
    if problem is not None:
        for m in defaults_for(problem, intervals, rows, classes):
            if m in order and (gives_intervals[m] or not intervals):
                default = m
                break
            passed.append(m)
    if default is None:
        pick, why = _lowest_mean(by_mean, means, ranks, losses, va, intervals)
        if passed and (va or not intervals):
            why += (f"; no default ({', '.join(passed)}) ran on every fold, so the pick is the "
                    "lowest mean")
    else:
        pool = va if intervals else by_mean
        sure = [m for m in pool if m != default and (certain or {}).get(m)]
        loose = [m for m in pool if m != default and m not in sure and (unsettled or {}).get(m)]
        pick, why = _by_default(default, [m for m in pool if m not in sure and m not in loose],
                                means, ranks, losses, intervals, bool(sure), bool(loose))
        if sure and means[sure[0]] < means[pick]:
            why += (f"; {', '.join(sure)} forecast a probability of 0 or 1 out of fold (a wrong "
                    "one costs an infinite log loss, which the folds may not meet), so the rule "
                    "does not move to " + ("it" if len(sure) == 1 else "them"))
        if loose and means[loose[0]] < means[pick]:
            why += (f"; {', '.join(loose)} did not converge on a fold (no maximum of the "
                    "likelihood: nearly separable folds, whose log loss says little about new "
                    "rows), so the rule does not move to " + ("it" if len(loose) == 1 else "them"))
        if small(problem, rows, classes):
            first = defaults_for(problem, intervals, rows, classes)[0]
            few = (f"fewer than {SMALL_ROWS}" if problem == "binary" else
                   f"fewer than {SMALL_ROWS_PER_PARAMETER} per parameter of structured matrix "
                   f"scaling, {SMALL_ROWS_PER_PARAMETER * (classes**2 + classes + 1):,} for "
                   f"{classes} classes")
            fewer = ("Platt scaling's two parameters, not Beta calibration's three"
                     if problem == "binary" else "temperature scaling's one parameter")
            why += f"; on {rows} rows ({few}) the defaults start from {first} ({fewer})"
        if passed:
            said = [f"{m} {'failed on a fold' if m in failed else 'was not compared'}"
                    for m in passed]
            why += "; " + "; ".join(said) + f", so the default is {default}"
        if gives_intervals[pick] and not intervals:
            why += "; it gives Venn-Abers intervals"
    if not intervals and not gives_intervals[pick] and va:
        other = recommend(order, ranks, losses, gives_intervals, True, problem=problem,
                          failed=failed, rows=rows, certain=certain, classes=classes,
                          unsettled=unsettled).method
        if within_noise(losses[other], losses[pick]):
            why += (f"; {other} gives Venn-Abers intervals and its log loss is within noise of "
                    f"{pick}'s ({_gap(other, pick, losses)}): ask for intervals to prefer it "
                    f"({ASK_INTERVALS})")
    if pick == "uncalibrated" and len(order) == 1:
        why += ("; it is the only method that ran on every fold: every calibrator failed on "
                "some fold (see the failures)")
    elif pick == "uncalibrated" and pick == best:
        why += "; no calibrator improves on the scores themselves"
    elif pick == "uncalibrated":  # kept as the default, or the others left out above
        why += "; the scores themselves are the pick: no calibrator to fit"
    tied = [m for m in by_mean[1:] if means[m] == means[best]]
    if tied:
        why += f"; {best} is tied on mean log loss with {', '.join(tied)} (first by mean rank)"
    top = order[0]
    if pick == best and ranks[top] < ranks[pick]:
        why += (f"; the best mean rank is {top}'s ({ranks[top]:.2f}, against "
                f"{ranks[pick]:.2f}): ranks and means disagree when one fold is far off")
    if len(order) > 1 and len(near) == len(order):
        why += (f"; all {len(order)} methods are within noise of the best (paired log-loss gaps "
                f"within {NOISE_SE:g} standard errors over {folds} folds): on these data the "
                "choice matters little")
    return Recommendation(pick, why, best, near, default)


def _lowest_mean(by_mean, means, ranks, losses, va, intervals) -> tuple[str, str]:
    """The lowest-mean rule: ``(pick, reason)``."""
    best = by_mean[0]
    lowest = (f"lowest mean log loss over {losses[best].shape[0]} folds ({means[best]:.4g}; "
              f"mean rank {ranks[best]:.2f})")
    if intervals and not va:
        return best, (f"intervals were asked for, but no Venn-Abers method ran on every fold; "
                      f"{best} has the {lowest}")
    if intervals and va[0] != best:
        return va[0], (f"intervals were asked for: {va[0]} is the Venn-Abers method of lowest "
                       f"mean log loss ({means[va[0]]:.4g}); {_gap(va[0], best, losses)}")
    if va and va[0] == best:
        return best, f"{lowest}, and it gives Venn-Abers intervals"
    nxt = f" (next: {by_mean[1]}, {means[by_mean[1]]:.4g})" if len(by_mean) > 1 else ""
    return best, f"{lowest}{nxt}"


def _by_default(default, pool, means, ranks, losses, intervals, sure=False,
                loose=False) -> tuple[str, str]:
    """The default rule among ``pool`` (lowest mean first): ``(pick, reason)``.

    ``sure``, ``loose``: whether methods with certain forecasts, or whose fits did not
    converge, were left out of ``pool``.
    """
    low = pool[0]
    folds = losses[low].shape[0]
    asked = "intervals were asked for: " if intervals else ""
    among = " among the Venn-Abers methods" if intervals else ""
    if sure or loose:
        among += (" of those" if intervals else " among the methods") + " that " + \
            " and ".join(["never forecast 0 or 1"] * sure + ["converged on every fold"] * loose)
    rule = (f"the rule: keep the default {default} unless the method of lowest mean "
            f"out-of-fold log loss{among} beats it by more than {SWITCH_SE:g} standard errors "
            f"of their paired gap over the {folds} folds")
    if low == default:
        return default, (f"{asked}{default}, the default, has the lowest mean log loss{among} "
                         f"over {folds} folds ({means[default]:.4g}; mean rank "
                         f"{ranks[default]:.2f}); {rule}")
    gap, se = paired_gap(losses[default], losses[low])
    if gap == math.inf:
        size = "is infinite on a fold where it is finite"
    else:
        spread = (f"{gap / se:.2g} standard errors of the paired gap" if se > 0 else
                  "the same gap on every fold" if gap > 0 else "no gap on any fold")
        size = f"is {gap:.4g} higher ({means[default]:.4g} against {means[low]:.4g}), {spread}"
    switch = gap == math.inf or (math.isfinite(gap) and gap > SWITCH_SE * se)
    if switch:
        return low, (f"{asked}{low} has the lowest mean log loss{among} over {folds} folds "
                     f"(mean rank {ranks[low]:.2f}); the default {default}'s log loss {size}: "
                     f"beyond {SWITCH_SE:g}, so {low} replaces it; {rule}")
    return default, (f"{asked}{default}, the default: {low} has the lowest mean log loss{among}, "
                     f"but {default}'s {size}, not beyond {SWITCH_SE:g} (mean rank "
                     f"{ranks[default]:.2f} against {ranks[low]:.2f}); {rule}")


def _gap(method: str, best: str, losses: Mapping[str, np.ndarray]) -> str:
    mean, se = paired_gap(losses[method], losses[best])
    return f"log loss {mean:+.4g} (standard error {se:.2g}) against {best}, paired over the folds"
