"""A recorded stream as a table: read the forecasts and labels of ``venncal monitor``, write its steps.

:func:`read_stream` reads a column of forecasts and one of labels (checked
as every entry point checks them, optionally clipped, and refused where a
forecast gave probability 0 to the label that arrived); :func:`read_scores`
reads a column of scores for the label-free monitor.  :func:`write_steps`
and :func:`write_score_steps` write the per-step values of
:func:`venncal.online.monitoring.monitor` and
:func:`~venncal.online.monitoring.monitor_scores_only`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._columns import binary_labels, probability_column, read_named_columns
from ..tables import write_table

__all__ = ["read_scores", "read_stream", "write_score_steps", "write_steps"]


def read_stream(
    data, prob_col: str, label_col: str, *, positive_label: str | None = None,
    clip: float | None = None, sep: str | None = None, progress: Callable | None = None,
    option: str = "positive_label",
) -> tuple[str, np.ndarray, np.ndarray, object]:
    """Read a stream of forecasts and labels; return ``(source, p, y01, positive label)``.

    ``positive_label`` names the positive class as text (as
    :func:`venncal._columns.binary_labels`; default the larger label),
    ``option`` how messages name it; with ``clip`` the forecasts are
    clipped to ``[clip, 1 - clip]`` before the check that no forecast gave
    probability 0 to the label that arrived.

    Raises
    ------
    TableError
        For a missing column, a bad cell, a forecast outside [0, 1] or
        labels that are not two classes.
    ParameterError
        For a forecast of 0 or 1 against the label that arrived.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "stream.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("p,y\\n0.2,no\\n0.7,yes\\n")
    >>> source, p, y01, positive = read_stream(path, "p", "y")
    >>> p, y01, positive
    (array([0.2, 0.7]), array([False,  True]), 'yes')
    """
    from .monitoring import check_forecasts

    source, columns = read_named_columns(
        data, [("prob_col", prob_col), ("label_col", label_col)], [label_col], sep=sep,
        progress=progress,
    )
    p = probability_column(columns[prob_col], source, prob_col)
    y01, positive = binary_labels(columns[label_col], positive_label, source, label_col,
                                  option=option)
    if clip is not None:
        p = np.clip(p, clip, 1.0 - clip)
    check_forecasts(p, y01, source)
    return source, p, y01, positive


def read_scores(data, prob_col: str, *, sep: str | None = None,
                progress: Callable | None = None) -> tuple[str, np.ndarray]:
    """Read a column of scores (any finite reals); return ``(source, scores)``."""
    source, columns = read_named_columns(data, [("prob_col", prob_col)], sep=sep,
                                         progress=progress)
    return source, columns[prob_col]


def write_steps(path: str, p: np.ndarray, y01: np.ndarray, proba: np.ndarray,
                log10: np.ndarray, *, sep: str | None = None) -> None:
    """Write per step: ``step`` (from 1), ``p``, ``positive`` (0/1), ``protected_p``, ``log10_S``."""
    write_table(path, {"step": np.arange(1, p.shape[0] + 1), "p": p,
                       "positive": y01.astype(np.int64), "protected_p": proba,
                       "log10_S": log10}, sep=sep)


def write_score_steps(path: str, scores: np.ndarray, result, *, sep: str | None = None) -> None:
    """Write per step of a label-free run: ``step``, ``score``, ``p_value``, ``log10_S``."""
    write_table(path, {"step": np.arange(1, scores.shape[0] + 1), "score": scores,
                       "p_value": result.pvalues, "log10_S": result.log10_martingale}, sep=sep)
