""":func:`compare_file`: :func:`~venncal.comparison.compare` on the columns of a table."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence

import numpy as np

from ..tables import ParameterError, TableError, open_table, read_columns

__all__ = ["compare_file"]


def compare_file(
    data, *, score_col: str | Sequence[str], label_col: str, weight_col: str | None = None,
    positive_label=None, classes: Sequence | None = None, sep: str | None = None,
    progress: Callable | None = None, **options,
):
    """Read a table (as ``venncal fit`` does) and :func:`~venncal.comparison.compare` on it.

    Parameters
    ----------
    data : str or path-like
        A table (CSV, plain or compressed, TSV or Parquet), or ``"-"`` for stdin.
    score_col : str or sequence of str
        One score column (two classes) or K class-score columns.
    label_col, weight_col : str
        The labels (read by the label rule of :mod:`venncal.tables`) and the
        frequency weights.
    positive_label : label or str, default=None
        Two classes: the positive class, matched against the labels as read
        (:func:`venncal.tables.classes_for`).
    classes : sequence, default=None
        K classes: the class of each score column, names matched against the
        labels as read (default: the labels sorted).
    sep : str, default=None
        The CSV field separator.
    progress : callable, default=None
        As for :func:`compare`; also told the rows read.
    **options
        ``score``, ``methods``, ``folds``, ``seed``, ``intervals`` of :func:`compare`.

    Returns
    -------
    Comparison

    Raises
    ------
    TableError
        For a table that cannot be read, a missing column or a bad cell, and
        labels that ``positive_label`` or ``classes`` do not fit.
    ValueError, TypeError
        As :func:`compare`.
    """
    from ..tables import classes_for
    from ..tables._classes import column_classes
    from ._run import compare

    score_cols = [score_col] if isinstance(score_col, str) else list(score_col)
    many = not isinstance(score_col, str)
    with open_table(data, sep=sep) as table:
        for role, cols in {"score_col": score_cols, "label_col": [label_col],
                           "weight_col": [weight_col]}.items():
            if cols != [None]:
                table.check_columns(cols, "score_cols" if many and role == "score_col" else role)
        numeric = score_cols + ([weight_col] if weight_col else [])
        with progress(f"reading {table.source}") if progress else contextlib.nullcontext() as bar:
            columns = read_columns(table, numeric, [label_col], bar)
    source, y = table.source, columns[label_col]
    if not many and y.shape[0] and np.unique(y).shape[0] == 1:  # not compare's Python advice
        only = y[0].item() if isinstance(y[0], np.generic) else y[0]
        raise TableError(f"{source}: column {label_col!r} holds a single label ({only!r}): a "
                         "comparison of calibrators needs rows of both classes", source=source,
                         column=label_col)
    named = None
    try:
        if many:
            named = column_classes(y, len(score_cols), classes, columns="score_cols")
        elif positive_label is not None:
            named = classes_for(y, positive_label)
    except ParameterError as exc:
        raise TableError(f"{source}: column {label_col!r}: ", *exc.parts, source=source,
                         column=label_col) from None
    scores = columns[score_cols[0]] if not many else np.column_stack(
        [columns[c] for c in score_cols])
    weights = None
    if weight_col:
        from .._validation import check_sample_weight

        try:
            weights = check_sample_weight(columns[weight_col], y.shape[0],
                                          name=f"column {weight_col!r}", row_base=1)
        except (TypeError, ValueError) as exc:
            raise TableError(f"{source}: {exc}", source=source, column=weight_col) from None
    from .._rows import RowError

    try:
        result = compare(scores, y, classes=named, sample_weight=weights, progress=progress,
                         **options)
    except RowError as exc:  # named as the table counts its rows (from 1)
        raise ValueError(exc.renumbered(1)) from None
    result._count_rows_from(1)  # and so are a fold's failures (attack 22 F2)
    return result
