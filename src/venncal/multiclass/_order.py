"""Class scores whose columns look out of the order of the classes.

K score columns are read as the classes in order (``classes``, by default
the labels sorted).  Columns in another order (a model's classes 0..9
against labels renamed "zero".."nine", sorted as text) calibrate without an
error into nonsense.  :func:`column_order_note` tells: it counts, for every
(column, class), the rows of that class whose largest score is in that
column, and compares the rows the order given gets right with the most any
order gets right (an assignment problem, ``scipy.optimize.linear_sum_assignment``).
The counts are an :class:`OrderTally`, which merges, so that the Spark and Dask
engines tell from their partitions what a local fit tells from its rows.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

__all__ = ["OrderTally", "column_order_note", "order_note"]

#: Rows per class below which no warning is given (too few to tell an order).
MIN_ROWS_PER_CLASS = 5


class OrderTally(NamedTuple):
    """For every (column of the largest score, class), the weight of those rows; mergeable.

    ``hits[j, k]`` is the weight, times ``2**-scale``, of the rows of class
    ``k`` whose largest score is in column ``j`` (the power of two keeps sums
    of weights near 1e308 finite); ``rows[k]``: the rows of class ``k`` (of
    positive weight).
    """

    hits: np.ndarray
    scale: int
    rows: np.ndarray

    @classmethod
    def of(cls, scores: np.ndarray, codes: np.ndarray, K: int,
           sample_weight: np.ndarray | None = None) -> OrderTally:
        """The tally of rows (``scores`` finite, ``codes`` in ``0..K-1``)."""
        w = np.ones(codes.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
        keep = w > 0
        hits = np.zeros((K, K))
        scale = math.frexp(float(w[keep].max()))[1] if keep.any() else 0
        top = np.argmax(np.asarray(scores, dtype=float)[keep], axis=1)
        np.add.at(hits, (top, codes[keep]), np.ldexp(w[keep], -scale))
        return cls(hits, scale, np.bincount(codes[keep], minlength=K))

    def merge(self, other: OrderTally) -> OrderTally:
        """The tally of both parts' rows."""
        big, small = (self, other) if self.scale >= other.scale else (other, self)
        return OrderTally(big.hits + np.ldexp(small.hits, small.scale - big.scale), big.scale,
                          self.rows + other.rows)


def column_order_note(scores: np.ndarray, codes: np.ndarray, classes: Sequence,
                      sample_weight: np.ndarray | None = None,
                      names: Sequence[str] | None = None,
                      option: str = "--score-cols") -> str | None:
    """Return a warning when another order of the columns fits the labels far better, else None.

    The warning is given when, with each row's largest score read as its
    class, some other assignment of columns to classes is right on at least
    twice the weight the given one is, and on a quarter of all the weight more.

    Parameters
    ----------
    scores : ndarray of shape (n_samples, K)
        Class scores (probabilities, logits or margins: larger is more likely).
    codes : ndarray of shape (n_samples,)
        Each row's class, an index into ``classes``.
    classes : sequence of K labels
        The class of each column, as read.
    sample_weight : ndarray of shape (n_samples,), default=None
    names : sequence of K str, default=None
        The columns' names, for the message (default: their positions).
    option : str, default="--score-cols"
        The command line's option that lists the columns (named in the advice for
        labels that ``--classes`` cannot name).

    Examples
    --------
    >>> import numpy as np
    >>> z = np.eye(3)[[0, 1, 2] * 5]                      # column j scores class j
    >>> column_order_note(z, np.array([0, 1, 2] * 5), ["a", "b", "c"]) is None
    True
    >>> print(column_order_note(z, np.array([1, 2, 0] * 5), ["a", "b", "c"], names=["x", "y", "z"]))
    the score columns look out of the order of the classes: read as classes 'a', 'b', 'c' (in the order of the columns x, y, z), each row's largest score names its label on 0% of the rows; read as 'b', 'c', 'a', on 100%; name the class of each column, in column order (classes=['b', 'c', 'a'] in Python, --classes b,c,a on the command line)
    """
    tally = OrderTally.of(scores, codes, len(classes), sample_weight)
    return order_note(tally, classes, names, option)


def order_note(tally: OrderTally, classes: Sequence, names: Sequence[str] | None = None,
               option: str = "--score-cols") -> str | None:
    """:func:`column_order_note` from the rows' :class:`OrderTally`."""
    from scipy.optimize import linear_sum_assignment

    K = len(classes)
    total = tally.hits.sum()
    if K < 2 or tally.rows.min() < MIN_ROWS_PER_CLASS or not total > 0:
        return None
    hits = tally.hits / total
    given = float(np.trace(hits))
    col, cls = linear_sum_assignment(hits, maximize=True)
    best = float(hits[col, cls].sum())
    if not (best >= 2.0 * given and best - given >= 0.25):
        return None
    given_order = np.asarray(classes).tolist()  # plain Python labels, for the message
    plain = [given_order[k] for k in cls[np.argsort(col)]]
    shown = ", ".join(repr(c) for c in plain)
    where = (f" (in the order of the columns {', '.join(names)})" if names is not None
             else "")
    if all("," not in str(c) and str(c) == str(c).strip() for c in plain):
        cli = f", --classes {shlex.quote(','.join(str(c) for c in plain))} on the command line"
    elif names is not None:  # --classes cannot name such labels: reorder the columns instead
        column = dict(zip(cls.tolist(), col.tolist()))
        cli = ("; on the command line, where --classes cannot name labels holding a comma or "
               "spaces at their ends, give the columns in the order of the classes: "
               f"{option} {shlex.quote(','.join(names[column[k]] for k in range(K)))}")
    else:
        cli = "; on the command line, give the columns in the order of the classes"
    return (
        "the score columns look out of the order of the classes: read as classes "
        f"{', '.join(repr(c) for c in given_order)}"
        f"{where}, each row's largest score names its label on {given:.0%} of the rows; "
        f"read as {shown}, on {best:.0%}; name the class of each column, in column order "
        f"(classes={plain!r} in Python{cli})"
    )
