"""What the Spark and Dask adapters share to fit a multiclass calibrator.

A :class:`~venncal.OneVsRestCalibrator` or :class:`~venncal.OneVsOneCalibrator`
is fitted by ``fit_summary`` of one :class:`~venncal.ScoreSummary` per binary
problem (a *unit*: a class, or a pair of classes; and, with a cross
Venn-Abers base, per fold).  An engine fits it in two passes over its rows:

1. **labels**: the distinct labels (:func:`classes_of` orders them as the
   local ``fit`` does, or checks them against ``classes=``), so that every
   partition knows which score column is which class;
2. **summaries**: each partition is reduced by :func:`partition_summaries`
   to one summary per unit (and fold) present in it, with the binary scores
   the calibrator's own ``fit`` computes, row by row, and a
   :class:`ClassProblems` record counting the rows that break the rules of
   the local ``fit``; the partial results merge exactly
   (:func:`merge_parts`), in any order.

:func:`fit_parts` checks the merged problems (raising what the local
``fit`` raises, in the same order) and fits a clone of the calibrator by
``fit_summary``.  ScoreSummary's merge adds tied weights exactly, so the
model is, bit for bit, ``calibrator.fit(scores, y, w, folds=...)`` on the
same rows, whatever the partitioning and the order of the merges.

This module imports neither pyspark nor dask.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import _score_names as score_names
from ._input_scales import exact_float64
from ._rounding import rounded
from ._rows import RowError
from ._weight_faults import WeightFaults
from .multiclass._common import MulticlassCalibrator
from .multiclass._labels import _label_values
from .multiclass._order import OrderTally, order_note
from .multiclass._scores import proba_tolerance
from .summary import WeightSumOverflow
from .tables import Param, ParameterError, label_value

__all__ = [
    "MAX_CLASSES",
    "ClassProblems",
    "check_calibrator",
    "check_label_count",
    "check_width",
    "classes_of",
    "fit_parts",
    "frame_summaries",
    "label_codes",
    "merge_parts",
    "n_distinct",
    "partition_summaries",
]

#: The most distinct labels a multiclass fit accepts (more is surely not a label column).
MAX_CLASSES = 10_000


def check_calibrator(calibrator, by: str | None, positive_label=None) -> None:
    """Raise unless a multiclass ``calibrator`` can be fitted by an engine as asked.

    Its parameters are checked before any row is read; ``by`` (the fold
    column) is required exactly with a cross Venn-Abers base, and
    ``positive_label`` is refused (``classes`` names the classes).
    """
    calibrator._check_all_params()
    name = type(calibrator).__name__
    base = type(calibrator._base()).__name__
    if calibrator._grouped and by is None:
        raise ValueError(
            f"{name} with a {base} base is fitted per group of rows (folds): pass by= the "
            "column of the group (fold) of each row"
        )
    if not calibrator._grouped and by is not None:
        raise ValueError(
            f"by= is for calibrators fitted per group of rows (cross Venn-Abers); {name} with "
            f"a {base} base takes all the rows"
        )
    if positive_label is not None:
        raise ParameterError(
            Param("positive_label"), f" is for binary calibrators; {name} calibrates every "
            "class (its ", Param("classes"), " orders them)",
        )


def classes_of(calibrator, labels: Iterable) -> np.ndarray:
    """Return the classes of a fit on rows with these distinct (typed, non-null) labels.

    As the calibrator's ``fit`` orders and checks them: ``classes`` when
    given (every label must be one of them), else the labels sorted; at
    least two.
    """
    observed = list(dict.fromkeys(labels))
    if not observed:
        raise ValueError("scores is empty: at least one value is needed")
    check_label_count(len(observed))
    arr = _label_values(np.asarray(observed, dtype=object))
    try:
        found = np.unique(arr)
    except TypeError:
        raise TypeError("y mixes labels of types that cannot be compared") from None
    given = calibrator._given_classes()
    if given is None:
        classes = found
    else:
        known = given.tolist()
        unknown = [v for v in found.tolist() if v not in known]
        if unknown:
            raise ValueError(f"y holds label(s) {unknown!r} that are not in classes={known!r}")
        classes = given
    if classes.shape[0] < 2:
        raise ValueError(
            f"y holds a single class ({classes[0].item()!r}); a multiclass calibrator "
            "needs at least two classes"
        )
    return classes


def given_classes(calibrator) -> dict:
    """The ``classes=`` parameters given to a calibrator or its stages (``set_params`` keys)."""
    return {k: v for k, v in calibrator.get_params(deep=True).items()
            if k.rpartition("__")[2] == "classes" and v is not None}


def name_classes(calibrator, labels, n_columns: int, columns: str = "score_col") -> None:
    """Name every stage's ``classes=`` of a class-score calibrator against the labels as read.

    The file fits (:func:`venncal.files.fit_file` and
    :func:`venncal.dask.fit_files`) take ``classes`` as names, matched as
    :func:`venncal.tables._classes.column_classes` matches them (``"0.1"``
    names a float32 label 0.1); ``labels`` holds the labels as read (every
    one, or the distinct ones, typed as the column).  Sets the classes
    named, one per score column, on ``calibrator`` (a chain's stages all
    get them); raises :class:`~venncal.tables.ParameterError` as
    ``column_classes`` does.
    """
    from .tables._classes import column_classes

    keys = given_classes(calibrator)
    named = column_classes(labels, n_columns, next(iter(keys.values()), None), columns=columns)
    calibrator.set_params(**dict.fromkeys(keys, named))


def check_label_count(n: int) -> None:
    """Raise when ``n`` distinct labels are more than :data:`MAX_CLASSES`."""
    if n > MAX_CLASSES:
        raise ValueError(
            f"the label column holds more than {MAX_CLASSES:,} distinct values; is it the "
            "column of the class labels?"
        )


def check_width(classes: np.ndarray, score_cols: Sequence[str]) -> None:
    """Raise unless there is one score column per class."""
    K = classes.shape[0]
    if len(score_cols) != K:
        raise ParameterError(
            Param("score_col"), f" names {len(score_cols)} column(s) ({list(score_cols)!r}); "
            f"scores must have shape (n_samples, {K}): one column per class of classes_ "
            f"({classes.tolist()!r}), in that order",
        )


def label_codes(classes: np.ndarray, labels: Iterable, typed: Callable = label_value) -> dict:
    """Map each distinct label as read (``labels``) to its class index (``typed`` gives its value)."""
    where = {v: i for i, v in enumerate(classes.tolist())}
    return {v: where.get(typed(v), -1) for v in labels}


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


@dataclass
class ClassProblems:
    """Counts of the rows that break the rules of a multiclass ``fit``; mergeable.

    ``present``: the class indices with rows of positive weight; ``folds``:
    the folds of all rows (as read), since the local ``fit`` takes every
    fold of its rows, even one of zero weight only.
    """

    rows: int = 0
    weights: WeightFaults = field(default_factory=WeightFaults)
    null_labels: int = 0
    unknown_labels: int = 0
    null_groups: int = 0
    bad_scores: int = 0
    bad_score_row: tuple = ()
    out_of_range: int = 0
    out_of_range_row: tuple = ()
    off_sum: int = 0
    off_sum_total: float = math.nan
    #: where the row shown for each kind is: (partition, index from 0), or () where unknown
    bad_score_at: tuple = ()
    out_of_range_at: tuple = ()
    off_sum_at: tuple = ()
    present: frozenset = frozenset()
    folds: frozenset = field(default_factory=frozenset)
    summary_error: str = ""
    #: (summaries key, score) of tied weights that summed past float64 in a merge
    overflow: tuple | None = None
    #: the rows kept for the fit, as :func:`~venncal.multiclass._order.column_order_note`
    #: counts them (None: no row kept)
    order: OrderTally | None = None

    def merge(self, other: ClassProblems) -> ClassProblems:
        """Return the problems of both parts together."""
        return ClassProblems(
            rows=self.rows + other.rows,
            weights=self.weights.merge(other.weights),
            null_labels=self.null_labels + other.null_labels,
            unknown_labels=self.unknown_labels + other.unknown_labels,
            null_groups=self.null_groups + other.null_groups,
            bad_scores=self.bad_scores + other.bad_scores,
            bad_score_row=self.bad_score_row or other.bad_score_row,
            bad_score_at=self.bad_score_at if self.bad_scores else other.bad_score_at,
            out_of_range=self.out_of_range + other.out_of_range,
            out_of_range_row=self.out_of_range_row or other.out_of_range_row,
            out_of_range_at=self.out_of_range_at if self.out_of_range else other.out_of_range_at,
            off_sum=self.off_sum + other.off_sum,
            off_sum_total=self.off_sum_total if self.off_sum else other.off_sum_total,
            off_sum_at=self.off_sum_at if self.off_sum else other.off_sum_at,
            present=self.present | other.present,
            folds=self.folds | other.folds,
            summary_error=self.summary_error or other.summary_error,
            overflow=self.overflow or other.overflow,
            order=(other.order if self.order is None else self.order if other.order is None
                   else self.order.merge(other.order)),
        )

    def check(self, calibrator, classes: np.ndarray, by: str | None,
              weight_name: str = "sample_weight") -> None:
        """Raise ``ValueError`` for the first broken rule, in the order of the local ``fit``."""
        if self.rows == 0:
            raise ValueError("scores is empty: at least one value is needed")
        self.weights.check(weight_name)
        if self.null_labels:
            raise ValueError(
                f"y contains {self.null_labels} null or NaN label(s); labels must be class labels "
                "(drop such rows or fill them in)"
            )
        if self.unknown_labels:  # the data changed between the two passes
            raise ValueError(
                f"y holds {self.unknown_labels} label(s) that are not in classes="
                f"{classes.tolist()!r}"
            )
        if not self.present:
            raise ValueError("sample_weight sums to zero: at least one positive weight is needed")
        absent = [classes[i].item() for i in range(classes.shape[0]) if i not in self.present]
        if absent:
            raise ValueError(
                f"class(es) {absent!r} of classes={classes.tolist()!r} have no calibration "
                "rows (of positive weight); every class needs calibration data, so this "
                "calibrator refuses (drop the class from classes=, or add data)"
            )
        self._check_scores(calibrator, classes.shape[0])
        if self.null_groups:
            raise ParameterError(
                "the ", Param("by"), f" column {by!r} contains {self.null_groups} null value(s)"
            )
        if self.summary_error:  # weights that no summary can hold, as the local fit finds last
            raise ValueError(self.summary_error)
        if self.overflow:  # the same, found when partitions merged
            raise ValueError(calibrator._tied_overflow(*self.overflow))

    def _check_scores(self, calibrator, K: int) -> None:
        if self.bad_scores:
            raise _bad_rows(
                f"scores must be finite; found {self.bad_scores} row(s) with a NaN, infinite "
                "or null value", self.bad_score_at, f"holds {list(self.bad_score_row)!r}",
                count=self.bad_scores,
            )
        hint = " (for logits or margins pass score='logit' or 'margin')"
        if self.out_of_range:
            raise _bad_rows(
                f"scores (score='proba') must lie in [0, 1]; found {self.out_of_range} row(s) "
                "that do not", self.out_of_range_at,
                f"holds {list(self.out_of_range_row)!r}", hint, self.out_of_range,
            )
        if self.off_sum:
            raise _bad_rows(
                f"scores (score='proba') must have rows summing to 1 (within "
                f"{proba_tolerance(K):.3g}); found {self.off_sum} row(s) that do not",
                self.off_sum_at, f"sums to {self.off_sum_total!r}", hint, self.off_sum,
            )


def _bad_rows(found: str, at: tuple, what: str, hint: str = "",
              count: int | None = None) -> ValueError:
    """The error for rows of bad class scores: a :class:`RowError` of the first one's partition
    (``partition``) when the engine says where it is, else counted only (Spark)."""
    if not at:
        return ValueError(f"{found} (one {what}){hint}")
    partition, index = at
    return RowError(f"{found}; the first, ", index, f", {what}{hint}", partition=partition,
                    count=count)


def _score_problems(x: np.ndarray, kind: str, problems: dict,
                    partition: int | None = None) -> np.ndarray:
    """Count the rows of bad class scores (as ``check_class_scores`` finds them); return the good.

    With ``partition`` (its number), the first bad row of each kind is located in it.
    """
    def at(bad: np.ndarray) -> tuple:
        return () if partition is None else (partition, _first(bad))

    finite = np.isfinite(x).all(axis=1)
    good = finite.copy()
    if not finite.all():
        problems.update(bad_scores=int((~finite).sum()),
                        bad_score_row=tuple(x[_first(~finite)].tolist()), bad_score_at=at(~finite))
    if kind == "proba":
        outside = finite & ((x < 0) | (x > 1)).any(axis=1)
        if outside.any():
            problems.update(out_of_range=int(outside.sum()),
                            out_of_range_row=tuple(x[_first(outside)].tolist()),
                            out_of_range_at=at(outside))
        with np.errstate(invalid="ignore"):
            totals = x.sum(axis=1)
        off = finite & ~outside & (np.abs(totals - 1.0) > proba_tolerance(x.shape[1]))
        if off.any():
            problems.update(off_sum=int(off.sum()), off_sum_total=float(totals[_first(off)]),
                            off_sum_at=at(off))
        good &= ~outside & ~off
    return good


def partition_summaries(
    calibrator: MulticlassCalibrator,
    classes: np.ndarray,
    scores: np.ndarray,
    codes: np.ndarray,
    weights: np.ndarray | None = None,
    folds: np.ndarray | None = None,
    fold_null: np.ndarray | None = None,
    round_scores: int | None = None,
    partition: int | None = None,
) -> tuple[dict, ClassProblems]:
    """Reduce one partition to ``(pieces, problems)``: a summary per unit (and fold) present.

    Parameters
    ----------
    calibrator : OneVsRestCalibrator or OneVsOneCalibrator
    classes : ndarray of shape (K,)
        From :func:`classes_of`.
    scores : ndarray of shape (n, K)
        float64 class scores, NaN where missing.
    codes : ndarray of shape (n,)
        Each row's class index; -1 for a missing label, -2 for a label that
        is not a class.
    weights : ndarray of shape (n,), default=None
        float64, NaN where missing.
    folds, fold_null : ndarray of shape (n,), default=None
        Each row's fold as read (with a cross Venn-Abers base), and where it
        is missing.
    round_scores : int, default=None
        Round each unit's binary scores to this many decimals (``numpy.round``).
    partition : int, default=None
        The partition's number, where the engine's partitions are ordered (Dask): the first
        bad row of scores is then located (partition, index).

    Returns
    -------
    pieces : dict
        ``unit_key -> ScoreSummary``, or ``(unit_key, fold) -> ScoreSummary``.
    problems : ClassProblems
    """
    n, K = scores.shape
    found: dict = {"rows": n}
    if weights is None:
        positive = np.ones(n, dtype=bool)
    else:
        positive = np.isfinite(weights) & (weights > 0)
        found["weights"] = WeightFaults.of(weights, partition)
    found.update(null_labels=int((codes == -1).sum()), unknown_labels=int((codes == -2).sum()))
    labelled = codes >= 0
    found["present"] = frozenset(np.unique(codes[labelled & positive]).tolist())
    keep = _score_problems(scores, calibrator.score, found, partition) & labelled & positive
    if folds is not None:
        found["null_groups"] = int(fold_null.sum())
        found["folds"] = frozenset(pd.unique(folds[~fold_null]).tolist())
        keep &= ~fold_null
    problems = ClassProblems(**found)
    if not keep.any():
        return {}, problems
    x = np.ascontiguousarray(scores[keep])
    c = codes[keep].astype(np.intp)
    w = None if weights is None else weights[keep]
    problems.order = OrderTally.of(x, c, classes.shape[0], w)
    try:
        pieces = _unit_summaries(calibrator, classes, x, c, w, folds, keep, round_scores)
    except ValueError as exc:  # tied weights past the float64 range: raised after the rest
        return {}, dataclasses.replace(problems, summary_error=str(exc))
    return pieces, problems


def _unit_summaries(calibrator, classes, x, c, w, folds, keep, round_scores) -> dict:
    K = classes.shape[0]
    fold_index, fold_ids = (None, None) if folds is None else pd.factorize(folds[keep])
    prepared = calibrator._fit_prepare(x, K)
    names = classes.tolist()
    pieces: dict = {}
    for unit in calibrator._units(K):
        rows, y01 = calibrator._unit_rows(unit, c)
        column = calibrator._unit_column(prepared, x, unit, rows)
        if round_scores is not None:  # refused where it overflows, as one score column's
            column = rounded(column, round_scores)
        w_unit = None if w is None else (w if rows is None else w[rows])
        key = calibrator._unit_key(unit, names)
        if folds is None:
            _put(calibrator, pieces, key, column, y01, w_unit)
            continue
        f_unit = fold_index if rows is None else fold_index[rows]
        for f, fold in enumerate(fold_ids.tolist()):
            m = f_unit == f
            _put(calibrator, pieces, (key, fold), column[m], y01[m],
                 None if w_unit is None else w_unit[m])
    return pieces


def _numbers(series) -> np.ndarray:
    return exact_float64(series, f"column {series.name!r}")  # as locally (attack 52 F1)


def frame_summaries(pdf: pd.DataFrame, calibrator, classes: np.ndarray, codes: Mapping,
                    score_cols: Sequence[str], label_col: str, weight_col: str | None,
                    by: str | None, round_scores: int | None,
                    partition: int | None = None) -> tuple[dict, ClassProblems]:
    """:func:`partition_summaries` of a pandas partition; ``codes`` from :func:`label_codes`."""
    n = len(pdf)
    x = np.empty((n, len(score_cols)))
    for k, col in enumerate(score_cols):
        x[:, k] = _numbers(pdf[col])
    index, uniques = pd.factorize(pdf[label_col])
    table = [codes.get(v.item() if hasattr(v, "item") else v, -2) for v in uniques]
    row_codes = np.array([*table, -1], dtype=np.intp)[index]  # index -1 (missing): -1
    w = None if weight_col is None else _numbers(pdf[weight_col])
    folds = fold_null = None
    if by is not None:
        folds = pdf[by].to_numpy(dtype=object)
        fold_null = pdf[by].isna().to_numpy()
    return partition_summaries(calibrator, classes, x, row_codes, w, folds, fold_null,
                               round_scores, partition)


def _put(calibrator, pieces: dict, key, column, y01, w) -> None:
    if column.shape[0]:
        pieces[key] = calibrator._problem_summary(key, column, y01, w)


def merge_parts(*parts) -> tuple[dict, ClassProblems]:
    """Merge partial results ``(pieces, problems)`` exactly, in any order."""
    pieces: dict = {}
    problems = ClassProblems()
    for part_pieces, part_problems in parts:
        problems = problems.merge(part_problems)
        try:
            for key, piece in part_pieces.items():
                pieces[key] = pieces[key].merge(piece) if key in pieces else piece
        except WeightSumOverflow as exc:  # tied weights past the float64 range: raised after
            if problems.overflow is None:  # the rest, by fit_parts, in the local fit's words
                problems = dataclasses.replace(problems, overflow=(key, exc.score))
        except ValueError as exc:
            problems = dataclasses.replace(problems, summary_error=str(exc))
    if problems.summary_error or problems.overflow:
        pieces = {}
    return pieces, problems


def n_distinct(pieces: Mapping) -> int:
    """The number of distinct scores in ``pieces``, counted per binary problem and group."""
    return sum(piece.n_distinct for piece in pieces.values())


def fit_parts(calibrator, classes: np.ndarray, pieces: Mapping, problems: ClassProblems,
              by: str | None, fold_value: Callable = label_value,
              score_cols: Sequence[str] | None = None, weight_name: str = "sample_weight"):
    """Check the merged ``problems``; return a clone of ``calibrator`` fitted on ``pieces``.

    The folds (as read) become their values by ``fold_value`` (the label
    rule, as for a binary fit's groups); every unit needs rows of positive
    weight in every fold of the rows, as in the local ``fit``.  Score columns
    that look out of the order of the classes are warned of (``UserWarning``,
    as by :func:`venncal.files.fit_file`; ``score_cols`` name them).
    """
    import warnings

    from sklearn.base import clone

    problems.check(calibrator, classes, by, weight_name)
    if problems.order is not None:
        note = order_note(problems.order, classes, score_cols)
        if note:
            warnings.warn(note, UserWarning, stacklevel=3)
    model = clone(calibrator)
    names = classes.tolist()
    units = [model._unit_key(u, names) for u in model._units(classes.shape[0])]
    if by is not None:
        summaries: dict = {}
        for (unit, fold), piece in pieces.items():
            key = (unit, fold_value(fold))
            summaries[key] = summaries[key].merge(piece) if key in summaries else piece
        try:
            folds = sorted({fold_value(f) for f in problems.folds})
        except TypeError:
            raise TypeError("the by column mixes values that cannot be compared") from None
        for unit in units:
            for fold in folds:
                if (unit, fold) not in summaries:
                    raise ValueError(
                        f"{model._unit_name} {unit!r} has no calibration rows (of positive "
                        f"weight) in fold {fold!r}"
                    )
    else:
        summaries = dict(pieces)
        for unit in units:
            if unit not in summaries:
                raise ValueError(
                    f"{model._unit_name} {unit!r} has no calibration rows (of positive weight)"
                )
    model.fit_summary(summaries)
    if score_cols is not None:  # checked by the transforms: another order relabels
        score_names.record(model, score_cols)
    return model

