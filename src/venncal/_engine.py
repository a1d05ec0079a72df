"""What the Spark and Dask adapters share: checks, the driver-side summary, fitting, scoring.

An engine reduces its rows, where they live, to *pieces*: for each group
(a value of the ``by`` column, or ``None``) and each label, the distinct
scores with their total weight (a :class:`~venncal.ScoreSummary` whose
positive weights are zero), together with a :class:`Problems` record that
counts the rows breaking the rules of :mod:`venncal._validation`.  Keeping
the labels apart until the end lets the positive class be chosen after all
labels have been seen, with the same rules as a fit on one array.  Pieces
and problems merge exactly, in any order, so partitions can be reduced in
any tree; the caller checks the problems (:meth:`Problems.check`, with the
validation module's messages), and :func:`summaries_from_pieces` then builds
one summary per group.  Labels and groups follow the label rule of
:mod:`venncal.tables` (a number, a boolean or text; dates and other types
as text) when the pieces become a summary or a model, so that every engine
fits the model the command line fits on the same table.

Messages that name a parameter raise :class:`~venncal.tables.ParameterError`
(a ``ValueError``), so that a front end can spell it its own way.

This module imports neither pyspark nor dask.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ._registry import method_class
from ._rounding import check_round_scores, check_rounding, rounded
from ._rows import RowError
from ._validation import check_binary_labels, check_labels, classes_array
from ._weight_faults import WeightFaults
from .negated import fits_from_summary
from .multiclass import _outputs as multiclass_outputs
from .summary import ScoreSummary
from .tables import Param, ParameterError, classes_for, label_value
from .tables._labels import labels_named

__all__ = [
    "DEFAULT_MAX_DISTINCT",
    "LABELS_KEPT",
    "NAN_SCORES",
    "NAN_SCORES_HINT",
    "Problems",
    "as_labels",
    "check_columns",
    "check_distinct",
    "check_round_scores",
    "check_rounding",
    "rounded",
    "check_nan_scores",
    "check_positive_label",
    "engine_calibrator",
    "fit_pieces",
    "input_columns",
    "make_calibrator",
    "merge_pieces",
    "names",
    "plain",
    "score_columns",
    "score_rows",
    "summaries_from_pieces",
]

#: Default bound on the distinct scores (per label and group) brought to the driver.
DEFAULT_MAX_DISTINCT = 10_000_000
#: How many distinct labels a problem record keeps: enough to show a third class.
LABELS_KEPT = 6


@dataclass
class Problems:
    """Counts of the rows that break the input rules, mergeable across partitions.

    ``labels`` holds the distinct non-null labels seen (at most a few: more
    than two is an error anyway).
    """

    rows: int = 0
    bad_scores: int = 0
    bad_score_examples: tuple = ()
    weights: WeightFaults = field(default_factory=WeightFaults)
    null_labels: int = 0
    null_groups: int = 0
    labels: tuple = field(default_factory=tuple)
    #: where the first bad score is: (partition, index from 0), or () where unknown
    bad_score_at: tuple = ()

    def merge(self, other: Problems) -> Problems:
        """Return the problems of both parts together."""
        labels = list(self.labels)
        for label in other.labels:
            if label not in labels and len(labels) < LABELS_KEPT:
                labels.append(label)
        return Problems(
            rows=self.rows + other.rows,
            bad_scores=self.bad_scores + other.bad_scores,
            bad_score_examples=(self.bad_score_examples + other.bad_score_examples)[:3],
            bad_score_at=self.bad_score_at if self.bad_scores else other.bad_score_at,
            weights=self.weights.merge(other.weights),
            null_labels=self.null_labels + other.null_labels,
            null_groups=self.null_groups + other.null_groups,
            labels=tuple(labels),
        )

    def check(self, by: str | None, weight_name: str = "sample_weight") -> None:
        """Raise ``ValueError`` for the first broken rule, worded as :mod:`venncal._validation`.

        A bad score or weight whose row is known (Dask) raises a
        :class:`~venncal._rows.RowError` with its ``partition``.
        """
        if self.rows == 0:
            raise ValueError("scores is empty: at least one value is needed")
        if self.bad_scores:
            shown = ", ".join(repr(float(v)) for v in self.bad_score_examples)
            found = (f"scores must be finite; found {self.bad_scores} NaN, infinite or null "
                     f"value(s) ({shown})")
            if not self.bad_score_at:
                raise ValueError(found)
            raise RowError(f"{found}; the first ", self.bad_score_at[1], "", at_index=True,
                           partition=self.bad_score_at[0], count=self.bad_scores)
        self.weights.check(weight_name)
        if self.null_labels:
            raise ValueError(
                f"y contains {self.null_labels} null or NaN label(s); labels must be two "
                "distinct classes (drop such rows or fill them in)"
            )
        if self.null_groups:
            raise ParameterError(
                "the ", Param("by"), f" column {by!r} contains {self.null_groups} null value(s)"
            )


def plain(value):
    """Return a numpy scalar as the Python value it holds (keys of the pieces are plain)."""
    return value.item() if hasattr(value, "item") else value


def names(columns) -> tuple:
    """Return one column name or a sequence of them as a tuple."""
    return (columns,) if isinstance(columns, str) else tuple(columns)


def input_columns(score_col, label_col, weight_col, by) -> list:
    """Return the distinct columns a summary reads (``weight_col`` and ``by`` if given)."""
    return [c for c in dict.fromkeys((score_col, label_col, weight_col, by)) if c is not None]


def check_columns(columns, present) -> None:
    """Raise unless every one of ``columns`` is among the data frame's ``present`` columns.

    The message lists the available columns.
    """
    present = list(present)
    missing = [c for c in columns if c not in present]
    if missing:
        shown = ", ".join(repr(c) for c in present)
        raise ValueError(
            f"column(s) {missing!r} are not in the data frame; available columns: {shown}"
        )


def merge_pieces(left: dict, right: Mapping) -> dict:
    """Merge two mappings ``(group, label) -> ScoreSummary`` (exact; ``left`` is updated)."""
    for key, piece in right.items():
        left[key] = left[key].merge(piece) if key in left else piece
    return left


def frame_problems(s: np.ndarray, w, labels, groups, partition: int | None = None) -> Problems:
    """The problem counts of one partition of a data frame (the Dask and Spark engines).

    ``s`` and ``w`` (None: no weights) are float64 arrays; ``labels`` and
    ``groups`` (None: no ``by``) are pandas Series of the same length.  With
    ``partition`` (its number, where partitions are ordered: Dask), the first
    bad score and weight are located (partition, index).
    """
    import pandas as pd

    n = s.shape[0]
    s_bad = ~np.isfinite(s)
    label_null = labels.isna().to_numpy()
    return Problems(
        rows=n,
        bad_scores=int(s_bad.sum()),
        bad_score_examples=tuple(s[s_bad][:3].tolist()),
        bad_score_at=(partition, int(np.argmax(s_bad))) if partition is not None and s_bad.any()
        else (),
        weights=WeightFaults.of(w, partition),
        null_labels=int(label_null.sum()),
        null_groups=0 if groups is None else int(groups.isna().sum()),
        labels=tuple(pd.unique(labels[~label_null]).tolist()[:LABELS_KEPT]),
    )


def frame_pieces(s: np.ndarray, w, labels, groups) -> dict:
    """``(group, label) -> ScoreSummary`` of one partition's valid rows of positive weight.

    The arguments as :func:`frame_problems`'s.  Each summary's rows are all
    labelled 0 (its label is its key), as :func:`fit_pieces` expects; equal keys
    of different types (``1`` and ``1.0``) give one piece.
    """
    import pandas as pd

    keep = np.isfinite(s) & ~labels.isna().to_numpy()
    if w is not None:
        keep &= np.isfinite(w) & (w > 0)
    if groups is not None:
        keep &= ~groups.isna().to_numpy()
    idx = np.flatnonzero(keep)
    pieces: dict = {}
    if idx.shape[0] == 0:
        return pieces
    at_keep = labels.to_numpy()[idx]
    keys = at_keep if groups is None else [groups.to_numpy()[idx], at_keep]
    for key, rows in pd.DataFrame({"k": idx}).groupby(keys, sort=False)["k"]:
        at = rows.to_numpy()
        key = (None, plain(key)) if groups is None else tuple(plain(k) for k in key)
        piece = ScoreSummary._from_validated(s[at], np.zeros(at.shape[0], dtype=bool),
                                             None if w is None else w[at])
        merge_pieces(pieces, {key: piece})
    return pieces


def check_distinct(n_distinct: int, max_distinct: int) -> None:
    """Raise when more distinct scores would come to the driver than ``max_distinct``."""
    if n_distinct > max_distinct:
        raise ParameterError(
            "the score summary has more than ", Param("max_distinct", f"{max_distinct:,}"),
            " distinct scores (counted per label and group), too many to bring to the driver "
            "(24 bytes each); round the scores with ", Param("round_scores", "d"),
            " (d decimal places) or raise ", Param("max_distinct"),
        )


def n_distinct(pieces: Mapping) -> int:
    """Return the number of distinct scores in ``pieces``, counted per label and group."""
    return sum(piece.n_distinct for piece in pieces.values())


def _label_array(labels) -> np.ndarray:
    values = list(labels)
    if any(isinstance(v, str) for v in values):
        return np.array(values, dtype=object)
    try:  # exactly: np.array([5, 2**64 - 1]) is float64, another label (attack 23 F1)
        return classes_array(values)
    except TypeError:  # labels of mixed kinds: refused by the checks that follow
        return np.array(values)


def positive_label_of(labels, positive_label=None, classes=None, *, for_fit: bool) -> tuple:
    """Return ``(positive, classes_)`` from the distinct labels, by the validation rules.

    For a fit (``for_fit``) the labels are any two classes, sorted, the
    positive one last, unless ``classes`` names them, ``[negative, positive]``
    (:func:`~venncal._validation.check_labels`); for a summary they are 0
    and 1 or booleans unless ``positive_label`` names the positive one
    (:func:`~venncal._validation.check_binary_labels`).
    """
    observed = _label_array(labels)
    if observed.shape[0] > 2:
        shown = ", ".join(repr(v) for v in observed.tolist()[:5])
        more = ", ..." if observed.shape[0] > 5 else ""
        raise ValueError(
            f"y has more than two classes ({shown}{more}); venncal calibrates binary "
            "classifiers and needs exactly two classes"
        )
    if for_fit:
        cls, _ = check_labels(observed, None, classes, advice="pass classes=[negative, positive]",
                              single_01=False)  # as every batch fit: a lone 1 may be 1/2 data
        return plain(cls[1]), cls
    check_binary_labels(observed, observed.shape[0], pos_label=positive_label)
    if positive_label is not None:
        return positive_label, None
    return (True if observed.dtype.kind == "b" else 1), None


def summaries_from_pieces(
    pieces: Mapping, *, by: str | None, positive
) -> ScoreSummary | dict[Hashable, ScoreSummary]:
    """Build the summary (or one per group when ``by`` is given) from checked pieces."""
    groups: dict = {}
    for (group, label), piece in pieces.items():
        part = piece._of_one_label(label == positive)  # its remainders kept
        groups[group] = groups[group].merge(part) if group in groups else part
    if not groups:
        raise ValueError("sample_weight sums to zero: at least one positive weight is needed")
    if by is None:
        return groups[None]
    return {g: groups[g] for g in sorted(groups)}


def as_labels(pieces: Mapping, problems: Problems) -> tuple[dict, Problems]:
    """Return ``(pieces, problems)`` with labels and groups by the label rule.

    A number, a boolean or text (:func:`venncal.tables.label_value`); other
    types (dates, decimals, ...) become their text, and pieces that become
    the same key merge.
    """
    out: dict = {}
    for (group, label), piece in pieces.items():
        merge_pieces(out, {(label_value(group), label_value(label)): piece})
    labels = tuple(dict.fromkeys(label_value(v) for v in problems.labels))
    return out, dataclasses.replace(problems, labels=labels)


def summary_of(pieces: Mapping, problems: Problems, by: str | None, positive_label):
    """Return the summary (or one per group) of checked pieces, labels 0/1 or ``positive_label``."""
    pieces, problems = as_labels(pieces, problems)
    positive_label = label_value(positive_label)
    if positive_label is not None and positive_label not in problems.labels:
        # a number names the text label that reads as it ('10' of a Dask object column)
        named = labels_named(_label_array(problems.labels), positive_label)
        if len(named) == 1:
            positive_label = named[0]
    positive, _ = positive_label_of(problems.labels, positive_label, for_fit=False)
    return summaries_from_pieces(pieces, by=by, positive=positive)


def _classes_key(calibrator) -> str:
    """Return the ``set_params`` name of ``classes`` (``calibrator__classes`` in a wrapper)."""
    keys = calibrator.get_params(deep=True)
    return next((k for k in keys if k.rpartition("__")[2] == "classes"), "classes")


def names_classes(calibrator) -> bool:
    """Whether the calibrator's ``classes`` parameter (its own or a wrapped one's) is given."""
    return calibrator.get_params(deep=True).get(_classes_key(calibrator)) is not None


def fit_pieces(calibrator, pieces: Mapping, problems: Problems, by: str | None, *,
               positive_label=None):
    """Return a clone of ``calibrator`` fitted by ``fit_summary`` on checked pieces.

    The labels are any two classes, as for its ``fit``, by the label rule
    (:func:`as_labels`); ``positive_label`` names the positive one, matched
    against the labels as read (:func:`venncal.tables.classes_for`), where
    the calibrator's ``classes`` is not given.  ``calibrator`` itself is left
    as it is, and the fitted clone's parameters are those of a ``fit`` on
    the rows (the classes are named only when ``classes`` or
    ``positive_label`` names them).
    """
    from sklearn.base import clone

    pieces, problems = as_labels(pieces, problems)
    model = clone(calibrator)
    key = _classes_key(model)
    given = model.get_params(deep=True).get(key)
    if positive_label is not None:
        check_positive_label(model)
        if len(problems.labels) <= 2:  # else positive_label_of says there are more
            given = classes_for(problems.labels, positive_label)
            model.set_params(**{key: given})
    positive, classes = positive_label_of(problems.labels, classes=given, for_fit=True)
    summaries = summaries_from_pieces(pieces, by=by, positive=positive)
    return fit_calibrator(model, summaries, classes)


def check_positive_label(calibrator) -> None:
    """Raise when ``positive_label`` is given to fit a calibrator whose ``classes`` is given too."""
    if names_classes(calibrator):
        raise ParameterError(
            Param("positive_label"), " and ", Param("classes"),
            " both name the classes; give one of them",
        )


def make_calibrator(method, params: Mapping):
    """Return an unfitted calibrator: a registered method name, or a clone of a calibrator."""
    from sklearn.base import clone

    if isinstance(method, str):
        return method_class(method)(**params)
    if params:
        return clone(method).set_params(**params)
    return clone(method)


def engine_calibrator(method, params: Mapping, by: str | None, positive_label=None):
    """Return the unfitted calibrator an engine's ``fit`` will fit, checked before any row is read.

    The one path of every engine (Dask frames and files, Spark): the
    calibrator (:func:`make_calibrator`) must take ``by`` exactly when it is
    fitted per group (:func:`check_grouping`), must be fitted from a score
    summary, and must not name its ``classes`` when ``positive_label`` does
    (:func:`check_positive_label`).  The engine then reduces its rows to
    pieces and calls :func:`fit_pieces`.  A multiclass calibrator is checked
    by :func:`venncal._engine_multiclass.check_calibrator` instead (``by``
    exactly with a cross Venn-Abers base, no ``positive_label``), and the
    engine fits it through :mod:`venncal._engine_multiclass`.
    """
    calibrator = make_calibrator(method, params)
    if multiclass_outputs.is_multiclass(calibrator):  # fitted by _engine_multiclass
        from ._engine_multiclass import check_calibrator

        check_calibrator(calibrator, by, positive_label)
        return calibrator
    check_grouping(calibrator, by)
    if not fits_from_summary(calibrator):
        raise ValueError(f"{type(calibrator).__name__} cannot be fitted from a score summary")
    if positive_label is not None:
        check_positive_label(calibrator)
    return calibrator


def check_grouping(calibrator, by: str | None) -> None:
    """Raise unless ``by`` is given exactly when the calibrator is fitted per group."""
    group = getattr(calibrator, "_group_param", None)  # an instance's: a wrapper delegates it
    name = type(calibrator).__name__
    if group is not None and by is None:
        raise ValueError(
            f"{name} is fitted per group of rows ({group}): pass by= the column of the "
            "group (fold) of each row"
        )
    if group is None and by is not None:
        raise ValueError(
            f"by= is for calibrators fitted per group of rows (cross Venn-Abers); "
            f"{name} takes one summary of all the rows"
        )


def fit_calibrator(calibrator, summaries, classes) -> object:
    """Fit ``calibrator`` by ``fit_summary``, with ``classes_`` the resolved two labels.

    ``fit_summary`` takes the labels from the ``classes`` parameter; when it
    is not given, it is named for the fit and set back to None after it (in
    the fitted copies of a wrapped calibrator too), as a fit on the rows
    leaves it.
    """
    classes = classes_array(classes)
    default01 = classes.dtype.kind in "iu" and classes.tolist() == [0, 1]  # fit_summary's
    key = _classes_key(calibrator)
    try:
        if calibrator.get_params(deep=True).get(key) is not None or default01:
            return calibrator.fit_summary(summaries)
        calibrator.set_params(**{key: classes.tolist()})
        calibrator.fit_summary(summaries)
    except RowError as exc:  # its index is of the summary's sorted distinct scores, not a row
        if exc.partition is not None:
            raise
        raise ValueError(exc.of_distinct_scores()) from None
    _forget_classes(calibrator, key)
    return calibrator


def _forget_classes(estimator, key: str) -> None:
    """Set ``key`` back to None, and in the fitted copy of a wrapped calibrator (``calibrator_``)."""
    estimator.set_params(**{key: None})
    head, _, rest = key.partition("__")
    fitted = getattr(estimator, head + "_", None) if rest else None
    if fitted is not None and hasattr(fitted, "set_params"):
        _forget_classes(fitted, rest)


def takes_class_scores(calibrator) -> bool:
    """Whether a calibrator takes K class scores per row (and gives K probabilities).

    One-vs-rest and one-vs-one calibrators, temperature, vector, matrix and
    structured scaling, and a chain whose first stage takes class scores.
    """
    from .chain._stages import CLASSES, stage_kind

    try:
        return stage_kind(calibrator, "calibrator") == CLASSES
    except (TypeError, ValueError):
        return False


def output_names(calibrator, output_cols) -> tuple[str, ...]:
    """Return the columns ``transform`` adds: p, and p0/p1 for Venn-Abers calibrators.

    A calibrator of K class scores (:func:`takes_class_scores`) takes ``output_cols`` as one or
    three prefixes
    and adds a column per class, and each problem's interval with three
    (:mod:`venncal.multiclass._outputs`).
    """
    out = names(output_cols)
    if takes_class_scores(calibrator):
        return multiclass_outputs.output_names(calibrator, out)
    if len(out) not in (1, 3) or not all(isinstance(n, str) for n in out):
        raise ValueError(f"output_cols must be one name (p) or three (p, p0, p1); got {output_cols!r}")
    if not hasattr(calibrator, "predict_interval"):
        return out[:1]
    return out


def score_columns(calibrator, scores: np.ndarray, n_out: int) -> list[np.ndarray]:
    """Return ``[p]`` or ``[p, p0, p1]`` for an array of scores (1-D, or one column per fold).

    For a multiclass calibrator, the columns of :func:`output_names` from
    (n, K) scores (or (n, F*K), fold by fold).
    """
    if takes_class_scores(calibrator):
        return multiclass_outputs.score_columns(calibrator, scores, n_out)
    if scores.ndim == 2 and scores.shape[1] == 1:
        scores = scores[:, 0]
    if scores.shape[0] == 0:
        return [np.empty(0) for _ in range(n_out)]
    if n_out == 1:
        return [calibrator.predict_proba(scores)[:, 1]]
    if hasattr(calibrator, "_predict_with_interval"):  # one search for p and (p0, p1), as the CLI
        return [np.ascontiguousarray(v) for v in calibrator._predict_with_interval(scores)]
    p = calibrator.predict_proba(scores)[:, 1]
    interval = calibrator.predict_interval(scores)
    return [p, np.ascontiguousarray(interval[:, 0]), np.ascontiguousarray(interval[:, 1])]


#: What ``transform`` does with a missing (NaN or null) score, as ``venncal predict --nan-scores``.
NAN_SCORES = ("error", "propagate")
#: Added to the message about a missing score when ``nan_scores="error"``.
NAN_SCORES_HINT = (
    " (", Param("nan_scores", "propagate", python="nan_scores='propagate'"),
    " gives such rows empty predictions)",
)


def check_nan_scores(nan_scores) -> None:
    """Raise unless ``nan_scores`` is one of :data:`NAN_SCORES`."""
    if nan_scores not in NAN_SCORES:
        raise ValueError(f"nan_scores must be one of {NAN_SCORES}; got {nan_scores!r}")


def score_rows(calibrator, scores: np.ndarray, n_out: int, nan_scores: str) -> tuple:
    """Return ``(columns, missing)``: :func:`score_columns`, NaN where a score is missing.

    With ``nan_scores="error"`` every score goes to the calibrator (which
    rejects NaN) and ``missing`` is None; with ``"propagate"`` the rows with
    a NaN score (in any column) are left out of the prediction, their
    outputs are NaN and ``missing`` marks them.  Infinite scores still go to
    the calibrator, an error.
    """
    if nan_scores == "error":
        return score_columns(calibrator, scores, n_out), None
    missing = np.isnan(scores) if scores.ndim == 1 else np.isnan(scores).any(axis=1)
    if not missing.any():
        return score_columns(calibrator, scores, n_out), missing
    from ._rows import RowError

    try:
        kept = score_columns(calibrator, scores[~missing], n_out)
    except RowError as exc:  # named as a row of scores, not of the rows kept
        raise exc.of_rows(np.flatnonzero(~missing)) from None
    columns = []
    for values in kept:
        full = np.full(missing.shape[0], np.nan)
        full[~missing] = values
        columns.append(full)
    return columns, missing
