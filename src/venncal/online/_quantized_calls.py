"""Single calls of :class:`~venncal.online.QuantizedIsotonic` from Python: a queue of inserts.

``insert`` and ``learn_one`` of an observation the dense tree takes (target
0 or 1, a whole weight, no window) check it with a few comparisons of Python
values, apply the weight bound of the batch path, and queue it in a
preallocated array.  The queue is applied, in order, by the dense tree's own
insert (:func:`~venncal._kernels.quantized_dense.dense_calls`, which is
:func:`~venncal._kernels.quantized_dense.dense_learn` without a window, the
tree grown where it gets full exactly as there) before anything reads the
map, and in the same kernel call as the operation that reads it: a level
(``predict_one``, ``predict_proba_one``) or a delete.  So the map is the one
``learn_many`` gives on the same observations, bit for bit, after every call.
Everything else (the tree of groups, windows, other targets and weights)
applies the queue first and then takes the batch path.
"""

from __future__ import annotations

import numpy as np

from .._kernels.exact import BOUND
from .._kernels.quantized_dense import dense_calls
from ._state import compiled_entry

__all__ = ["ONE", "QueuedInserts"]

QUEUE = 256
#: The default ``sample_weight`` of ``insert`` and ``learn_one`` (tested by identity first).
ONE = 1.0
_FAST = frozenset((float, int, np.float64, np.int64))
_FAST_Y = frozenset((float, int, bool, np.float64, np.int64, np.bool_))
_NOT_PICKLED = ("_queue", "_queue_s", "_queue_t", "_queue_w", "_n_queued", "_queued_total",
                "_call")


class QueuedInserts:
    """The queue of a quantized stream (mixed into :class:`~venncal.online.QuantizedIsotonic`).

    The host keeps ``_dense``, ``window``, ``_tree``, ``_fractions``,
    ``levels_``, ``_held``, ``_scale`` and ``_steps``, and implements
    ``_grow`` and ``_dense_room``.
    """

    def _new_queue(self) -> None:
        self._queue = np.zeros((4, QUEUE))
        self._queue_s, self._queue_t, self._queue_w = self._queue[0], self._queue[1], self._queue[2]
        self._n_queued = 0
        self._queued_total = 0.0
        self._call = None

    def _queued(self, score, y, sample_weight) -> bool:
        """Queue ``(score, y, sample_weight)`` if the dense tree takes it unchecked; return whether it was."""
        if not self._dense or self.window is not None or type(score) not in _FAST \
                or type(y) not in _FAST_Y:
            return False
        s = float(score) + 0.0  # -0.0 becomes 0.0, as in _real
        t = float(y)
        if s - s != 0.0 or (t != 0.0 and t != 1.0):  # not finite, or not a label
            return False
        if sample_weight is ONE:
            w = 1.0
        elif type(sample_weight) in _FAST and sample_weight > 0:
            w = float(sample_weight)
            if not w.is_integer():
                return False
        else:
            return False
        n = self._n_queued
        held = self._held + w  # the weight bound of _check_bound (|t| <= 1 <= scale)
        total = self._queued_total + w  # and _fits_dense's, the queue counted
        if not held * self._scale <= BOUND:
            return False
        # In the dense tree every weight is whole and their sum is below 2**53, so
        # ``_held`` is the tree's total plus the queue's, exactly: within the bound
        # it settles the check; beyond it, the tree's own total does.
        if not self._dense_room(held, total):
            return False
        self._held = held
        self._queued_total = total
        self._queue_s[n] = s
        self._queue_t[n] = t
        self._queue_w[n] = w
        self._n_queued = n + 1
        self._steps = None
        if n + 1 == QUEUE:
            self._flush()
        return True

    def _dense_call(self, op: int, s: float = 0.0, y: float = 0.0, w: float = 0.0) -> float:
        """Apply the queue and do ``op`` (0: level at ``s``, 1: delete, 2: nothing) in one call."""
        if self._call is None:
            self._call = compiled_entry(dense_calls, *self._tree, self._queue, 0,
                                        *self._fractions, self.levels_, 2, 0.0, 0.0, 0.0)
        n = self._n_queued
        while True:
            r = self._call(*self._tree, self._queue, n, *self._fractions, self.levels_, op, s, y, w)
            if r == r or not self._queue[3, 1]:
                break
            self._queue[3, 1] = 0.0
            self._grow()  # full at queue[3, 0]: grown as dense_learn's caller grows it
        self._n_queued = 0
        self._queued_total = 0.0
        return r

    def _flush(self) -> None:
        """Apply the queued inserts, in order."""
        if self._n_queued:
            self._dense_call(2)

    def _pickled(self, state: dict) -> dict:
        for name in _NOT_PICKLED:
            state.pop(name, None)
        return state
