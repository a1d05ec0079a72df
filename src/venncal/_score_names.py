"""The score columns a model of K class scores was fitted on: recorded, checked, saved.

A model of K classes takes one score column per class, in the order of its
``classes_``; the same columns given in another order relabel every
prediction, without a word.  The table fits (:func:`venncal.files.fit_file`,
:func:`venncal.dask.fit`, :func:`venncal.dask.fit_files`,
:func:`venncal.spark.fit`) therefore record the names of the columns as
``score_cols_`` (:func:`record`), and so does a fit on a DataFrame
(:func:`from_frame`); a fit on arrays leaves none (:func:`forget`), and the
table predictions (:func:`venncal.files.transform_file`,
:func:`venncal.dask.transform`, :func:`venncal.dask.transform_files`,
:func:`venncal.spark.transform`, ``venncal predict``) refuse columns that
name a recorded column at another place (:func:`check`), and so do
``predict_proba`` and ``predict`` given a DataFrame (:func:`check_frame`).
Columns of other names (a table whose columns were renamed) are taken in
the order given.
``venncal.persist`` saves the member (:func:`check_state` on load).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .tables import Param, ParameterError

__all__ = [
    "NAME", "check", "check_frame", "check_state", "forget", "from_frame", "record", "recorded",
]

#: The fitted attribute.
NAME = "score_cols_"


def record(model, score_cols: Sequence[str]) -> None:
    """Set ``model.score_cols_``: the names of its class-score columns, in order."""
    setattr(model, NAME, np.array([str(c) for c in score_cols], dtype=str))


def _frame_names(scores) -> list[str] | None:
    """The column names of a table (pandas or polars DataFrame, pyarrow Table), else None."""
    names = getattr(scores, "column_names", None)  # pyarrow (whose .columns are the data: 56 F2)
    names = getattr(scores, "columns", None) if names is None else names
    return None if names is None or isinstance(scores, np.ndarray) else [str(c) for c in names]


def from_frame(model, scores):
    """Set ``score_cols_`` to the column names of a table ``scores`` (distinct names, one per
    column: a fit on a DataFrame, as scikit-learn's ``feature_names_in_``), else drop it (a
    fit on arrays: its columns have no names); return ``model``."""
    names = _frame_names(scores)
    if names is not None and len(names) > 1 and len(set(names)) == len(names):
        record(model, names)
    else:
        forget(model)
    return model


def forget(model) -> None:
    """Drop ``score_cols_`` (a fit on arrays: the columns have no names)."""
    model.__dict__.pop(NAME, None)


def recorded(model) -> list[str] | None:
    """Return the recorded score columns of ``model``, or None."""
    names = getattr(model, NAME, None)
    return None if names is None else [str(c) for c in names.tolist()]


def check_frame(model, scores) -> None:
    """:func:`check` the column names of ``scores`` when it is a table (a pandas or polars
    DataFrame, a pyarrow Table) and ``model`` recorded its columns: the same columns in
    another order relabelled ``predict_proba``'s classes without a word (attack 54 F9)."""
    names = _frame_names(scores)
    if names is not None and recorded(model) is not None:
        check(model, names, Param("scores"))


def check(model, score_cols: Sequence[str], param: Param = Param("score_col")) -> None:
    """Raise unless ``score_cols`` give each recorded column at its place.

    With K recorded columns, the ``j``-th column given is class ``j mod K``'s
    (a cross Venn-Abers base takes K columns per fold), so a recorded name
    given at a place of another class is refused.  Other names pass.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal import OneVsRestCalibrator
    >>> model = OneVsRestCalibrator().fit(np.eye(3)[[0, 1, 2, 0, 1, 2]], [0, 1, 2] * 2)
    >>> record(model, ["a", "b", "c"])
    >>> check(model, ["a", "b", "c"]); check(model, ["x", "y", "z"])
    >>> check(model, ["b", "a", "c"])
    Traceback (most recent call last):
    ...
    venncal.tables._errors.ParameterError: score_col gives column 'b' as the score \
of class 0; the model was fitted on ['a', 'b', 'c'], where 'b' is the score of class 1: \
give the columns in that order
    """
    names = recorded(model)
    if names is None:
        return
    given = [str(c) for c in score_cols]
    K, classes = len(names), model.classes_.tolist()
    for j, c in enumerate(given):
        if c in names and names.index(c) != j % K:
            k = names.index(c)
            raise ParameterError(
                param, f" gives column {c!r} as the score "
                f"of class {classes[j % K]!r}; the model was fitted on {names!r}, where {c!r} "
                f"is the score of class {classes[k]!r}: give the columns in that order",
            )


def check_state(model) -> None:
    """Raise unless a loaded ``score_cols_`` is one distinct name per class of ``classes_``."""
    names = getattr(model, NAME, None)
    if names is None:
        return
    if not (isinstance(names, np.ndarray) and names.dtype.kind == "U" and names.ndim == 1):
        raise ValueError(f"{NAME} must be a 1-D array of strings")
    K = len(model.classes_)
    if names.shape[0] != K:
        raise ValueError(f"{NAME} must name one column per class ({K}), not {names.shape[0]}")
    if len(set(names.tolist())) != K:
        raise ValueError(f"{NAME} must name distinct columns; got {names.tolist()!r}")
