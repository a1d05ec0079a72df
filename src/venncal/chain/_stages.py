"""What a chain asks of its two stages, and how it splits the rows between them."""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import StratifiedKFold, train_test_split

from .._base import ScoreCalibrator
from .._registry import CLASS_SCORE_CALIBRATORS, class_path
from ..multiclass._common import MulticlassCalibrator
from ..negated import NegatedScoreCalibrator

__all__ = [
    "BINARY", "CLASSES", "FITTINGS", "fold_ids", "is_grouped", "is_stage", "row_parts",
    "stage_kind", "subset",
]

#: How the two stages share the calibration rows (docs/parametric.md, "Venn–Abers on top").
FITTINGS = ("same", "split", "cross")

#: The two kinds of calibrator input and output a chain knows.
BINARY, CLASSES = "binary", "classes"


def is_stage(value) -> bool:
    """Whether ``value`` is a calibrator object (not a class) a chain may hold."""
    return not isinstance(value, type) and all(
        callable(getattr(value, name, None)) for name in ("fit", "predict_proba", "get_params")
    )


def stage_kind(stage, role: str) -> str:
    """``"binary"`` (one score per row -> P(classes_[1])) or ``"classes"`` ((n, K) -> (n, K)).

    The calibrators have no common way to say what they take and give, so
    it is read from what they are: a binary score-level calibrator
    (:class:`~venncal._base.ScoreCalibrator`, or one wrapped in
    :class:`~venncal.NegatedScoreCalibrator`), a one-vs-rest or one-vs-one
    calibrator, a calibrator of K class scores registered in
    ``_registry.CLASS_SCORE_CALIBRATORS`` (temperature scaling), or a chain
    (the kind of its second stage).
    """
    if isinstance(stage, (ScoreCalibrator, NegatedScoreCalibrator)):
        return BINARY
    if isinstance(stage, MulticlassCalibrator):
        return CLASSES
    nested = getattr(stage, "_chain_kind", None)
    if callable(nested):
        return nested()
    try:
        registered = class_path(type(stage)) in CLASS_SCORE_CALIBRATORS
    except TypeError:
        registered = False
    if registered:
        return CLASSES
    raise TypeError(
        f"{role} must be a venncal calibrator of one score per row (e.g. PlattCalibrator(), "
        "VennAbersCalibrator()) or of K class scores (e.g. TemperatureCalibrator(), "
        f"OneVsRestCalibrator(score='proba')); got {type(stage).__name__}"
    )


def is_grouped(stage) -> bool:
    """Whether ``stage`` is fitted per fold (a cross Venn-Abers predictor, or one inside)."""
    if isinstance(stage, MulticlassCalibrator):
        return stage._grouped
    return getattr(stage, "_group_param", None) is not None


def _labels(y: np.ndarray):
    try:
        return np.unique(y, return_counts=True)
    except TypeError:
        raise TypeError("y mixes labels of types that cannot be compared") from None


def _check_counts(classes, counts, least: int, why: str) -> None:
    few = np.flatnonzero(counts < least)
    if few.size:
        i = int(few[0])
        raise ValueError(
            f"{why} needs at least {least} rows of each class (of positive weight); class "
            f"{classes[i].item()!r} has {int(counts[i])}"
        )


def _check_part(classes, y_part: np.ndarray, what: str, remedy: str) -> None:
    present = np.unique(y_part)
    missing = [c.item() for c in classes if not np.isin(c, present)]
    if missing:
        raise ValueError(
            f"{what} has no rows of class(es) {missing!r}: every class needs rows there "
            f"({remedy}, or fitting='same')"
        )


def row_parts(fitting: str, y, w, *, calibration_size, cv: int, random_state, folds=None):
    """The rows of each first stage and of its Venn-Abers part: ``[(first_rows, then_rows), ...]``.

    Indices into the rows given.  ``"same"``: every row, twice.  Otherwise
    rows of weight 0 are left out (they count nowhere) and the rest are
    split by class: ``"split"`` into one pair by ``train_test_split`` (the
    Venn-Abers part of size ``calibration_size``), ``"cross"`` into ``cv``
    folds by ``StratifiedKFold(shuffle=True)`` (or by the given ``folds``
    ids, sorted), fold k's pair being (the other folds, fold k).  Every
    class must have rows in every first stage's part, and with ``"split"``
    in the Venn-Abers part too.
    """
    y = np.asarray(y)
    n = y.shape[0]
    everything = np.arange(n)
    if fitting == "same":
        return [(everything, everything)]
    kept = everything if w is None else np.flatnonzero(w > 0)
    y_kept = y[kept]
    classes, counts = _labels(y_kept)
    if fitting == "split":
        _check_counts(classes, counts, 2, "fitting='split' (a stratified split)")
        first, then = train_test_split(
            kept, test_size=calibration_size, stratify=y_kept, random_state=random_state
        )
        first, then = np.sort(first), np.sort(then)
        remedy = "more data, another calibration_size or random_state"
        _check_part(classes, y[first], "the first stage's part (fitting='split')", remedy)
        _check_part(classes, y[then], "the Venn-Abers part (fitting='split')", remedy)
        return [(first, then)]
    if folds is None:
        _check_counts(classes, counts, cv, f"fitting='cross' with cv={cv} folds")
        splitter = StratifiedKFold(cv, shuffle=True, random_state=random_state)
        parts = [(kept[a], kept[b]) for a, b in splitter.split(np.zeros(kept.shape[0]), y_kept)]
    else:
        f = np.asarray(folds)
        if f.ndim != 1 or f.shape[0] != n:
            raise ValueError(f"folds must be 1-D with one fold id per row ({n}); got shape {f.shape}")
        ids, index = np.unique(f[kept], return_inverse=True)
        if ids.shape[0] < 2:
            raise ValueError(
                "fitting='cross' needs at least two folds (each first stage is fitted on the "
                f"other folds); folds holds {ids.shape[0]}"
            )
        parts = [(kept[index != k], kept[index == k]) for k in range(ids.shape[0])]
    remedy = "more data, or other folds" if folds is not None else "more data, or a smaller cv"
    for k, (first, _) in enumerate(parts):
        _check_part(classes, y[first], f"the first stage of fold {k} (fitting='cross')", remedy)
    return parts


def fold_ids(parts, n: int, folds=None) -> np.ndarray:
    """Each row's fold id (``folds`` as given, else the index of its part); -1 for no fold."""
    if folds is not None:
        return np.asarray(folds)
    out = np.full(n, -1, dtype=np.intp)
    for k, (_, rows) in enumerate(parts):
        out[rows] = k
    return out


def subset(w, rows):
    """``w[rows]``, or None for unit weights."""
    return None if w is None else w[rows]
