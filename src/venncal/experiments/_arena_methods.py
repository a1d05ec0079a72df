"""The methods of the calibration arena and how each is fitted and scored on one task.

Every candidate of :data:`venncal.comparison.CANDIDATES` (reused as it is: among them the
chains clipped into the Venn-Abers intervals), the chains "parametric first stage ->
Venn-Abers" that the comparison does not list
(:data:`EXTRA_CHAINS`), and the meta-method :data:`RECOMMENDS`: ``venncal.compare``
cross-validated on the task's calibration rows only, its recommendation refitted on all
of them.  Each method is fitted on a task's calibration rows and scored on its test rows
(:func:`run_methods`).
"""

from __future__ import annotations

import time
import warnings
from typing import NamedTuple

import numpy as np

from ..comparison._candidates import (
    _BETA,
    _IVAP,
    _OVR,
    _PLATT,
    _SMS,
    _TEMP,
    _VECTOR,
    BINARY,
    CANDIDATES,
    MULTICLASS,
    Candidate,
    _chain,
    _clipped,
    _construct,
    _multiclass,
)

__all__ = ["EXTRA_CHAINS", "FIRST_STAGE", "RECOMMENDS", "RECOMMENDS_OLD", "MethodScore",
           "methods_for", "run_methods", "score_proba"]

#: The meta-method's name: ``venncal.compare``'s recommendation (the default rule).
RECOMMENDS = "venncal recommends"
#: The same comparison's pick under the lowest-mean rule (the rule before the default
#: rule), ranked beside it on the same run; not a method of the task's ``scores``.
RECOMMENDS_OLD = "lowest CV mean (old rule)"

_QUAD = _construct("venncal.parametric.QuadraticLogisticCalibrator", score=True)


def _ovo(coupling: str):
    return _multiclass("OneVsOneCalibrator", "ivap", coupling=coupling)


def _extra(name, problem, first, then, about):
    return Candidate(name, problem, _chain(first, then), ("proba", "logit"), True, about)


#: The chains the arena adds to the comparison's candidates (all fitted on the same rows;
#: the guarded chains, ``...-ivap-clip`` for one score and ``...-ovr-ivap-cap`` for K
#: classes, are candidates of the comparison itself; the K-class ``-clip`` chains, its
#: candidates before ``-cap``, run here beside them).
EXTRA_CHAINS: tuple[Candidate, ...] = (
    _extra("platt+ivap", BINARY, _PLATT, _IVAP, "Platt scaling, then IVAP on its probability"),
    _extra("beta+ivap", BINARY, _BETA, _IVAP, "Beta calibration, then IVAP"),
    _extra("quadratic-logistic+ivap", BINARY, _QUAD, _IVAP, "quadratic logistic, then IVAP"),
    _extra("vector-scaling+ovr-ivap", MULTICLASS, _VECTOR, _OVR,
           "vector scaling, then one-vs-rest IVAP, renormalised"),
    _extra("structured-matrix-scaling+ovr-ivap", MULTICLASS, _SMS, _OVR,
           "structured matrix scaling, then one-vs-rest IVAP"),
    _extra("temperature+ovo-ivap", MULTICLASS, _TEMP, _ovo("price"),
           "temperature scaling, then one-vs-one IVAP coupled by Price et al."),
    _extra("temperature+ovo-ivap-normalize", MULTICLASS, _TEMP, _ovo("normalize"),
           "temperature scaling, then one-vs-one IVAP, normalised coupling"),
    _extra("temperature+ovo-ivap-wlw", MULTICLASS, _TEMP, _ovo("wu-lin-weng"),
           "temperature scaling, then one-vs-one IVAP, Wu-Lin-Weng coupling"),
    _extra("vector-scaling+ovo-ivap", MULTICLASS, _VECTOR, _ovo("price"),
           "vector scaling, then one-vs-one IVAP (Price)"),
    _extra("structured-matrix-scaling+ovo-ivap", MULTICLASS, _SMS, _ovo("price"),
           "structured matrix scaling, then one-vs-one IVAP (Price)"),
    _clipped("temperature+ovr-ivap-clip", MULTICLASS, _TEMP, _OVR,
             "temperature scaling clipped into the one-vs-rest IVAP intervals, renormalised"),
    _clipped("vector-scaling+ovr-ivap-clip", MULTICLASS, _VECTOR, _OVR,
             "vector scaling clipped into the one-vs-rest IVAP intervals, renormalised"),
    _clipped("structured-matrix-scaling+ovr-ivap-clip", MULTICLASS, _SMS, _OVR,
             "structured matrix scaling clipped into the one-vs-rest IVAP intervals, "
             "renormalised"),
)

#: Each chain's first stage (a method of the arena): for the chain target.
FIRST_STAGE = {
    "platt+ivap": "platt", "beta+ivap": "beta", "quadratic-logistic+ivap": "quadratic-logistic",
    "temperature+ovr-ivap": "temperature", "vector-scaling+ovr-ivap": "vector-scaling",
    "structured-matrix-scaling+ovr-ivap": "structured-matrix-scaling",
    "temperature+ovo-ivap": "temperature", "temperature+ovo-ivap-normalize": "temperature",
    "temperature+ovo-ivap-wlw": "temperature", "vector-scaling+ovo-ivap": "vector-scaling",
    "structured-matrix-scaling+ovo-ivap": "structured-matrix-scaling",
    "platt+ivap-clip": "platt", "beta+ivap-clip": "beta",
    "temperature+ovr-ivap-clip": "temperature", "vector-scaling+ovr-ivap-clip": "vector-scaling",
    "structured-matrix-scaling+ovr-ivap-clip": "structured-matrix-scaling",
    "temperature+ovr-ivap-cap": "temperature", "vector-scaling+ovr-ivap-cap": "vector-scaling",
    "structured-matrix-scaling+ovr-ivap-cap": "structured-matrix-scaling",
}

#: Methods left out of the K = 100 tasks (their cost there: K(K-1)/2 = 4,950 pairwise
#: Venn-Abers predictors, or K**2 = 10,000 matrix parameters, per fit).
TOO_BIG_FOR_K100 = ("matrix-scaling", "ovo-ivap", "temperature+ovo-ivap",
                    "temperature+ovo-ivap-normalize", "temperature+ovo-ivap-wlw",
                    "vector-scaling+ovo-ivap", "structured-matrix-scaling+ovo-ivap")


def methods_for(problem: str, score: str, K: int,
                only: tuple[str, ...] | None = None) -> list[Candidate]:
    """The fixed methods of a task: the comparison's candidates, then the extra chains."""
    pool = [c for c in (*CANDIDATES, *EXTRA_CHAINS) if c.problem == problem and score in c.scores]
    if K >= 100:
        pool = [c for c in pool if c.name not in TOO_BIG_FOR_K100]
    if only is not None:
        pool = [c for c in pool if c.name in only]
    return pool


class MethodScore(NamedTuple):
    """One method on one task's test rows."""

    log_loss: float
    brier: float
    #: mean width p1 - p0 of the Venn-Abers intervals (NaN for other methods)
    width: float
    #: seconds to fit on the calibration rows and predict the test rows
    seconds: float


def score_proba(y: np.ndarray, proba: np.ndarray) -> tuple[float, float]:
    """``(log loss, Brier)`` of (n, K) probabilities for labels 0..K-1 (Brier summed over K)."""
    from ..metrics import multiclass_brier_loss, multiclass_log_loss

    K = proba.shape[1]
    return (float(multiclass_log_loss(y, proba, classes=np.arange(K))),
            float(multiclass_brier_loss(y, proba, classes=np.arange(K))))


def _fit_predict(cand: Candidate, task, rng_seed: int):
    """Fit ``cand`` on the calibration rows; ``(test probabilities, mean width or NaN)``."""
    from ..comparison._run import INNER_FOLDS, stratified_folds

    binary = task.n_classes == 2 and task.s_cal.ndim == 1
    classes = [False, True] if binary else list(range(task.n_classes))
    y_cal = task.y_cal.astype(bool) if binary else task.y_cal
    cal = cand.build(task.score, classes)
    grouped = getattr(cal, "_group_param", None)
    extra = {grouped: stratified_folds(task.y_cal, INNER_FOLDS,
                                       np.random.default_rng(rng_seed))} if grouped else {}
    cal.fit(task.s_cal, y_cal, **extra)
    proba = np.asarray(cal.predict_proba(task.s_test), dtype=np.float64)
    width = np.nan
    if cand.intervals:
        iv = np.asarray(cal.predict_interval(task.s_test), dtype=np.float64)
        width = float(np.mean(iv[..., 1] - iv[..., 0]))
    return proba, width


def run_methods(task, seed: int, only: tuple[str, ...] | None = None,
                recommend: bool = True):
    """Every method on one task: ``(scores, failures, recommendation, warnings)``.

    ``scores[name]`` is a :class:`MethodScore`; ``failures[name]`` the error of a method
    that raised or gave non-finite probabilities; the recommendation ``(method, reason,
    method under the lowest-mean rule, the rule's inputs)`` of ``venncal.compare`` on the calibration rows
    (5 stratified folds, ``seed``), scored
    as :data:`RECOMMENDS` with the test result of the method it names (the same fit:
    every calibrator is deterministic given its rows) and the comparison's time added.
    """
    problem = BINARY if task.s_cal.ndim == 1 else MULTICLASS
    chosen = methods_for(problem, task.score, task.n_classes, only)
    scores, failures, warned = {}, {}, {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for cand in chosen:
            del caught[:]
            start = time.perf_counter()
            try:
                proba, width = _fit_predict(cand, task, seed)
            except Exception as exc:  # noqa: BLE001 - a failing method is reported, not fatal
                failures[cand.name] = f"{type(exc).__name__}: {exc}"
                continue
            seconds = time.perf_counter() - start
            if not np.isfinite(proba).all():
                failures[cand.name] = "non-finite probabilities"
                continue
            scores[cand.name] = MethodScore(*score_proba(task.y_test, proba), width, seconds)
            if caught:
                warned[cand.name] = len(caught)
        rec = None
        if recommend:
            rec = _recommend(task, seed, [c.name for c in chosen if c.name in _COMPARED[problem]],
                             scores)
    if rec is not None:
        pick, reason, seconds = rec[:3]
        if pick in scores:
            s = scores[pick]
            scores[RECOMMENDS] = s._replace(seconds=s.seconds + seconds)
        else:
            failures[RECOMMENDS] = f"recommended {pick!r}, which failed here: {reason}"
    return scores, failures, (rec[0], rec[1], rec[3], rec[4]) if rec else None, warned


_COMPARED = {p: {c.name for c in CANDIDATES if c.problem == p} for p in (BINARY, MULTICLASS)}


def _recommend(task, seed: int, names: list[str],
               scores) -> tuple[str | None, str, float, str | None, dict | None]:
    """``venncal.compare`` on the calibration rows: ``(method, reason, seconds, the
    method of the lowest-mean rule on the same comparison, the rule's inputs)``."""
    from ..comparison import compare

    start = time.perf_counter()
    try:
        result = compare(task.s_cal, task.y_cal, score=task.score, methods=names, seed=seed)
    except Exception as exc:  # noqa: BLE001 - reported as the meta-method's failure
        return (None, f"compare failed: {type(exc).__name__}: {exc}",
                time.perf_counter() - start, None, None)
    rec = result.recommendation
    seconds = time.perf_counter() - start
    return (rec.method, rec.reason, seconds, result.recommend(rule="lowest-mean").method,
            result.rule_inputs())
