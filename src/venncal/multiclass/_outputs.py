"""The output columns of a multiclass calibrator in a table: their names and their values.

What the command line, Dask and Spark write for a fitted
:class:`~venncal.OneVsRestCalibrator` or :class:`~venncal.OneVsOneCalibrator`
(through :func:`venncal._engine.output_names` and
:func:`venncal._engine.score_columns`, which call these): one probability
column per class, ``{p}_{class}``, in the order of ``classes_``; and, on
request, with a Venn-Abers base, each binary problem's lower and upper
probability, ``{p0}_{unit}`` and ``{p1}_{unit}``, where ``unit`` is the class
(one-vs-rest: that class against the rest) or ``{b}_vs_{a}`` (one-vs-one: class
``b`` against class ``a``, for each pair of ``pairs_`` in order).  The columns
come in that order: every probability, then each unit's ``p0`` and ``p1``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._common import MulticlassCalibrator

__all__ = ["is_multiclass", "output_names", "score_columns", "table_scores"]


def is_multiclass(calibrator) -> bool:
    """Whether ``calibrator`` is a score-level multiclass calibrator (K score columns)."""
    return isinstance(calibrator, MulticlassCalibrator)


def _text(label) -> str:
    return str(label.item() if hasattr(label, "item") else label)


def _unit_names(calibrator) -> list[str]:
    classes = [_text(c) for c in calibrator.classes_]
    if hasattr(calibrator, "pairs_"):
        return [f"{classes[j]}_vs_{classes[i]}" for i, j in calibrator.pairs_.tolist()]
    return classes


def output_names(calibrator, prefixes: Sequence[str]) -> tuple[str, ...]:
    """Return the columns a fitted multiclass calibrator adds, from 1 or 3 prefixes.

    Parameters
    ----------
    calibrator : OneVsRestCalibrator or OneVsOneCalibrator
        Fitted.
    prefixes : sequence of str
        ``(p,)`` for the class probabilities only, or ``(p, p0, p1)`` for
        the probabilities and, with a Venn-Abers base, every unit's interval
        (other bases have none: the last two prefixes are then unused).

    Returns
    -------
    tuple of str
    """
    prefixes = tuple(prefixes)
    if len(prefixes) not in (1, 3) or not all(isinstance(n, str) for n in prefixes):
        raise ValueError(
            "for a multiclass calibrator, output_cols is one prefix (p: columns p_<class>) or "
            f"three (p, p0, p1: also each problem's interval); got {prefixes!r}"
        )
    names = [f"{prefixes[0]}_{_text(c)}" for c in calibrator.classes_]
    if len(prefixes) == 3 and hasattr(calibrator, "predict_interval"):
        for unit in _unit_names(calibrator):
            names += [f"{prefixes[1]}_{unit}", f"{prefixes[2]}_{unit}"]
    if len(set(names)) != len(names):
        raise ValueError(
            f"the classes {calibrator.classes_.tolist()!r} give the same column name twice "
            f"({names!r}): two classes have the same text"
        )
    return tuple(names)


def table_scores(calibrator, scores: np.ndarray) -> np.ndarray:
    """Return table scores (n, K), or (n, F*K) fold by fold, as the calibrator takes them.

    A multiclass calibrator with a cross Venn-Abers base predicts from K
    columns (one model's scores) or from ``F * K`` columns: the K class
    scores of fold ``folds_[0]``, then those of the next fold, and so on.
    """
    scores = np.asarray(scores, dtype=np.float64)
    K = calibrator.classes_.shape[0]
    if scores.ndim != 2 or scores.shape[1] == K:
        return scores
    grouped = getattr(calibrator, "_grouped", False)
    F = len(calibrator.folds_) if grouped else 0
    if grouped and scores.shape[1] == F * K:
        return scores.reshape(scores.shape[0], F, K)
    expected = f"{K}" + (f" or {F * K} ({F} folds x {K} classes)" if grouped else "")
    raise ValueError(
        f"a calibrator of {K} classes takes {expected} score columns; got {scores.shape[1]}"
    )


def score_columns(calibrator, scores: np.ndarray, n_out: int) -> list[np.ndarray]:
    """Return the ``n_out`` output columns (see :func:`output_names`) of table scores."""
    x = table_scores(calibrator, scores)
    if x.shape[0] == 0:
        return [np.empty(0) for _ in range(n_out)]
    proba = calibrator.predict_proba(x)
    columns = [np.ascontiguousarray(proba[:, k]) for k in range(proba.shape[1])]
    if n_out > len(columns):
        interval = calibrator.predict_interval(x)
        for u in range(interval.shape[1]):
            columns += [np.ascontiguousarray(interval[:, u, 0]),
                        np.ascontiguousarray(interval[:, u, 1])]
    if len(columns) != n_out:
        raise ValueError(f"expected {n_out} output columns, the calibrator gives {len(columns)}")
    return columns
