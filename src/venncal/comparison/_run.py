"""Cross-validate every applicable calibrator on a user's calibration scores: :func:`compare`."""

from __future__ import annotations

import contextlib
import shlex
import time
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from .._rows import RowError
from .._validation import check_sample_weight
from ..tables import Param, ParameterError
from ._candidates import BINARY, MULTICLASS, Candidate, candidates_for
from ._metrics import FoldPredictions, metrics_for
from ._result import Comparison, MethodResult

__all__ = ["compare", "stratified_folds"]

#: The inner folds of a calibrator fitted per fold (cross Venn-Abers), within each training part.
INNER_FOLDS = 5


def stratified_folds(codes: np.ndarray, folds: int, rng: np.random.Generator) -> np.ndarray:
    """Assign each row a fold 0..folds-1: each class shuffled, then dealt out in turn.

    The classes are dealt one after the other, each starting at the fold where
    the previous one stopped, so every fold gets ``n // folds`` or one more
    rows, and each class ``n_k // folds`` or one more.  Deterministic given the
    generator's state.

    Examples
    --------
    >>> import numpy as np
    >>> stratified_folds(np.array([0, 0, 0, 1, 1, 1]), 3, np.random.default_rng(0)).tolist()
    [1, 2, 0, 2, 1, 0]
    """
    out = np.empty(codes.shape[0], dtype=np.intp)
    start = 0
    for k in np.unique(codes):
        rows = np.flatnonzero(codes == k)
        rows = rows[rng.permutation(rows.shape[0])]
        out[rows] = (start + np.arange(rows.shape[0])) % folds
        start = (start + rows.shape[0]) % folds
    return out


def _labels(y, n: int, problem: str, classes, K: int):
    """``(classes_, codes)``: the classes in column order and each row's index among them."""
    if problem == MULTICLASS:
        from ..parametric._inputs import class_codes

        return class_codes(y, n, classes, K)
    from .._validation import check_labels

    cls, y01 = check_labels(y, n, classes, advice="pass classes=[negative, positive]",
                            single_01=False)
    return cls, y01.astype(np.intp)


def _scores(scores, score):
    """The scores as float64, ``(problem, array)``; the score kind is checked against them."""
    arr = np.asarray(scores)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim == 1:
        if score not in ("proba", "logit", "margin", None):
            raise ParameterError(Param("score"), " must be 'proba', 'logit', 'margin' or None "
                                 f"for one score column; got {score!r}")
        from .._validation import check_probabilities, check_scores

        s = check_probabilities(arr, name="scores") if score == "proba" else check_scores(arr)
        return BINARY, s
    if arr.ndim != 2:
        raise ValueError(f"scores must have shape (n_samples,) or (n_samples, K); got {arr.shape}")
    if score not in ("proba", "logit", "margin"):
        raise ParameterError(Param("score"), " must be 'proba', 'logit' or 'margin' for K "
                             f"class scores (never guessed); got {score!r}")
    from ..multiclass._scores import check_class_scores

    return MULTICLASS, check_class_scores(arr, arr.shape[1], score)


def _check_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ParameterError(Param(name), f" must be an integer >= {minimum}; got {value!r}")
    return int(value)


def compare(
    scores, y, *, classes=None, score=None, methods: Sequence[str] | None = None,
    folds: int = 5, seed: int = 0, sample_weight=None, intervals: bool = False,
    progress: Callable | None = None,
) -> Comparison:
    """Cross-validate every applicable calibrator on calibration scores; rank and recommend.

    The rows are split into ``folds`` stratified folds (each class shuffled by
    ``numpy.random.default_rng(seed)`` and dealt out in turn); each method is
    fitted on all folds but one and scored on that one, for every fold.  The
    methods are those of :data:`~venncal.comparison.CANDIDATES` that apply to
    the scores (one column: two classes; K columns: K classes) and their kind;
    the metrics those of :data:`~venncal.comparison.METRICS`.  Everything but
    the times is the same, bit for bit, for the same inputs and ``seed``.

    Parameters
    ----------
    scores : array-like of shape (n_samples,) or (n_samples, K)
        Calibration scores of a model: one column (the positive class's score)
        for two classes, one column per class for K classes.
    y : array-like of shape (n_samples,)
        The labels (any coding: numbers, booleans, text).
    classes : array-like, default=None
        Two classes: ``[negative, positive]``; K classes: the class of each
        column.  Default: the labels sorted (numbers as numbers, text as text).
    score : {"proba", "logit", "margin"}, default=None
        What the scores are; required for K columns (never guessed).  For one
        column, None leaves out only the ``uncalibrated`` reference row, which
        needs ``"proba"`` or ``"logit"`` to read the score as a probability.
    methods : sequence of str, default=None
        The candidates to compare (default: every applicable one).
    folds : int >= 2, default=5
    seed : int >= 0, default=0
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative frequency weights, for the fits and the metrics.
    intervals : bool, default=False
        Whether the recommendation must give Venn-Abers intervals.  The
        recommendation keeps a default (binary: Beta calibration, then
        quadratic logistic, then Platt; K classes: structured matrix scaling,
        vector scaling, matrix scaling, temperature; with intervals: Beta
        calibration clipped into IVAP's interval, CVAP, then IVAP; K classes:
        structured matrix scaling clipped into the one-vs-rest IVAP intervals,
        temperature then one-vs-rest IVAP, one-vs-rest IVAP, one-vs-one IVAP:
        the first that ran on every fold) unless the method of
        lowest mean log loss beats it by more than 3 standard errors of their
        paired gap over the folds (:meth:`Comparison.recommend`).
    progress : callable, default=None
        ``progress(label)`` returns a context manager whose value has
        ``update(count, fraction)``; told each fit done (methods x folds).

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError, TypeError
        For bad scores, labels, weights or parameters (a method that fails on a
        fold is not an error: the result reports it with its reason).

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.comparison import compare
    >>> rng = np.random.default_rng(0)
    >>> s = rng.normal(size=600)
    >>> y = rng.random(600) < 1 / (1 + np.exp(-2 * s))
    >>> result = compare(s, y, score="logit", methods=["uncalibrated", "platt", "ivap"], folds=3)
    >>> result.recommendation.method        # the default: beta, quadratic-logistic not compared
    'platt'
    >>> round(result.mean("platt")["log_loss"], 3)
    0.47
    >>> compare(s, y, score="logit", methods=["uncalibrated", "platt", "ivap"], folds=3,
    ...         intervals=True).recommendation.method
    'ivap'
    """
    problem, s = _scores(scores, score)
    n = s.shape[0]
    K = 2 if problem == BINARY else s.shape[1]
    classes_, codes = _labels(y, n, problem, classes, K)
    w = None if sample_weight is None else check_sample_weight(sample_weight, n)
    folds = _check_int("folds", folds, 2)
    seed = _check_int("seed", seed, 0)
    if folds > n:
        raise ParameterError(Param("folds", str(folds)), f" is more than the {n} rows")
    chosen = candidates_for(problem, score, methods)
    if problem == BINARY:
        note = _below_chance(s, codes, w, classes_)
    else:
        from ..multiclass._order import column_order_note

        note = column_order_note(s, codes, classes_, w)
    notes = () if note is None else (note,)
    if note is not None:
        warnings.warn(note, UserWarning, stacklevel=2)
    fold_of = stratified_folds(codes, folds, np.random.default_rng(seed))
    _check_fold_weights(fold_of, folds, seed, w)
    target = codes.astype(bool) if problem == BINARY else codes
    # The calibrators see the labels coded: booleans (True: classes_[1]) or indices 0..K-1.
    fit_classes = [False, True] if problem == BINARY else list(range(K))
    metrics = metrics_for(problem)
    results = {c.name: MethodResult(c, folds) for c in chosen}
    oof = {c.name: np.full((n, K), np.nan) for c in chosen}
    total, done = len(chosen) * folds, 0
    bar_of = progress(f"comparing {len(chosen)} methods over {folds} folds") if progress \
        else contextlib.nullcontext()
    with bar_of as bar:
        for f in range(folds):
            test, train = fold_of == f, fold_of != f
            inner = stratified_folds(codes[train], INNER_FOLDS,
                                     np.random.default_rng([seed, f]))
            for cand in chosen:
                proba = _run_one(cand, results[cand.name], f, metrics, score, fit_classes,
                                 (s, target, w, test, train, inner))
                if proba is not None:
                    oof[cand.name][test] = proba
                done += 1
                if bar is not None:
                    bar.update(done, done / total)
    return Comparison(problem=problem, classes=classes_, score=score, folds=folds, seed=seed,
                      y=codes, sample_weight=w, results=results, oof=oof,
                      metrics=metrics, intervals=intervals, notes=notes)


def _check_fold_weights(fold_of: np.ndarray, folds: int, seed: int, w) -> None:
    """Raise if a fold's held-out rows have no positive weight (nor then, with two folds
    or more, another fold's training rows): no metric is defined on it, and every method
    would fail there for a reason that names no fold."""
    if w is None:
        return
    for f in range(folds):
        rows = fold_of == f
        if not (w[rows] > 0).any():
            raise ValueError(
                f"fold {f} (of folds 0..{folds - 1}, seed {seed}): its {int(rows.sum())} "
                "held-out rows all have sample_weight 0, so no metric is defined there; use "
                "fewer folds or another seed, or drop the rows of weight 0")


def _below_chance(s, codes, w, classes_) -> str | None:
    """A warning when the scores rank the positive class below chance (weighted AUC < 0.5)."""
    from ..metrics._checks import _unit_scaled
    from ..summary import ScoreSummary

    if w is not None:
        if not w.max() > 0.0:
            return None  # no row of positive weight: nothing to rank
        w = _unit_scaled(w)  # the AUC is scale-free: tied weights near 1e308 stay finite
    summary = ScoreSummary.from_arrays(s, codes.astype(bool), w)
    if not (summary.positive_weights.any() and summary.negative_weights.any()):
        return None  # a single class of positive weight: nothing to rank
    auc = summary.auc()
    if not auc < 0.5:
        return None
    neg, pos = classes_.tolist()
    return (
        f"the scores rank the positive class {pos!r} below chance (AUC {auc:.3f} < 0.5), so "
        "the methods that keep their order (isotonic, Venn-Abers, histogram, BBQ, ENIR) can "
        f"hardly depend on them; if the scores predict {neg!r} (or fall as {pos!r} becomes "
        f"more likely), name {neg!r} the positive class (classes=[{pos!r}, {neg!r}] in "
        f"Python, --positive-label {shlex.quote(str(neg))} on the command line)"
    )


def _run_one(cand: Candidate, result: MethodResult, f: int, metrics, score, classes, data):
    """Fit and score one method on one fold; record its metrics or its failure."""
    s, target, w, test, train, inner = data
    w_train = None if w is None else w[train]
    w_test = None if w is None else w[test]
    rows = np.flatnonzero(train)  # the rows the method sees: a row it names is one of them
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cal = cand.build(score, classes)
            grouped = getattr(cal, "_group_param", None)
            extra = {grouped: inner} if grouped else {}
            start = time.perf_counter()
            cal.fit(s[train], target[train], sample_weight=w_train, **extra)
            fitted = time.perf_counter()
            rows = np.flatnonzero(test)
            proba = np.asarray(cal.predict_proba(s[test]), dtype=np.float64)
            interval = cal.predict_interval(s[test]) if cand.intervals else None
            predicted = time.perf_counter()
            pred = FoldPredictions(cand.problem, target[test], proba, interval, w_test)
            values = {m.name: float(m.compute(pred)) for m in metrics}
    except Exception as exc:  # noqa: BLE001 - any failure of a method is reported, not raised
        if isinstance(exc, RowError):  # named as the scores given count their rows
            renamed = exc.of_rows(rows)
            result.fail(f, f"ValueError: {renamed}", renamed)
            return None
        result.fail(f, f"{type(exc).__name__}: {exc}")
        return None
    result.record(f, values, fitted - start, predicted - fitted,
                  [str(c.message) for c in caught])
    return proba
