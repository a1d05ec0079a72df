"""Columns of a table checked as every venncal entry point checks arrays.

:func:`read_named_columns` opens a table and reads the columns that named
parameters give (each checked to exist first, so a missing one is reported
with its parameter); :func:`probability_column`, :func:`weight_column` and
:func:`binary_labels` apply the rules of :mod:`venncal._validation` to one
column and report a bad value as a :class:`~venncal.tables.TableError` that
names the table and the column.  ``venncal evaluate`` and ``venncal monitor``
read their tables through them (:mod:`venncal.online._tables`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ._validation import check_binary_labels, check_probabilities, check_sample_weight
from .metrics._checks import binary_outcomes
from .tables import ParameterError, TableError, open_table, read_columns
from .tables._labels import _typed_like, labels_named

__all__ = ["binary_labels", "class_probabilities", "probability_column", "read_named_columns",
           "weight_column"]


def read_named_columns(
    data,
    named: Sequence[tuple[str, str | None]],
    labels: Sequence[str] = (),
    *,
    sep: str | None = None,
    progress: Callable | None = None,
) -> tuple[str, dict[str, np.ndarray]]:
    """Read the columns of ``data`` that parameters name; return ``(source, columns)``.

    Parameters
    ----------
    data : str, path or file
        What :func:`venncal.tables.open_table` opens (``"-"`` for stdin).
    named : sequence of (parameter, column or None)
        Each column given by a parameter, in the order in which a missing
        one is reported (under that parameter's name); ``None`` skips it.
    labels : sequence of str
        The columns among them read by the label rule; the others are read
        as finite numbers.
    sep : str, default=None
        The CSV field separator.
    progress : callable, default=None
        ``progress(label)`` returns the context manager whose ``update``
        :func:`venncal.tables.read_columns` calls (the command line's bar).

    Returns
    -------
    source : str
        The table's name in messages (``"<stdin>"`` for stdin).
    columns : dict of column name -> ndarray

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("p,y\\n0.2,a\\n0.9,b\\n")
    >>> source, cols = read_named_columns(path, [("prob_col", "p"), ("label_col", "y")], ["y"])
    >>> cols["p"], cols["y"].tolist()
    (array([0.2, 0.9]), ['a', 'b'])
    """
    with open_table(data, sep=sep) as table:
        for param, column in named:
            if column is not None:
                table.check_columns([column], param)
        numeric = [c for _, c in named if c is not None and c not in labels]
        source = table.source
        if progress is None:
            return source, read_columns(table, numeric, labels)
        with progress(f"reading {source}") as bar:
            return source, read_columns(table, numeric, labels, bar)


def weight_column(values: np.ndarray, source: str, column: str) -> np.ndarray:
    """Check a column of frequency weights as every venncal entry point does.

    Raises
    ------
    TableError
        ``SOURCE: column 'C' ...`` (naming the row) for a negative, NaN or
        infinite weight.
    """
    try:
        return check_sample_weight(values, values.shape[0], name=f"column {column!r}", row_base=1)
    except (TypeError, ValueError) as exc:
        raise TableError(f"{source}: {exc}", source=source, column=column) from None


def probability_column(values: np.ndarray, source: str, column: str) -> np.ndarray:
    """Check a column of probabilities as every venncal entry point does.

    Raises
    ------
    TableError
        ``SOURCE: column 'C' ...`` (naming the row) for a value outside [0, 1].

    Examples
    --------
    >>> probability_column(np.array([0.5, 1.5]), "t.csv", "p")
    Traceback (most recent call last):
    ...
    venncal.tables._errors.TableError: t.csv: column 'p' must lie in [0, 1]; got 1.5 in row 2
    """
    try:
        return check_probabilities(values, name=f"column {column!r}", row_base=1)
    except (TypeError, ValueError) as exc:
        raise TableError(f"{source}: {exc}", source=source, column=column) from None


def class_probabilities(columns: dict[str, np.ndarray], source: str) -> np.ndarray:
    """Stack K columns of class probabilities into ``(n, K)``, checked as the metrics check them.

    Raises
    ------
    TableError
        ``SOURCE: ...`` naming the row as the table counts it (from 1) for a
        value outside [0, 1] or a row not summing to 1.

    Examples
    --------
    >>> class_probabilities({"a": np.array([0.5, 0.7]), "b": np.array([0.5, 0.2])}, "t.csv")
    Traceback (most recent call last):
    ...
    venncal.tables._errors.TableError: t.csv: each row of proba must sum to 1 (within 1e-06); row 2 sums to 0.8999999999999999
    """
    from ._rows import RowError
    from .metrics._checks import _check_proba

    try:
        return _check_proba(np.column_stack(list(columns.values())))
    except RowError as exc:
        raise TableError(f"{source}: {exc.renumbered(1)}", source=source) from None


def binary_labels(
    y: np.ndarray, positive_label: str | None, source: str, column: str, *,
    option: str = "positive_label",
) -> tuple[np.ndarray, object]:
    """Map labels to booleans (True = positive); return ``(y01, positive label)``.

    ``positive_label`` is text matched against the labels as read
    (:func:`venncal.tables.matches_label`: ``"1"`` names the number 1); by
    default the rule of the metrics (:func:`venncal.metrics._checks.binary_outcomes`:
    1 of 0/1 or -1/1, ``True``), and the larger of two other labels.  A single
    observed label that is not ``positive_label`` is the negative class, and
    the positive class, absent, is ``positive_label`` typed as the labels
    (``"1"`` is the number 1 beside numbers, as :func:`venncal.tables.classes_for`
    types it for a fit).  ``option`` is how messages name ``positive_label``
    (the command line passes the flag as typed).

    Raises
    ------
    TableError
        ``SOURCE: column 'C': ...`` for more than two labels, a
        ``positive_label`` that is not one of two labels, or not of their
        type beside one label, or one label that cannot be placed without
        ``positive_label``.

    Examples
    --------
    >>> binary_labels(np.array(["no", "yes", "no"]), None, "t.csv", "y")
    (array([False,  True, False]), 'yes')
    >>> binary_labels(np.array([2, 10, 2]), "2", "t.csv", "y")
    (array([ True, False,  True]), 2)
    >>> binary_labels(np.array([0, 0]), "1", "t.csv", "y")
    (array([False, False]), 1)
    """
    try:
        if positive_label is None:  # the metrics' rule (and the larger of two other labels)
            return binary_outcomes(y, y.shape[0], larger=True,
                                   advice=f"name the positive class with {option}")
        observed = np.unique(y)
        values = observed.tolist()
        found = labels_named(observed, positive_label)  # a float32 label as float32 ("0.1")
        if not found and len(values) == 2:
            raise ValueError(f"{option} {positive_label!r} is not one of the labels {values!r}")
        positive = found[0] if found else positive_label
        if not found and len(values) == 1:  # absent: a label of the type of the others ("1" -> 1)
            try:
                positive = _typed_like(positive_label, values[0])
            except ParameterError as exc:
                raise ValueError(exc.spelled({"positive_label": option})) from None
        return check_binary_labels(y, y.shape[0], pos_label=positive), positive
    except (TypeError, ValueError) as exc:
        raise TableError(f"{source}: column {column!r}: {exc}", source=source,
                         column=column) from None
