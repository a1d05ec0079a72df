"""Sequential quantized isotonic regression (Gokcesu & Gokcesu 2022, sections IV and V).

Both classes keep, after every update, the best non-decreasing map from
scores to a finite set of levels in weighted least squares: the isotonic
regression of the observations so far projected onto the nearest level (a
value exactly halfway between two levels goes to the lower one).  This is
the map that :class:`~venncal.baselines.QuantizedIsotonicCalibrator` fits in
one batch, and it extends to other scores the same way (nearest observed
score, the smaller one at a tie; the end levels beyond the observed range).

- :class:`OrderedQuantizedIsotonic`: observations whose scores arrive in
  non-decreasing order, amortised O(1) per observation, memory O(K)
  (Gokcesu & Gokcesu 2022, section IV).
- :class:`QuantizedIsotonic`: any order, with deletes and an optional sliding
  window, memory O(n) (Gokcesu & Gokcesu 2022, section V): O(K log n) per update for 0/1
  targets of whole weight, O(K log n + log^2 n) otherwise.

**Both are exact, whatever the weights.**  Weights are added up exactly (the
weight at each score and target is kept as an exact sum, not a running
float), so deleting what was inserted leaves exactly nothing, a score
leaves when its last weight does, and the window's delete of its oldest
observation always succeeds.  Every level is decided in exact arithmetic:
a group's float sums carry bounds on their rounding errors, and where they
cannot tell on which side of a midpoint the group's mean lies, its exact
sums decide.  So the map equals the exact fit of the observations present
(weights and targets as the exact values of their floats).  The one limit:
the weights held, times the largest of 1, ``|target|`` and ``|level|``, must
stay below ``2**1000`` (a clear error otherwise: multiplying every weight by
one positive factor does not change the map).

Targets may be any real numbers (labels 0/1 for calibration; then
``predict_proba_one`` and ``predict_proba_many`` give both classes'
probabilities).  The kernels and the proofs that the trees are exact are in
:mod:`venncal._kernels.quantized_dense` (0/1 targets) and
:mod:`venncal._kernels.quantized_nodes` (any targets).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._kernels.exact import new_accumulators
from .._kernels.quantized import (
    ORDERED_SCRATCH,
    _RD,
    _RN,
    ordered_groups,
    ordered_learn,
    ordered_push,
)
from .._kernels.quantized_buckets import tree_entries
from .._kernels.quantized_dense import (
    dense_groups,
    dense_grow,
    dense_learn,
)
from .._kernels.quantized_nodes import tree_fill
from .._kernels.quantized_scores import (
    TREE_ACCUMULATORS,
    new_targets,
    new_weights,
    targets_from_weights,
    weights_from_arrays,
    weights_to_arrays,
)
from .._kernels.quantized_tree import tree_delete, tree_groups, tree_learn, tree_level_at
from .._kernels.quantized_walk import CHANGE_CELLS
from ._forgetting import Decay, check_half_life
from ._quantized_calls import QUEUE, QueuedInserts, check_dense_tree, new_packed
from ._quantized_map import UNSET, QuantizedMap, _real, _weight
from ._rational import WEIGHT_BOUND, split_fractions

__all__ = ["OrderedQuantizedIsotonic", "QuantizedIsotonic"]

# The dense tree keeps K - 1 numbers per node: with more levels it takes memory in
# proportion (at n = 1e5 scores: 13 MB for K = 101, 23 MB for 256 and 72 MB for 1001,
# against 10-16 MB for the tree of groups) for less and less speed (2.9x the tree of
# groups' inserts per second at K = 101, 2.3x at 256, 1.2x at 1001; 2026-11-25).
DENSE_MAX_LEVELS = 256
_FORMAT = 2  # of the pickled state: 2 since the exact weights (1: a float per score and target)


class OrderedQuantizedIsotonic(QuantizedMap):
    """Quantized isotonic regression of a stream sorted by score (Gokcesu & Gokcesu 2022, §IV).

    Observations must arrive with non-decreasing scores.  Adjacent groups
    that violate monotonicity or share a level are merged as each score is
    completed (Gokcesu & Gokcesu 2022, Theorem 2), so there are never more than K groups
    and each observation costs amortised O(1).  Weights add up exactly and
    levels are decided exactly (see the module's documentation): a group
    whose float sums are not exact keeps their remainders in two long
    accumulators (about 1.7 KB).

    Parameters
    ----------
    levels : int or array-like of shape (K,), default=101
        The ``K`` levels, as for :class:`QuantizedIsotonic`.

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
    >>> model.predict_proba_one(0.2)
    {0: 0.5, 1: 0.5}
    >>> model.insert(0.3, 1)
    Traceback (most recent call last):
    ...
    ValueError: scores must arrive in non-decreasing order: got 0.3 after 0.9
    """

    def __init__(self, levels=101):
        self._set_levels(levels)
        self._allocate(min(self.levels_.shape[0] + 1, 64))
        self._state = np.zeros(1, dtype=np.int64)  # the number of groups
        self._pending = np.zeros(6)  # score, weight, weighted sum, seen, their error bounds
        self._other = False  # whether a target other than 0 and 1 was learned

    def _allocate(self, capacity: int) -> None:
        """Room for ``capacity`` groups (and two long accumulators each), the groups kept."""
        G, GC = np.zeros((capacity, 6)), np.zeros(capacity, dtype=np.int64)
        acc = new_accumulators(ORDERED_SCRATCH + 2 * capacity)
        if hasattr(self, "_G"):
            n = self._G.shape[0]
            G[:n], GC[:n], acc[: self._ACC.shape[0]] = self._G, self._GC, self._ACC
        self._G, self._GC, self._ACC = G, GC, acc

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
        self._check_bound(t, w)
        self._other = self._other or bool(np.any((t != 0.0) & (t != 1.0) & (w > 0)))
        i = 0
        while True:
            i = ordered_learn(self._G, self._GC, self._ACC, self._state, self._pending, s, t, w,
                              i, self._lv)
            if i == s.shape[0]:
                break
            self._allocate(2 * self._G.shape[0])
        self._steps = None

    def _binary(self) -> bool:
        return not self._other

    @classmethod
    def _unit_test_stream(cls, n: int, seed: int):
        """The contract test's stream, its scores sorted (they must arrive in order)."""
        x, y = super()._unit_test_stream(n, seed)
        order = np.argsort(x, kind="stable")
        return x[order], y[order]

    def _groups(self):
        return ordered_groups(self._G, self._GC, self._ACC, int(self._state[0]), self._pending,
                              self._lv)

    def __setstate__(self, state):
        if "_top" in state:  # pickled before the exact sums: groups of float sums
            G, _, top, pending = state.pop("_G"), state.pop("_GC"), state.pop("_top"), \
                state.pop("_pending")
            self.__dict__.update(state)
            self.__init__(self.levels)
            self._held = float(np.sum(G[:top, 1])) + float(pending[1])
            self._other = True  # not recorded then: probabilities are refused
            for j in range(top):  # each former group pushed again, its level decided exactly
                self._state[0] = ordered_push(self._G, self._GC, self._ACC, self._state[0],
                                              G[j, 0], G[j, 1], 0.0, 0.0, G[j, 2], G[j, 3], _RN, _RD,
                                              True, self._lv)
            self._pending[:4] = pending
            return
        self.__dict__.update(state)


class QuantizedIsotonic(QueuedInserts, QuantizedMap):
    """Quantized isotonic regression of a stream in any order, with deletes (Gokcesu & Gokcesu 2022, §V).

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
      the data can have as the exact midpoint does, these sums are exact integers,
      and a node is its children joined by K - 1 additions and maxima,
      which the CPU does several at a time
      (:mod:`venncal._kernels.quantized_dense`).  Levels must lie in [0, 1]
      and be at most 256 (the tree's memory grows with K).
    - Otherwise (any other target or weight, a total weight above 2**26,
      beyond which the fractions are not certified, or other levels) the
      stream goes, once and for good, to a tree whose nodes stand for the
      at most K groups of the optimal quantized map of their scores
      (:mod:`venncal._kernels.quantized_nodes`): a node is its children's groups
      joined at one *junction* group, and an update changes an ancestor in
      O(1) unless it reaches the junction.  The weights at each score are
      kept exactly (:mod:`venncal._kernels.quantized_scores`).

    Both give the same map, bit for bit, on the same data.

    Parameters
    ----------
    levels : int or array-like of shape (K,), default=101
        An integer ``2 <= K <= 10001`` gives ``K`` evenly spaced levels in
        ``[0, 1]``, endpoints included; an array gives the levels (finite,
        strictly increasing, at most 10001 of them).
    window : int, default=None
        Keep only the last ``window`` observations (of positive weight): each
        insert beyond them deletes the oldest.  :meth:`delete` is then not
        available.  Their ring is allocated when the object is made: 24 bytes
        per observation of the window (2.4 GB for ``window=10**8``).
    half_life : float in [2**-40, 2**50], default=None
        Exponential forgetting: after ``T`` observations, the ``t``-th (of
        positive weight: a zero weight drops its row) weighs ``w 2**(-(T - t) /
        half_life)``; it leaves when that falls below ``2**-1022`` times the
        largest weight held before the step (its power of two: about ``1022 half_life``
        steps for a weight equal to it, at any scale; a weight that would
        leave at once, or make one held leave at once, is refused) (:mod:`venncal.online._forgetting`: the map
        equals a batch fit with these weights up to a documented tolerance).  Not with ``window``;
        :meth:`delete` is then not available.

    Notes
    -----
    Weights add up exactly, whatever they are: deleting an observation
    restores the previous map bit for bit, a score whose last weight is
    deleted is removed, and a delete of more than is present is refused
    (``0.1 + 0.2`` inserted is exactly ``0.1 + 0.2``, less than the float
    ``0.30000000000000004``).  Levels are decided in exact arithmetic (see
    the module's documentation).  The memory reached at the largest size is
    kept.

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
    ValueError: cannot delete (score=0.6, y=0.0, sample_weight=1.0): less weight of (score, y) ...

    A window of the last 3 observations:

    >>> win = QuantizedIsotonic(levels=5, window=3)
    >>> win.learn_many([0.1, 0.2, 0.3, 0.4], [1, 0, 0, 1])
    >>> win.groups()["lo"], win.groups()["level"]
    (array([0.2, 0.4]), array([0., 1.]))
    """

    def __init__(self, levels=101, *, window: int | None = None, half_life=None):
        h = check_half_life(half_life, window)
        if window is not None and (
            not isinstance(window, numbers.Integral) or isinstance(window, bool) or window < 1
        ):
            raise ValueError(f"window must be a positive integer or None; got {window!r}")
        self._set_levels(levels)
        self.window = window
        self.half_life = half_life
        self._decay = None if h is None else Decay(h)
        # The dense tree while every observation is a 0/1 target of integer weight
        # (and the total weight stays below WEIGHT_BOUND); the tree of groups otherwise.
        k = self.levels_.shape[0]
        self._fractions = (split_fractions(self._splits, levels=self.levels_)
                           if k <= DENSE_MAX_LEVELS and h is None else None)  # decay: not whole
        self._dense = self._fractions is not None
        self._bucket = 32  # scores per bucket of the dense tree
        self._sparse_bucket = min(max(k, 64), 1024)  # and of the tree of groups
        self._ring = _ring(window)
        self._ring_state = np.zeros(2, dtype=np.int64)  # head, count
        self._clear_trees()
        self._unit_levels = bool(self.levels_[0] >= 0 and self.levels_[-1] <= 1)

    def _clear_trees(self) -> None:
        """Empty trees (the dense one if the levels allow it), the parameters kept."""
        self._dense = self._fractions is not None
        self._xw, self._xt = new_weights(), new_targets()  # exact weights that are not one float
        self._allocate(2)
        self._new_queue()
        self._held, self._steps = 0.0, None

    @classmethod
    def _unit_test_params(cls):
        """The contract test's parameters: the dense tree, windows, the tree of groups, decay."""
        yield from super()._unit_test_params()
        yield {"levels": 5, "window": 60}
        yield {"levels": 11, "half_life": 30.5}
        yield {"levels": 1001}  # more than DENSE_MAX_LEVELS: the tree of groups
        yield {"levels": 1001, "window": 25}

    def _allocate(self, n_buckets: int) -> None:
        if self._dense:  # E, EK, EW, cnt, FS, D, NA, NB and the queue: views of one array
            self._packed, self._tree, queue = new_packed(n_buckets, self._bucket, *self._fractions,
                                                         self.levels_)
            self._set_queue(queue)  # (what is queued kept: a grow happens mid-flush)
            return
        self._packed = None
        self._set_queue(np.zeros((4, QUEUE)))
        b = self._sparse_bucket
        kb = min(self.levels_.shape[0], 2 * b)  # groups of a bottom node (over two buckets) at most
        self._tree = (
            # E: score, weight, weighted target sum (each rounded), cell, error bounds of both
            np.zeros((n_buckets * b, 6)),
            np.zeros(n_buckets * b, dtype=np.int64),  # EK: which weights are expansions
            np.zeros((n_buckets * b, 2)),  # EW: weight of the targets 0 and 1 per score
            # G, GC: groups of the bottom nodes, then the junction group of each node
            np.zeros((n_buckets // 2 * (kb + 1), 6)),
            np.zeros(n_buckets // 2 * (kb + 1), dtype=np.int64),
            np.zeros(n_buckets, dtype=np.int64),  # ng: groups per internal node
            np.zeros(2 * n_buckets, dtype=np.int64),  # cnt: scores per node
            np.zeros(n_buckets, dtype=np.int64),  # JL, JR: the junction of each upper node
            np.zeros(n_buckets, dtype=np.int64),
            np.full(2 * n_buckets, np.inf),  # FS: first score below each node
            np.zeros((kb + 1, 6)),  # S, SC, CH: scratch of an update
            np.zeros(kb + 1, dtype=np.int64),
            np.zeros(CHANGE_CELLS, dtype=np.int64),
            new_accumulators(TREE_ACCUMULATORS),  # ACC: scratch of exact decisions
        )

    def _kernel_args(self) -> tuple:
        """The tree of groups' arrays in the kernels' order (the dicts after E, EK, EW)."""
        t = self._tree
        return (*t[:3], self._xw, self._xt, *t[3:], self._lv)

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
        entries, flags, weights01 = tree_entries(t[0], t[1], t[2], self._cnt)
        if self._dense:  # to the tree of groups' slots: the weights per target, exact
            weights01 = np.column_stack((entries[:, 1] - entries[:, 2], entries[:, 2]))
            flags = np.zeros(entries.shape[0], dtype=np.int64)
            entries = np.column_stack((entries[:, :1], np.zeros((entries.shape[0], 5))))
        self._dense = False
        n_buckets = n_buckets if grow else 2
        while 2 * (entries.shape[0] + 1) > n_buckets * self._sparse_bucket:  # at most half full
            n_buckets *= 2
        self._allocate(n_buckets)
        t = self._kernel_args()
        tree_fill(*t[:12], t[15], t[16], t[14], entries, flags, weights01)

    def _leave_dense(self) -> None:
        """Move to the tree of groups (a target other than 0/1, or a weight that is not whole)."""
        self._flush()
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

    def _dense_room(self, held: float, w: float) -> bool:
        """Whether the dense tree's total weight stays within WEIGHT_BOUND with ``w`` more queued."""
        return (held <= WEIGHT_BOUND
                or float(self._tree[7][1]) + self._queue_total() + w <= WEIGHT_BOUND)

    def _learn(self, s, t, w) -> None:
        if self._decay is not None:  # each row decayed, the leaving ones deleted
            self._decay.learn(self, s, t, w)
            return
        self._learn_now(s, t, w)

    def _learn_now(self, s, t, w) -> None:
        self._flush()
        self._check_bound(t, w)
        if self._dense and not self._fits_dense(t, w):
            self._leave_dense()
        i = 0
        while True:
            if self._dense:
                i = dense_learn(*self._tree, self._ring, self._ring_state, s, t, w, i,
                                *self._fractions)
            else:
                i = tree_learn(*self._kernel_args(), self._ring, self._ring_state, s, t, w, i)
            if i == s.shape[0]:
                break
            self._grow()
        self._steps = None

    def delete(self, score, y, sample_weight=1.0, *, weight=UNSET) -> None:
        """Remove weight ``sample_weight`` of observation ``(score, y)`` (0: nothing happens).

        The weight present is kept exactly, so what was inserted can be
        deleted exactly; ``weight=`` is the deprecated name of
        ``sample_weight=``.

        Raises
        ------
        ValueError
            If less than this weight of ``(score, y)`` is present (nothing
            changes), or with a window or a half-life (which delete by themselves).
        """
        if self.window is not None:
            raise ValueError("delete is not available with a window: the oldest are deleted")
        if self._decay is not None:
            raise ValueError("delete is not available with half_life: observations decay and "
                             "leave by themselves")
        s, t, w = _real(score, "score"), _real(y, "y"), _weight(sample_weight, weight, "delete")
        if w == 0.0:
            return
        self._remove(s, t, w)

    def _remove(self, s: float, t: float, w: float) -> None:
        """Delete weight ``w > 0`` of ``(s, t)`` exactly; a ValueError if less is present."""
        if self._dense and not w.is_integer():
            self._leave_dense()
        if self._dense:  # the queue first, in the same call
            done = self._dense_call(1, s, t, w) == 1.0
        else:
            done = tree_delete(*self._kernel_args(), s, t, w)
        if not done:
            raise ValueError(
                f"cannot delete (score={s!r}, y={t!r}, sample_weight={w!r}): less weight of "
                "(score, y) is held (or none); nothing changed"
            )
        self._held = max(self._held - w, 0.0)
        self._steps = None

    @property
    def n_distinct(self) -> int:
        """Number of distinct scores present."""
        self._flush()
        return int(self._cnt[1])

    def _empty(self) -> bool:
        return not self._n_queued and self._cnt[1] == 0

    def _binary(self) -> bool:
        return self._dense or len(self._xt) == 0

    def _groups(self):
        self._flush()
        t = self._tree
        if self._dense:
            return dense_groups(t[0], t[3], t[5], t[6], t[7], *self._fractions)
        return tree_groups(t[3], t[4], t[5], t[7], t[8], 1)

    @property
    def n_groups(self) -> int:
        """Number of groups (runs of scores mapped to one level) of the current map."""
        self._flush()
        if self._dense:
            return int(self._groups()[0].shape[0])
        return int(self._tree[5][1])  # the root's count: its groups need not be read out

    def _level_at(self, q: float):  # searched in the tree
        if self._dense:  # the queue first, in the same call
            return self._dense_call(0, q)
        t = self._tree
        return tree_level_at(t[3], t[4], t[5], t[7], t[8], self.levels_, q)

    def __getstate__(self):
        self._flush()
        state = self._pickled(self.__dict__.copy())
        state["_xw"] = weights_to_arrays(self._xw)
        del state["_xt"]
        state["_format"] = _FORMAT
        return state

    def __setstate__(self, state):
        if "_format" not in state:  # pickled before the exact weights: learned again
            self._replay(state)
            return
        if "_dense" not in state:  # pickled before the dense tree: a tree of groups
            state.update(_dense=False, _fractions=None, _sparse_bucket=state["_bucket"])
        state.setdefault("half_life", None)  # pickled before forgetting
        state.setdefault("_decay", None)
        self.__dict__.update(state)
        self._xw = weights_from_arrays(*state["_xw"])
        self._xt = targets_from_weights(self._xw)
        self._queue, self._packed = None, None
        if self._dense:  # the pickled arrays checked, then copied into a packed tree of their size
            tree = self._tree
            check_dense_tree(tree, self._bucket, self._fractions[0].shape[0])
            self._allocate(tree[3].shape[0] // 2)
            for mine, saved in zip(self._tree, tree):
                mine[...] = saved
        self._new_queue()
        self._unit_levels = bool(self.levels_[0] >= 0 and self.levels_[-1] <= 1)

    def _replay(self, old) -> None:
        """Rebuild a stream pickled before the exact weights from what it held."""
        self.__init__(old["levels"], window=old["window"])
        keys, weights = old["_obs"]  # targets other than 0 and 1
        t = old["_tree"]
        if old.get("_dense", False):
            e = tree_entries(t[0], t[1], t[2], t[3])[0]
            s, y, w = (np.concatenate(v) for v in ((e[:, 0], e[:, 0]), (0 * e[:, 0], 1 + 0 * e[:, 0]),
                                                    (e[:, 1] - e[:, 2], e[:, 2])))
        else:
            e, _, w01 = tree_entries(t[0], t[1], t[2], t[6])
            s = np.concatenate((e[:, 0], e[:, 0], keys[:, 0]))
            y = np.concatenate((np.zeros(e.shape[0]), np.ones(e.shape[0]), keys[:, 1]))
            w = np.concatenate((w01[:, 0], w01[:, 1], weights))
        if self.window is not None:  # the window held what its ring holds, oldest first
            ring, (head, count) = old["_ring"], old["_ring_state"]
            order = (head + np.arange(count)) % ring.shape[0]
            s, y, w = ring[order, 0], ring[order, 1], ring[order, 2]
        keep = w > 0
        self.learn_many(s[keep], y[keep], w[keep])


def _ring(window: int | None) -> np.ndarray:
    """The window's ring of (score, target, weight) rows, allocated now; a clear error if not."""
    rows = 0 if window is None else int(window)
    try:
        return np.zeros((rows, 3))
    except (MemoryError, ValueError):  # past the memory, or past numpy's largest array
        raise MemoryError(
            f"window={window!r} needs a ring of {rows:,} observations, 24 bytes each "
            f"({rows * 24 / 2**30:,.1f} GiB), allocated when the object is made, and it "
            "cannot be; choose a smaller window"
        ) from None
