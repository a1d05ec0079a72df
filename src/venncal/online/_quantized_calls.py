"""Single calls of :class:`~venncal.online.QuantizedIsotonic` from Python: a queue of inserts.

``insert`` and ``learn_one`` of an observation the dense tree takes (target
0 or 1, a whole weight, no window) check it with a few comparisons of Python
values, apply the weight bound of the batch path, and queue it in a
preallocated array.  The queue is applied, in order, by the dense tree's own
insert (:func:`~venncal._kernels.quantized_packed.packed_calls`, which is
:func:`~venncal._kernels.quantized_dense.dense_learn` without a window, the
tree grown where it gets full exactly as there) before anything reads the
map, and in the same kernel call as the operation that reads it: a level
(``predict_one``, ``predict_proba_one``) or a delete.  The dense tree, the
queue, the split fractions and the levels are views of one array
(:func:`new_packed`), so that call passes one array and five numbers (a
level, :func:`~venncal._kernels.quantized_packed.packed_level`, one array
and two; each array passed costs about 60 ns), through the compiled function found
once by :func:`~venncal.online._state.compiled_entry` (numba's
``overloads[signature].entry_point``, the dispatcher itself if a numba
version does not have it).  So the map is the one
``learn_many`` gives on the same observations, bit for bit, after every call.
Everything else (the tree of groups, windows, other targets and weights)
applies the queue first and then takes the batch path.
"""

from __future__ import annotations

import numpy as np

from .._kernels.exact import BOUND
from .._kernels.quantized_packed import packed_calls, packed_level, packed_size, packed_views
from ._quantized_map import UNSET
from ._rational import WEIGHT_BOUND
from ._state import compiled_entry

__all__ = ["ONE", "QueuedInserts", "check_dense_tree", "new_packed"]

QUEUE = 256
#: The default ``sample_weight`` of ``insert`` and ``learn_one`` (tested by identity first).
ONE = 1.0
_FAST = frozenset((float, int, np.float64, np.int64))
_FAST_Y = frozenset((float, int, bool, np.float64, np.int64, np.bool_))
_FAST_SCORES = frozenset((float, int, np.float64))


def _held_exactly(x) -> bool:
    """Whether a fast-path number is a double already, or an integer a double holds exactly.

    Integers past 2**53 take the checked path, which refuses them (as the ``*_many``
    calls do): rounded, two scores would tie.
    """
    return type(x) is float or type(x) is np.float64 or -(2**53) <= x <= 2**53
_WEIGHT_BOUND = float(WEIGHT_BOUND)  # (a float compared with a float: faster than with an int)
_NOT_PICKLED = ("_queue", "_queue_s", "_queue_t", "_queue_w", "_n_queued", "_call", "_level",
                "_packed")


def new_packed(n_buckets: int, bucket: int, Q: np.ndarray, P: np.ndarray, levels: np.ndarray):
    """An empty dense tree packed in one array (:mod:`venncal._kernels.quantized_packed`).

    Returns ``(buf, tree, queue)``: ``tree`` is the tuple of views ``E, EK,
    EW, cnt, FS, D, NA, NB`` that the batch kernels take (as the arrays
    ``QuantizedIsotonic._allocate`` made before), ``queue`` the view of the
    queue; ``Q``, ``P`` and ``levels`` are copied in.
    """
    nt, k = Q.shape[0], levels.shape[0]
    buf = np.zeros(packed_size(n_buckets, bucket, nt, k, QUEUE))
    buf[:5] = n_buckets, bucket, nt, k, QUEUE
    E, EK, EW, cnt, FS, D, NA, NB, queue, q, p, lv = packed_views(buf)
    FS[:] = np.inf
    q[:], p[:], lv[:] = Q, P, levels
    return buf, (E, EK, EW, cnt, FS, D, NA, NB), queue


def check_dense_tree(tree, bucket: int, splits: int) -> None:
    """Refuse a pickled dense tree whose arrays could not have been written by its kernels.

    The kernels index the tree by its counts (:mod:`venncal._kernels.quantized_packed`
    trusts them), so a stream loaded from a pickle has them checked once:
    each array of the shape its bucket count (a power of two) and its
    ``splits`` (the stream's split points) give, each
    bucket's count in ``[0, bucket]`` and each inner node's count the sum of
    its two children's.  ValueError naming the defect otherwise.
    """
    E, EK, EW, cnt, FS, D, NA, NB = tree
    c = cnt.shape[0] // 2 if cnt.ndim == 1 else 0
    shapes = ((E, (c * bucket, 3)), (cnt, (2 * c,)), (FS, (2 * c,)), (D, (c, splits)),
              (NA, (c,)), (NB, (c,)))
    if c < 1 or c & (c - 1) or any(a.shape != shape for a, shape in shapes):
        raise ValueError("the pickled quantized stream's dense tree has arrays of the wrong shapes")
    leaves = cnt[c:]
    if cnt.dtype != np.int64 or np.any(leaves < 0) or np.any(leaves > bucket):
        raise ValueError(f"the pickled quantized stream's dense tree has a bucket count outside "
                         f"[0, {bucket}]")
    if not np.array_equal(cnt[1:c], cnt[2:2 * c:2] + cnt[3:2 * c:2]):
        raise ValueError("the pickled quantized stream's dense tree has inner counts that are "
                         "not the sums of their children's")


def _single(name: str, doc: str):
    """``QueuedInserts.learn_one`` or ``insert``: one body under River's name and ours.

    The checks of ``_queued`` for a float score and a weight of one, inlined (a
    Python call is a good part of an event's cost), and only a label 1 written
    (the queue's label row is 0.0 wherever nothing was written: see
    :meth:`QueuedInserts._new_queue`); anything else goes through ``_queued``,
    then the parent's ``name`` (which checks it and names it in its errors).
    """

    def slow(self, score, y, sample_weight, weight) -> None:
        if weight is UNSET and self._queued(score, y, sample_weight):
            return
        getattr(super(QueuedInserts, self), name)(score, y, sample_weight, weight=weight)

    def one(self, score, y, sample_weight=ONE, *, weight=UNSET) -> None:
        if (type(score) is float and sample_weight is ONE and self._dense
                and self.window is None and type(y) in _FAST_Y):
            s = score + 0.0  # -0.0 becomes 0.0, as in _real
            held = self._held + 1.0
            if (s - s == 0.0 and held <= _WEIGHT_BOUND and held * self._scale <= BOUND
                    and weight is UNSET):
                # (within WEIGHT_BOUND, _dense_room holds: see _queued)
                n = self._n_queued
                if y == 1.0:  # the label row is 0.0 where nothing was written (see _new_queue)
                    self._queue_t[n] = 1.0
                elif y != 0.0:  # not a label: checked, and named, by the slow path
                    return slow(self, score, y, sample_weight, weight)
                self._held = held
                self._queue_s[n] = s  # (the weight, 1.0, is there: see _new_queue)
                self._n_queued = n = n + 1
                self._steps = None
                if n == QUEUE:
                    self._flush()
                return
        slow(self, score, y, sample_weight, weight)

    one.__name__ = name
    one.__qualname__ = f"QueuedInserts.{name}"
    one.__doc__ = doc
    return one


class QueuedInserts:
    """The queue of a quantized stream (mixed into :class:`~venncal.online.QuantizedIsotonic`).

    The host keeps ``_dense``, ``window``, ``_tree``, ``_fractions``,
    ``levels_``, ``_held``, ``_scale`` and ``_steps``, and implements
    ``_grow`` and ``_dense_room``.
    """

    def _set_queue(self, queue: np.ndarray) -> None:
        """Move the queue (its contents kept) to ``queue``, shape ``(4, QUEUE)``."""
        if getattr(self, "_queue", None) is not None:
            queue[:] = self._queue
        self._queue = queue
        # Rows written one number at a time: a memoryview's item assignment costs
        # about half of an array's.
        self._queue_s, self._queue_t, self._queue_w = (memoryview(queue[i]) for i in range(3))

    def _new_queue(self) -> None:
        """An empty queue (in the packed tree while the tree is dense)."""
        if not self._dense:
            self._queue = None
            self._set_queue(np.zeros((4, QUEUE)))
        self._queue[:] = 0.0  # the labels: learn_one writes only a 1 (the kernel resets them)
        self._queue[2] = 1.0  # the weights: learn_one writes none of one (the kernel resets them)
        self._n_queued = 0
        self._call = self._level = None

    def _queued(self, score, y, sample_weight) -> bool:
        """Queue ``(score, y, sample_weight)`` if the dense tree takes it unchecked; return whether it was."""
        if not self._dense or self.window is not None or type(score) not in _FAST \
                or type(y) not in _FAST_Y or not _held_exactly(score):
            return False
        if type(y) is int and not 0 <= y <= 1:  # (10**400: the checked path says)
            return False
        s = float(score) + 0.0  # -0.0 becomes 0.0, as in _real
        t = float(y)
        if s - s != 0.0 or (t != 0.0 and t != 1.0):  # not finite, or not a label
            return False
        if sample_weight is ONE:
            w = 1.0
        elif type(sample_weight) in _FAST and sample_weight > 0 and _held_exactly(sample_weight):
            w = float(sample_weight)
            if not w.is_integer():
                return False
        else:
            return False
        n = self._n_queued
        held = self._held + w  # the weight bound of _check_bound (|t| <= 1 <= scale)
        if not held * self._scale <= BOUND:
            return False
        # In the dense tree every weight is whole and their sum is below 2**53, so
        # ``_held`` is the tree's total plus the queue's, exactly: within the bound
        # it settles the check (_fits_dense's, the queue counted); beyond it, the
        # tree's own total and the queue's do.
        if not self._dense_room(held, w):
            return False
        self._held = held
        self._queue_s[n] = s
        self._queue_t[n] = t
        self._queue_w[n] = w
        self._n_queued = n + 1
        self._steps = None
        if n + 1 == QUEUE:
            self._flush()
        return True

    learn_one = _single(
        "learn_one", """Learn one observation (River's name for :meth:`insert`); returns None.""")
    insert = _single("insert", """Add one observation (weight 0: nothing happens).

        ``weight=`` is the deprecated name of ``sample_weight``.

        An observation the dense tree takes (target 0 or 1, whole weight, no
        window) is queued and inserted before anything reads the map: the map
        is that of ``learn_many`` on the same observations, bit for bit.
        """)

    def predict_proba_one(self, score) -> dict:
        """Return ``{0: 1 - p, 1: p}``, ``p`` the level at ``score`` (River's convention).

        Raises
        ------
        ValueError
            Before the first observation, when a level lies outside [0, 1],
            or when the observations present have targets other than 0 and 1.
        """
        if ((type(score) is float or type(score) in _FAST_SCORES and _held_exactly(score))
                and self._dense and self._unit_levels):
            n = self._n_queued
            if n or self._tree[3][1]:
                q = score + 0.0 if type(score) is float else float(score) + 0.0
                if q - q == 0.0:
                    level = self._level
                    if level is not None:  # _dense_call(0, q), inlined
                        p = level(self._packed, n, q)
                        if p != p:  # the tree got full: grown there
                            p = self._dense_call(0, q)
                        elif n:
                            self._n_queued = 0
                    else:
                        p = self._dense_call(0, q)
                    return {0: 1.0 - p, 1: p}
        return super().predict_proba_one(score)

    def _dense_call(self, op: int, s: float = 0.0, y: float = 0.0, w: float = 0.0) -> float:
        """Apply the queue and do ``op`` (0: level at ``s``, 1: delete, 2: nothing) in one call."""
        call = self._call
        if call is None:
            call = self._call = compiled_entry(packed_calls, self._packed, 0, 2, 0.0, 0.0, 0.0)
            self._level = compiled_entry(packed_level, self._packed, 0, 0.5, run=False)
        n = self._n_queued
        r = call(self._packed, n, op, s, y, w)
        while r != r and self._queue[3, 1]:
            self._queue[3, 1] = 0.0
            self._grow()  # full at queue[3, 0]: grown as dense_learn's caller grows it
            r = call(self._packed, n, op, s, y, w)
        self._n_queued = 0
        return r

    def _flush(self) -> None:
        """Apply the queued inserts, in order."""
        if self._n_queued:
            self._dense_call(2)

    def _queue_total(self) -> float:
        """The weight queued and not yet in the tree (exact: whole weights, their sum below 2**53)."""
        return float(np.sum(self._queue[2, int(self._queue[3, 0]):self._n_queued]))

    def _pickled(self, state: dict) -> dict:
        for name in _NOT_PICKLED:
            state.pop(name, None)
        return state
