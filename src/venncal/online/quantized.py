"""Sequential quantized isotonic regression (paper 003, sections IV and V).

Both classes keep, after every update, the best non-decreasing map from
scores to a finite set of levels in weighted least squares: the isotonic
regression of the observations so far projected onto the nearest level (a
value exactly halfway between two levels goes to the lower one).  This is
the map that :class:`~venncal.baselines.QuantizedIsotonicCalibrator` fits in
one batch, and it extends to other scores the same way (nearest observed
score, the smaller one at a tie; the end levels beyond the observed range).

- :class:`OrderedQuantizedIsotonic`: observations whose scores arrive in
  non-decreasing order, amortised O(1) per observation, memory O(K)
  (paper 003, section IV).
- :class:`QuantizedIsotonic`: any order, with deletes and an optional sliding
  window, memory O(n) (paper 003, section V): O(K log n) per update for 0/1
  targets of whole weight, O(K log n + log^2 n) otherwise.

Targets may be any real numbers (labels 0/1 for calibration).  The kernels
and the proofs that the trees are exact are in
:mod:`venncal._kernels.quantized_dense` (0/1 targets) and
:mod:`venncal._kernels.quantized_nodes` (any targets).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._kernels.quantized import DEN, HI, LO, NUM, level_at, ordered_learn, push_group
from .._kernels.quantized_buckets import tree_entries
from .._kernels.quantized_nodes import tree_fill
from .._kernels.quantized_tree import (
    obs_from_arrays,
    obs_to_arrays,
    tree_delete,
    tree_groups,
    tree_learn,
    tree_level_at,
)
from .._kernels.quantized_walk import CHANGE_CELLS
from .._kernels.quantized_dense import (
    dense_delete,
    dense_groups,
    dense_grow,
    dense_learn,
    dense_level_at,
)
from .._validation import check_sample_weight, check_scores
from ..baselines.isotonic import _nearest_steps, block_table
from ..baselines.quantized import QuantizedIsotonicCalibrator, check_levels, level_splits
from ._rational import WEIGHT_BOUND, split_fractions

__all__ = ["OrderedQuantizedIsotonic", "QuantizedIsotonic"]

# The dense tree keeps K - 1 numbers per node: with more levels it takes memory in
# proportion (at n = 1e5 scores: 13 MB for K = 101, 23 MB for 256 and 72 MB for 1001,
# against 10-16 MB for the tree of groups) for less and less speed (2.9x the tree of
# groups' inserts per second at K = 101, 2.3x at 256, 1.2x at 1001; 2026-11-25).
DENSE_MAX_LEVELS = 256


def _real(value, name: str) -> float:
    """Return ``value`` as a finite float (the rule of ``check_scores``)."""
    if isinstance(value, numbers.Real) and math.isfinite(value):
        return float(value) + 0.0  # -0.0 becomes 0.0: one key per score
    return float(check_scores(np.atleast_1d(value), name=name)[0]) + 0.0


def _weight(value) -> float:
    """Return ``value`` as a finite non-negative float (the rule of ``check_sample_weight``)."""
    if isinstance(value, numbers.Real) and math.isfinite(value) and value >= 0:
        return float(value)
    check_sample_weight(np.atleast_1d(value), 1, name="weight")
    raise ValueError(f"weight must be a finite non-negative number; got {value!r}")


def _batch(scores, y, sample_weight):
    s = check_scores(scores) + 0.0
    t = check_scores(y, name="y") + 0.0
    if t.shape[0] != s.shape[0]:
        raise ValueError(f"scores and y have different lengths: {s.shape[0]} and {t.shape[0]}")
    w = check_sample_weight(sample_weight, s.shape[0])
    return s, t, np.ones_like(s) if w is None else w


class _QuantizedMap:
    """What both streams share: levels, the current groups, prediction."""

    def _set_levels(self, levels) -> None:
        self.levels = levels
        self.levels_ = check_levels(levels, unit_interval=False)
        self._splits = level_splits(self.levels_)
        self._steps = None

    def _groups(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    @property
    def n_groups(self) -> int:
        """Number of groups (runs of scores mapped to one level) of the current map."""
        return int(self._groups()[0].shape[0])

    def groups(self) -> dict[str, np.ndarray]:
        """Return the current map as arrays, one entry per group, in score order.

        Returns
        -------
        dict of ndarray of shape (n_groups,)
            ``"lo"``, ``"hi"``: first and last observed score of the group;
            ``"level"``: its level; ``"mean"``: the weighted mean target of
            its observations; ``"weight"``: their total weight.
        """
        rows, cells = self._groups()
        return {
            "lo": rows[:, LO].copy(),
            "hi": rows[:, HI].copy(),
            "level": self.levels_[cells],
            "mean": rows[:, NUM] / rows[:, DEN],
            "weight": rows[:, DEN].copy(),
        }

    @property
    def thresholds_(self) -> np.ndarray:
        """Observed scores where the map is stored (as in the batch calibrator)."""
        return self._table()[0]

    @property
    def values_(self) -> np.ndarray:
        """The level at each of :attr:`thresholds_`."""
        return self._table()[1]

    def _table(self):
        rows, cells = self._groups()
        return block_table(rows[:, LO], rows[:, HI], self.levels_[cells])

    def predict(self, scores) -> np.ndarray:
        """Return the level of the current map at each score.

        Parameters
        ----------
        scores : array-like of shape (n_samples,)

        Returns
        -------
        ndarray of shape (n_samples,)

        Raises
        ------
        ValueError
            Before the first observation.
        """
        q = check_scores(scores)
        if self._steps is None:
            t, v = self._table()
            if t.shape[0] == 0:
                raise ValueError(f"{type(self).__name__} has no observations yet")
            self._steps = _nearest_steps(t, v)
        splits, steps = self._steps
        return steps[np.searchsorted(splits, q, side="left")]

    def predict_one(self, score) -> float:
        """Return the level of the current map at one score.

        Equal to ``predict([score])[0]``, but found by a binary search of the
        current groups rather than from the step table that :meth:`predict`
        builds after each update: a loop that predicts every sample before
        learning it costs O(log K) per prediction (O(log K log n) in the
        tree of :class:`QuantizedIsotonic`).
        """
        q = _real(score, "score")
        if self._empty():
            raise ValueError(f"{type(self).__name__} has no observations yet")
        return float(self._level_at(q))

    def _empty(self) -> bool:
        return self.n_groups == 0

    def _level_at(self, q: float):
        rows, cells = self._groups()
        return level_at(rows, cells, 0, rows.shape[0], self.levels_, q)

    def insert(self, score, y, weight=1.0) -> None:
        """Add one observation (weight 0: nothing happens).

        :class:`OrderedQuantizedIsotonic` also needs its score to be at
        least the largest so far.
        """
        self._learn(np.array([_real(score, "score")]), np.array([_real(y, "y")]),
                    np.array([_weight(weight)]))

    def learn_many(self, scores, y, sample_weight=None) -> None:
        """Learn observations in the order given (a zero weight drops its row)."""
        self._learn(*_batch(scores, y, sample_weight))

    def _learn(self, s: np.ndarray, t: np.ndarray, w: np.ndarray) -> None:
        raise NotImplementedError

    def learn_one(self, score, y, weight=1.0) -> None:
        """Learn one observation (River's name for :meth:`insert`)."""
        self.insert(score, y, weight)

    def to_calibrator(self) -> QuantizedIsotonicCalibrator:
        """Return the current map as a fitted batch calibrator (labels 0 and 1).

        The calibrator predicts exactly as :meth:`predict` does and can be
        saved with :func:`venncal.save`; it is what
        :class:`~venncal.baselines.QuantizedIsotonicCalibrator` fits on the
        observations present.

        Raises
        ------
        ValueError
            Before the first observation, or when a level lies outside [0, 1].
        """
        t, v = self._table()
        if t.shape[0] == 0:
            raise ValueError(f"{type(self).__name__} has no observations yet")
        if self.levels_[0] < 0 or self.levels_[-1] > 1:
            raise ValueError("a calibrator needs levels in [0, 1]")
        cal = QuantizedIsotonicCalibrator(levels=self.levels)
        cal.classes_ = np.array([0, 1])
        cal.levels_, cal.thresholds_, cal.values_ = self.levels_.copy(), t, v
        cal._check_state()
        return cal


class OrderedQuantizedIsotonic(_QuantizedMap):
    """Quantized isotonic regression of a stream sorted by score (paper 003, §IV).

    Observations must arrive with non-decreasing scores.  Adjacent groups
    that violate monotonicity or share a level are merged as each score is
    completed (paper 003, Theorem 2), so there are never more than K groups
    and each observation costs amortised O(1).

    Parameters
    ----------
    levels : int or array-like of shape (K,), default=101
        An integer ``K >= 2`` gives ``K`` evenly spaced levels in ``[0, 1]``,
        endpoints included; an array gives the levels (finite, strictly
        increasing).

    Examples
    --------
    >>> from venncal.online.quantized import OrderedQuantizedIsotonic
    >>> model = OrderedQuantizedIsotonic(levels=5)
    >>> model.learn_many([0.1, 0.2, 0.2, 0.5, 0.7], [0, 1, 0, 1, 1])
    >>> model.insert(0.9, 1)
    >>> model.thresholds_, model.values_
    (array([0.1, 0.2, 0.5, 0.9]), array([0. , 0.5, 1. , 1. ]))
    >>> model.predict([0.0, 0.3, 0.4])
    array([0. , 0.5, 1. ])
    >>> model.insert(0.3, 1)
    Traceback (most recent call last):
    ...
    ValueError: scores must arrive in non-decreasing order: got 0.3 after 0.9
    """

    def __init__(self, levels=101):
        self._set_levels(levels)
        k = self.levels_.shape[0]
        self._G = np.zeros((k + 1, 4))
        self._GC = np.zeros(k + 1, dtype=np.int64)
        self._top = 0
        self._pending = np.zeros(4)  # score, weight, weighted sum, seen

    def _learn(self, s, t, w) -> None:
        kept = s[w > 0]
        if kept.shape[0] == 0:
            return
        last = self._pending[0] if self._pending[3] else -math.inf
        prev = np.concatenate(([last], kept[:-1]))
        bad = np.flatnonzero(kept < prev)
        if bad.shape[0]:
            i = int(bad[0])
            raise ValueError(
                f"scores must arrive in non-decreasing order: got {float(kept[i])!r} "
                f"after {float(prev[i])!r}"
            )
        self._top = ordered_learn(self._G, self._GC, self._top, self._pending, s, t, w,
                                  self._splits)
        self._steps = None

    def _groups(self):
        if not self._pending[3]:
            return np.empty((0, 4)), np.empty(0, dtype=np.intp)
        G, GC = self._G.copy(), self._GC.copy()
        s, w, a = self._pending[:3]
        top = push_group(G, GC, 0, self._top, a, w, s, s, self._splits)
        return G[:top], GC[:top]


class QuantizedIsotonic(_QuantizedMap):
    """Quantized isotonic regression of a stream in any order, with deletes (paper 003, §V).

    Keeps the exact optimal quantized map of the observations present after
    every insert and delete, in O(K log n) time per update for 0/1 targets
    of whole weight and O(K log n + log^2 n) otherwise (n distinct scores, K
    levels), and O(n) memory.  Scores need not be known in advance.

    Both trees are segment trees over buckets of sorted distinct scores: the
    paper's level structure (section V) merges sets in the same way but
    leaves its bookkeeping for unordered arrivals informal; a segment tree
    states it plainly, keeps a fixed shape (no rotations), and takes deletes
    as easily as inserts.  Buckets absorb new distinct scores anywhere in
    the order (full ones are spread over their neighbours, as in a
    packed-memory array), and the tree doubles when it is half full.

    - While every observation has a target 0 or 1 and a whole weight (the
      calibration case), each node keeps, for each of the K - 1 split points
      between levels, the largest sum of ``w (y - split)`` over a suffix of
      its scores: the isotonic regression exceeds a split exactly from where
      that sum is largest.  Written over a fraction that decides every mean
      the data can have as the split does, these sums are exact integers,
      and a node is its children joined by K - 1 additions and maxima,
      which the CPU does several at a time
      (:mod:`venncal._kernels.quantized_dense`).  Levels must lie in [0, 1]
      and be at most 256 (the tree's memory grows with K).
    - Otherwise (any other target or weight, a total weight above 2**26,
      beyond which the fractions are not certified, or other levels) the
      stream goes, once and for good, to a tree whose nodes stand for the
      at most K groups of the optimal quantized map of their scores
      (:mod:`venncal._kernels.quantized`): a node is its children's groups
      joined at one *junction* group, and an update changes an ancestor in
      O(1) unless it reaches the junction.

    Both give the same map, bit for bit, on the same data.

    Parameters
    ----------
    levels : int or array-like of shape (K,), default=101
        An integer ``K >= 2`` gives ``K`` evenly spaced levels in ``[0, 1]``,
        endpoints included; an array gives the levels (finite, strictly
        increasing).
    window : int, default=None
        Keep only the last ``window`` observations (of positive weight): each
        insert beyond them deletes the oldest.  :meth:`delete` is then not
        available.

    Notes
    -----
    Weights add up in floating point.  With integer weights and targets on
    a binary grid (0/1 labels), sums are exact, so deleting an observation
    restores the previous map bit for bit; otherwise up to rounding of the
    per-score sums.  A score whose last observation is deleted is removed
    exactly.  The memory reached at the largest size is kept.

    Examples
    --------
    >>> from venncal.online.quantized import QuantizedIsotonic
    >>> model = QuantizedIsotonic(levels=5)
    >>> model.learn_many([0.7, 0.1, 0.5, 0.2, 0.2], [1, 0, 1, 1, 0])
    >>> model.thresholds_, model.values_
    (array([0.1, 0.2, 0.5, 0.7]), array([0. , 0.5, 1. , 1. ]))
    >>> model.insert(0.6, 0)
    >>> model.thresholds_, model.values_
    (array([0.1, 0.2, 0.6, 0.7]), array([0. , 0.5, 0.5, 1. ]))
    >>> model.delete(0.6, 0)
    >>> model.values_
    array([0. , 0.5, 1. , 1. ])
    >>> model.delete(0.6, 0)
    Traceback (most recent call last):
    ...
    ValueError: cannot delete (score=0.6, y=0.0, weight=1.0): no such observation

    A window of the last 3 observations:

    >>> win = QuantizedIsotonic(levels=5, window=3)
    >>> win.learn_many([0.1, 0.2, 0.3, 0.4], [1, 0, 0, 1])
    >>> win.groups()["lo"], win.groups()["level"]
    (array([0.2, 0.4]), array([0., 1.]))
    """

    def __init__(self, levels=101, *, window: int | None = None):
        if window is not None and (
            not isinstance(window, numbers.Integral) or isinstance(window, bool) or window < 1
        ):
            raise ValueError(f"window must be a positive integer or None; got {window!r}")
        self._set_levels(levels)
        self.window = window
        # The dense tree while every observation is a 0/1 target of integer weight
        # (and the total weight stays below WEIGHT_BOUND); the tree of groups otherwise.
        self._fractions = (split_fractions(self._splits)
                           if self.levels_.shape[0] <= DENSE_MAX_LEVELS else None)
        self._dense = self._fractions is not None
        self._bucket = 32  # scores per bucket of the dense tree
        self._sparse_bucket = max(self.levels_.shape[0], 64)  # and of the tree of groups
        self._obs = obs_from_arrays(np.empty((0, 2)), np.empty(0))  # targets other than 0, 1
        self._ring = np.zeros((0 if window is None else int(window), 3))
        self._ring_state = np.zeros(2, dtype=np.int64)  # head, count
        self._allocate(2)

    def _allocate(self, n_buckets: int) -> None:
        if self._dense:
            b = self._bucket
            self._tree = (
                np.zeros((n_buckets * b, 3)),  # E: score, weight, weight of the target 1
                np.zeros(0, dtype=np.int64),  # EK, EW: not kept (see the tree of groups)
                np.zeros((0, 2)),
                np.zeros(2 * n_buckets, dtype=np.int64),  # cnt: scores per node
                np.full(2 * n_buckets, np.inf),  # FS: first score below each node
                # D: each internal node's largest suffix sum per split; NA, NB: its sums
                # of w y and w
                np.zeros((n_buckets, self._splits.shape[0])),
                np.zeros(n_buckets),
                np.zeros(n_buckets),
            )
            return
        b = self._sparse_bucket
        kb = min(self.levels_.shape[0], 2 * b)  # groups of a bottom node (over two buckets) at most
        self._tree = (
            np.zeros((n_buckets * b, 4)),  # E: score, weight, weighted target sum, cell
            np.zeros(n_buckets * b, dtype=np.int64),  # EK: distinct targets per score
            np.zeros((n_buckets * b, 2)),  # EW: weight of the targets 0 and 1 per score
            # G, GC: groups of the bottom nodes, then the junction group of each node
            np.zeros((n_buckets // 2 * (kb + 1), 4)),
            np.zeros(n_buckets // 2 * (kb + 1), dtype=np.int64),
            np.zeros(n_buckets, dtype=np.int64),  # ng: groups per internal node
            np.zeros(2 * n_buckets, dtype=np.int64),  # cnt: scores per node
            np.zeros(n_buckets, dtype=np.int64),  # JL, JR: the junction of each upper node
            np.zeros(n_buckets, dtype=np.int64),
            np.full(2 * n_buckets, np.inf),  # FS: first score below each node
            np.zeros((kb + 1, 4)),  # S, SC, CH: scratch of an update
            np.zeros(kb + 1, dtype=np.int64),
            np.zeros(CHANGE_CELLS, dtype=np.int64),
        )

    @property
    def _cnt(self) -> np.ndarray:
        return self._tree[3 if self._dense else 6]

    def _grow(self) -> None:
        """Move the scores to a tree with at least twice the buckets, at most half full."""
        if not self._dense:
            self._fill_groups(grow=True)
            return
        t = self._tree
        n_buckets = self._cnt.shape[0] // 2
        while 2 * (int(self._cnt[1]) + 1) > n_buckets * self._bucket:
            n_buckets *= 2
        self._allocate(n_buckets)
        dense_grow(t[0], t[1], t[2], t[3], *self._tree[:8], *self._fractions)

    def _fill_groups(self, grow: bool) -> None:
        """Move the scores to a new tree of groups, larger if ``grow``, at most half full."""
        t = self._tree
        n_buckets = self._cnt.shape[0] // 2
        entries, keys, weights01 = tree_entries(t[0], t[1], t[2], self._cnt)
        if self._dense:  # to the tree of groups' slots: a cell, and the weights per target
            weights01 = np.column_stack((entries[:, 1] - entries[:, 2], entries[:, 2]))
            keys = np.count_nonzero(weights01, axis=1).astype(np.int64)
            entries = np.column_stack((entries, np.zeros(entries.shape[0])))
        self._dense = False
        entries[:, 3] = np.searchsorted(self._splits, entries[:, 2] / entries[:, 1])
        n_buckets = n_buckets if grow else 2
        while 2 * (entries.shape[0] + 1) > n_buckets * self._sparse_bucket:  # at most half full
            n_buckets *= 2
        self._allocate(n_buckets)
        t = self._tree
        tree_fill(*t[:10], t[12], entries, keys, weights01, self._splits)

    def _leave_dense(self) -> None:
        """Move to the tree of groups (a target other than 0/1, or a weight that is not whole)."""
        self._fill_groups(grow=False)

    def _fits_dense(self, t: np.ndarray, w: np.ndarray) -> bool:
        """Whether the dense tree can take these observations (0/1 targets, whole weights)."""
        if t.shape[0] == 1:  # one insert() call: no array operations
            y0, w0 = float(t[0]), float(w[0])
            return ((y0 == 0.0 or y0 == 1.0) and w0.is_integer()
                    and float(self._tree[7][1]) + w0 <= WEIGHT_BOUND)
        total = float(self._tree[7][1]) + float(np.sum(w))
        return bool(np.all((t == 0.0) | (t == 1.0)) and np.all(w == np.floor(w))
                    and total <= WEIGHT_BOUND)

    def _learn(self, s, t, w) -> None:
        if self._dense and not self._fits_dense(t, w):
            self._leave_dense()
        i = 0
        while True:
            if self._dense:
                i = dense_learn(*self._tree, self._ring, self._ring_state, s, t, w, i,
                                *self._fractions)
            else:
                i = tree_learn(*self._tree, self._obs, self._ring, self._ring_state, s, t, w, i,
                               self._splits)
            if i == s.shape[0]:
                break
            self._grow()
        self._steps = None

    def delete(self, score, y, weight=1.0) -> None:
        """Remove one observation inserted before (weight 0: nothing happens).

        Raises
        ------
        ValueError
            If no observation ``(score, y)`` of at least this weight is
            present, or with a window (which deletes by itself).
        """
        if self.window is not None:
            raise ValueError("delete is not available with a window: the oldest are deleted")
        s, t, w = _real(score, "score"), _real(y, "y"), _weight(weight)
        if w == 0.0:
            return
        if self._dense and not w.is_integer():
            self._leave_dense()
        if self._dense:
            done = dense_delete(*self._tree, s, t, w, *self._fractions)
        else:
            done = tree_delete(*self._tree, self._obs, s, t, w, self._splits)
        if not done:
            raise ValueError(
                f"cannot delete (score={s!r}, y={t!r}, weight={w!r}): no such observation"
            )
        self._steps = None

    @property
    def n_distinct(self) -> int:
        """Number of distinct scores present."""
        return int(self._cnt[1])

    def _empty(self) -> bool:
        return self._cnt[1] == 0

    def _groups(self):
        t = self._tree
        if self._dense:
            return dense_groups(t[0], t[3], t[5], t[6], t[7], *self._fractions)
        return tree_groups(t[3], t[4], t[5], t[7], t[8], 1)

    @property
    def n_groups(self) -> int:
        """Number of groups (runs of scores mapped to one level) of the current map."""
        if self._dense:
            return int(self._groups()[0].shape[0])
        return int(self._tree[5][1])  # the root's count: its groups need not be read out

    def _level_at(self, q: float):  # searched in the tree
        t = self._tree
        if self._dense:
            return dense_level_at(t[0], t[3], t[4], t[5], *self._fractions, self.levels_, q)
        return tree_level_at(t[3], t[4], t[5], t[7], t[8], self.levels_, q)

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_obs"] = obs_to_arrays(self._obs)
        return state

    def __setstate__(self, state):
        keys, weights = state.pop("_obs")
        if "_dense" not in state:  # pickled before the dense tree: a tree of groups
            state.update(_dense=False, _fractions=None, _sparse_bucket=state["_bucket"])
        self.__dict__.update(state)
        self._obs = obs_from_arrays(keys, weights)
