"""The exact look-up table of a step calibrator, for scoring where no Python runs (Spark's JVM).

The prediction of IVAP, nearest isotonic, quantized isotonic, histogram
binning and BBQ is constant between consecutive *knots* (and below the
first, above the last), which each of them tells by its ``_knots()``
method, so it is a table of ``2 k + 1`` output tuples: one per open
interval, one per knot.  Most neighbouring entries are equal (for
IVAP fitted on 1e7 rounded scores, about 2e6 entries hold about 4e3
distinct runs), so the table is cut into runs of bit-identical tuples, each
starting at a threshold ``t`` (the run holds the scores ``x >= t``): a knot,
or the float just above one.  The run of a score ``x`` is the number of
thresholds ``<= x``.

To find it with few steps, the threshold range is cut into ``m`` equal
cells, ``cell(x) = int(clip((x - lo) * scale, 0, m - 0.5))``.  Floating-point
subtraction and multiplication by a positive number round monotonically, so
the cell is non-decreasing in ``x``: every threshold of an earlier cell is
below ``x`` and every one of a later cell above it.  The run of ``x`` is
then ``first[cell(x)]`` (the thresholds of earlier cells) plus a binary
search of ``depth`` steps among the thresholds from there, exact.  This
module is numpy only (it imports no pyspark, so it and its tests run
without the ``spark`` extra); :mod:`venncal.spark` turns the table into
column expressions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._engine import score_columns

__all__ = ["JumpTable", "cell_of", "jump_table", "knots_of", "position_table"]

#: Cell counts tried, as multiples of the number of thresholds (the fewest search steps wins).
CELL_FACTORS = (1, 2, 4, 8, 16)
#: The most cells (4 bytes each in the table).
MAX_CELLS = 1 << 22


def knots_of(calibrator) -> np.ndarray | None:
    """Return the sorted distinct points where the calibrator's prediction may change, or None.

    The calibrator tells them by its ``_knots()`` method (None: its
    prediction is no step function, or it is a subclass that does not say
    its own knots; see :meth:`venncal.ScoreCalibrator._knots`).  Any other
    object has none.  ``-0.0`` becomes ``0.0``.
    """
    knots = getattr(calibrator, "_knots", None)
    knots = knots() if callable(knots) else None
    if knots is None:
        return None
    knots = np.asarray(knots, dtype=np.float64) + 0.0
    if knots.ndim != 1 or not np.isfinite(knots).all():
        raise ValueError(
            f"{type(calibrator).__name__}._knots() must return a 1-D array of finite scores"
        )
    if (knots[1:] > knots[:-1]).all():  # already sorted and distinct (IVAP's scores_): no sort
        return knots
    return np.unique(knots)


def position_table(calibrator, knots: np.ndarray, n_out: int) -> list[np.ndarray]:
    """Return the outputs at the ``2 k + 1`` positions: interval below knot j at 2 j, knot j at 2 j + 1.

    Each entry is the calibrator's own prediction at a point of its interval
    (the float just below the knot, or just above the last one), so the
    table holds exactly what ``predict`` returns there.  An interval that
    holds no finite float is never looked up; its entry is the knot's.
    """
    k = knots.shape[0]
    points = np.empty(2 * k + 1)
    if k == 0:
        points[0] = 0.0
    else:
        below = np.nextafter(knots, -np.inf)
        previous = np.concatenate(([-np.inf], knots[:-1]))
        points[0:2 * k:2] = np.where((below > previous) & np.isfinite(below), below, knots)
        points[1::2] = knots
        above = np.nextafter(knots[-1], np.inf)
        points[2 * k] = above if np.isfinite(above) else knots[-1]
    return score_columns(calibrator, points, n_out)


def run_table(knots: np.ndarray, values: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Merge the positions into runs of bit-identical outputs.

    Returns ``(thresholds, outputs)``: ``thresholds[i]`` starts run ``i + 1``
    (run 0 has no lower end), ``outputs`` is ``(runs, n_out)``.  A run that
    starts at position ``2 j + 1`` (knot j) starts at ``knots[j]``; one that
    starts at ``2 j`` (above knot ``j - 1``) at the float after
    ``knots[j - 1]``.  The thresholds increase strictly: an empty interval
    holds its knot's outputs, so it never starts a run of its own.
    """
    change = np.zeros(max(values[0].shape[0] - 1, 0), dtype=bool)
    for v in values:  # bits, not ==: 0.0 and -0.0 stay apart
        bits = v.view(np.int64)
        change |= bits[1:] != bits[:-1]
    starts = np.concatenate(([0], np.flatnonzero(change) + 1))
    at = starts[1:]
    j = at // 2
    after = np.nextafter(knots[np.maximum(j - 1, 0)], np.inf)
    thresholds = np.where(at % 2 == 1, knots[np.minimum(j, knots.shape[0] - 1)], after) + 0.0
    return thresholds, np.stack([v[starts] for v in values], axis=1)


def cell_of(x: np.ndarray, lo: float, scale: float, m: int) -> np.ndarray:
    """Return the cell of each ``x``, by the same float operations as the Spark expression."""
    with np.errstate(over="ignore"):  # beyond the range: +-inf, clipped like Spark's
        t = (x - lo) * scale
    return np.minimum(np.maximum(t, 0.0), m - 0.5).astype(np.int64)


@dataclass(frozen=True)
class JumpTable:
    """Thresholds, cells and run outputs of a step calibrator (see the module notes).

    ``thresholds`` is padded with ``2**depth`` entries of ``+inf``; ``first``
    has ``m + 1`` entries; ``outputs`` is ``(runs, n_out)``.  With ``m == 1``
    there are no cells (``lo`` and ``scale`` unused).
    """

    thresholds: np.ndarray
    first: np.ndarray
    lo: float
    scale: float
    m: int
    depth: int
    outputs: np.ndarray

    def run_of(self, x: np.ndarray) -> np.ndarray:
        """Return the run of each finite score, as the Spark expression computes it."""
        x = np.asarray(x, dtype=np.float64) + 0.0
        cell = cell_of(x, self.lo, self.scale, self.m) if self.m > 1 else np.zeros(x.shape, int)
        at = self.first[cell]
        for level in reversed(range(self.depth)):
            step = 1 << level
            at = np.where(self.thresholds[at + step - 1] <= x, at + step, at)
        return at


def _cells(thresholds: np.ndarray) -> tuple:
    """Return ``(depth, m, lo, scale, first)`` with the fewest search steps."""
    r = thresholds.shape[0]
    finite = thresholds[np.isfinite(thresholds)]
    best = (r.bit_length(), 1, 0.0, 0.0, np.array([0, r]))
    if finite.shape[0] < 2:
        return best
    lo, span = float(finite[0]), float(finite[-1] - finite[0])
    for factor in CELL_FACTORS:
        m = min(factor * r, MAX_CELLS)
        scale = m / span if span > 0 else np.inf
        if not (np.isfinite(scale) and scale > 0 and np.isfinite(span)):
            break  # no usable cells: (x - lo) * scale could be inf * 0
        first = np.searchsorted(cell_of(thresholds, lo, scale, m), np.arange(m + 1), "left")
        depth = int(np.diff(first).max()).bit_length()
        if depth < best[0]:
            best = (depth, m, lo, scale, first)
    return best


def jump_table(calibrator, knots: np.ndarray, n_out: int) -> JumpTable:
    """Return the exact run table of ``calibrator`` (knots from :func:`knots_of`)."""
    with np.errstate(over="ignore"):  # the float after the largest is inf, spans may be inf
        thresholds, outputs = run_table(knots, position_table(calibrator, knots, n_out))
        depth, m, lo, scale, first = _cells(thresholds)
    padded = np.concatenate([thresholds, np.full(1 << depth, np.inf)])
    return JumpTable(padded, first.astype(np.int32), lo, scale, m, depth, outputs)
