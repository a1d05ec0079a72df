"""Single calls of the Jumper objects from Python: a queue, one memory, one kernel call.

``learn_one`` checks its step with a few comparisons of Python values and
queues it in a preallocated array; the queue is applied, in order, by the
same kernels as ``learn_many`` before anything reads the state (every public
attribute is a property that applies it first, and so are the predictions,
``run``, ``learn_many`` and pickling).  So every value is the one
``learn_many`` gives on the same steps, bit for bit, while a step costs a few
Python operations.

For the quadratic and cubic families the whole object (queue, state, rates,
parameters and scratch) lives in one float64 array, laid out by
:func:`~venncal._kernels.jumper_calls.calls_layout`, and one call of
:func:`~venncal._kernels.jumper_calls.jumper_calls` applies the queue and
forecasts (``predict_proba_one``): numba's cost of a call grows with the
number of arrays it unboxes (about 0.1 µs each).  Cox's families and unions of
the paper's families (``quadratic() + cubic() + cox()``, the monitor's
default) do the same through
:func:`~venncal._kernels.jumper_union.union_calls`, whose memory
(:func:`~venncal._kernels.jumper_union.union_layout`) also holds the union's
description: the functions of the batch path, so the values are those of
``learn_many`` and ``predict_proba_many``, bit for bit.  A family with a
user's functions (alone or in a union) is not queued: its functions run in
Python and could fail, and the error belongs to the call that gave the step.
"""

from __future__ import annotations

import numbers
from functools import partial

import numpy as np

from .._kernels.jumper import (
    _NEAR_ONE,
    FAMILY_KINDS,
    _compensated_add,
    _rate_weights,
    forget,
)
from .._kernels.jumper_calls import (
    CTL_GAMMA,
    CTL_LAST,
    CTL_LOW,
    CTL_NEW,
    CTL_OUT,
    CTL_TOP,
    calls_layout,
    jumper_calls,
)
from .._kernels.jumper_forget import coded_growth, forget_step, growth_near_one
from .._kernels.jumper_union import union_calls, union_layout
from .._validation import check_probabilities, check_scores
from ._base import unit_weight
from ._composite import describe
from ._state import compiled_entry

__all__ = ["ONE", "QUEUE", "SingleCalls", "check_step_weight", "kept_rows"]

#: Steps queued at most before they are applied.
QUEUE = 256
#: The default ``sample_weight`` of ``learn_one`` (tested by identity first).
ONE = 1.0
_FAST_P = frozenset((float, int, np.float64))
_FAST_Y = frozenset((bool, int, float, str, np.bool_, np.int64, np.float64, np.str_))
_VIEWS = ("_weights", "_log_cap", "_log_err", "_queue_p", "_queue_y", "_call", "_args", "_mv",
          "_fast", "_label_of")


#: The single-call paths: the quadratic and cubic families (their kind codes),
#: Cox's families and unions of the paper's families (``_COMPOSITE``), and
#: families with a user's functions (``_PYTHON``: not queued).
_COMPOSITE, _PYTHON = 2, -1


def _compiled(fam) -> tuple[np.ndarray, np.ndarray] | None:
    """``(desc, params)`` of Cox's family or a union of the paper's families; None otherwise."""
    if fam.kind in ("cox", "cox2"):
        return describe([fam])
    members = getattr(fam, "members", None)
    return describe(members) if fam.kind == "union" and members else None


def _path(fam) -> int:
    kind = FAMILY_KINDS.get(fam.kind, _PYTHON)
    if kind in (0, 1):
        return kind
    return _COMPOSITE if _compiled(fam) is not None else _PYTHON


#: The refusal of a weight other than 0 and 1.
_WEIGHT = ("sample_weight must be 0 (drop the row) or 1 for a Jumper, whose steps are bets that "
           "cannot be weighted; got ")


def kept_rows(sample_weight, n: int) -> np.ndarray | None:
    """Return the rows that count (weight 1) as a boolean mask, or None for all of them.

    A Jumper's step is one bet, which cannot be split or repeated without changing the
    stream: the frequency weights it takes are 1 (the step) and 0 (the row is dropped).
    """
    if sample_weight is None:
        return None
    w = check_scores(sample_weight, name="sample_weight")
    if w.shape[0] != n:
        raise ValueError(f"sample_weight has length {w.shape[0]}, but there are {n} forecasts")
    bad = (w != 0.0) & (w != 1.0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{_WEIGHT}{float(w[i])!r} at index {i}")
    return None if (w == 1.0).all() else w == 1.0


def check_step_weight(value) -> None:
    """Refuse a ``learn_one`` weight that is no number (None read as NaN, "1" as 1): no change."""
    if not isinstance(value, (numbers.Real, np.bool_)):  # (np.True_ is 1, as True is)
        raise ValueError(f"{_WEIGHT}{value!r}")


class SingleCalls:
    """The queue and memory of a Jumper object (mixed into ``_Jumper``).

    The host sets ``family_``, ``_rates``, ``clip``, ``classes_``,
    ``_n_seen``, ``_log10`` (a property here: ``log10 S`` lives in the
    memory, where the kernels write it) and ``_records`` and implements
    ``_advance``.
    """

    def _new_memory(self) -> None:
        """A fresh memory: uniform weights, ``log S = 0``, an empty queue."""
        self._kind = _path(self.family_)
        self._queue = QUEUE if self._kind != _PYTHON else 0
        self._mem = np.zeros(self._layout()[-1])
        self._views()
        self._weights[:] = 1.0 / len(self.family_)
        off = self._off
        self._mem[off[4]:off[5]] = self._rates
        if self._kind == _COMPOSITE:
            desc, params = _compiled(self.family_)
            self._mem[off[5]:off[6]] = params.ravel()
            self._mem[off[6]:off[7]] = desc
        elif self._kind >= 0:
            self._mem[off[5]:off[6]] = self.family_.params.ravel()
        self._mem[self._ctl + CTL_GAMMA] = self._gamma
        self._n_queued = 0
        self._labels()

    def _layout(self) -> tuple:
        K, R = len(self.family_), self._rates.shape[0]
        if self._kind == _COMPOSITE:
            return union_layout(self._queue, K, R, self._members())
        m = self.family_.params.shape[1] if self._kind >= 0 else 0
        return calls_layout(self._queue, K, R, m)

    def _members(self) -> int:
        return len(getattr(self.family_, "members", (self.family_,)))

    def _views(self) -> None:
        """The state's arrays as views of the memory."""
        self._off = off = self._layout()
        K, R, Q = len(self.family_), self._rates.shape[0], self._queue
        self._weights = self._mem[off[1]:off[2]].reshape(R, K)
        self._log_cap, self._log_err = self._mem[off[2]:off[3]], self._mem[off[3]:off[4]]
        self._queue_p, self._queue_y = self._mem[:Q], self._mem[Q:2 * Q]
        self._ctl = off[0]
        self._call = None
        self._fast = None
        # The hot paths read and write single numbers through a memoryview of the
        # memory: the same float64 bits, at half the cost of indexing the array.
        self._mv = memoryview(self._mem)
        if self._kind == _COMPOSITE:
            self._args = (self._mem, K, R, self._members(), Q)
            return
        m = self.family_.params.shape[1] if self._kind >= 0 else 0
        self._args = (self._mem, self._kind, K, R, m, Q)

    def _labels(self) -> None:
        """Cache the labels as Python values (``learn_one`` compares ``y`` with them)."""
        self._keys = self._class_keys()
        self._known = self._keys if self.classes_ is not None and self._queue else None
        # learn_one's label: one dict lookup for the comparisons ``y == positive``, then
        # ``y == negative`` (the positive written last wins, as its test comes first; the
        # types of _FAST_Y hash as they compare; a NaN label, equal to nothing, is left out).
        # A label the lookup misses takes _queued's comparisons; unhashable labels, always.
        try:
            self._label_of = None if self._known is None else {
                key: value for key, value in ((self._keys[0], 0.0), (self._keys[1], 1.0))
                if key == key}
        except TypeError:
            self._label_of = None
        self._fast = None

    def _new_top(self) -> None:
        self._mem[self._ctl + CTL_TOP] = self._records.top

    # -- the queue ------------------------------------------------------------------

    def learn_one(self, p: float, y, sample_weight=ONE) -> None:
        """Process one step of the stream: the base forecast ``p`` and the label ``y``.

        ``sample_weight`` is 1 (the step) or 0 (nothing is learned).  The step
        is queued and applied, in order, before anything reads the state
        (every attribute, prediction and method does): the values are those of
        ``learn_many`` on the same steps, bit for bit.
        """
        # The checks of _queued, inlined for a float (a Python call is a good part of a
        # step's cost); other numbers take _queued itself, through _learn_checked.
        labels = self._label_of
        if (labels is not None and type(p) is float and sample_weight is ONE
                and type(y) in _FAST_Y and 0.0 <= p <= 1.0):
            label = labels.get(y)
            if label is not None:
                clip = self.clip
                q = p if clip is None else min(max(p, clip[0]), clip[1])  # np.clip, bit for bit
                if q != 1.0 - label:  # not p = 0 with a positive label, nor 1 with a negative
                    n, mv = self._n_queued, self._mv
                    mv[n] = q
                    mv[self._queue + n] = label
                    self._n_queued = n = n + 1
                    if n == self._queue:
                        self._flush()
                    return
        self._learn_checked(p, y, sample_weight)

    def _queued(self, p, y, sample_weight) -> bool:
        """Queue the step if it needs no other check than these; return whether it was."""
        known = self._known
        if (known is None or type(p) not in _FAST_P or type(y) not in _FAST_Y
                or not (sample_weight is ONE or unit_weight(sample_weight))
                or (type(p) is int and not 0 <= p <= 1)):  # (10**400: the checked path says)
            return False
        q = float(p)
        if not 0.0 <= q <= 1.0:
            return False
        if self.clip is not None:
            q = min(max(q, self.clip[0]), self.clip[1])  # np.clip, bit for bit
        if y == known[1]:
            if q == 0.0:
                return False
            label = 1.0
        elif y == known[0] and q != 1.0:
            label = 0.0
        else:
            return False
        n = self._n_queued
        self._queue_p[n] = q
        self._queue_y[n] = label
        self._n_queued = n + 1
        if n + 1 == self._queue:
            self._flush()
        return True

    def _flush(self) -> None:
        """Apply the queued steps, in order, as one ``learn_many`` would."""
        n = self._n_queued
        if not n:
            return
        self._called(n, -1.0)

    def _called(self, n: int, x: float) -> float:
        """Apply ``n`` queued steps and forecast at ``x`` (``x < 0``: no forecast), in one call."""
        if self._call is None:
            kernel = union_calls if self._kind == _COMPOSITE else jumper_calls
            self._call = compiled_entry(kernel, *self._args, 0, -1.0)
        proba = self._call(*self._args, n, x)
        if n:
            self._applied(n)
        if proba == -2.0:  # a new record: the forecast is in CTL_OUT
            proba = self._mv[self._ctl + CTL_OUT]
        return proba

    def _applied(self, n: int) -> None:
        """The bookkeeping after the kernel applied ``n`` queued steps: counts and records.

        (``log10 S`` is in the memory already: :attr:`_log10`.)
        """
        self._n_queued = 0
        self._n_seen += n
        if self._mv[self._ctl + CTL_NEW]:
            self._applied_records(n)

    @property
    def _log10(self) -> float:
        """``log10 S`` after the last step applied, kept in the memory's ``CTL_LAST``.

        The single-call kernels write it there; so does every other path
        (through this property), so a forecast from Python need not copy it out.
        """
        return self._mv[self._ctl + CTL_LAST]

    @_log10.setter
    def _log10(self, value: float) -> None:
        self._mem[self._ctl + CTL_LAST] = value

    def _applied_records(self, n: int) -> None:
        """Record the ``n`` steps just applied (one of them is a new largest ``log10 S``)."""
        self._records.add(self._n_seen - n + 1, self._mem[2 * self._queue:2 * self._queue + n])
        self._new_top()

    def _fast_calls(self) -> tuple:
        """What :meth:`predict_proba_one` reads, in one tuple (one attribute read a call).

        The compiled function with the memory and sizes bound (``call(n, x)``),
        the memoryview, the control slots ``CTL_OUT`` and ``CTL_LOW``, and the
        two labels.  Made again after ``_views`` and ``_labels`` (which set it
        to None).
        """
        if self._call is None:
            self._called(0, -1.0)  # finds the compiled function (nothing applied, no forecast)
        ctl = self._ctl
        negative, positive = self._keys
        self._fast = fast = (partial(self._call, *self._args), self._mv, ctl + CTL_OUT,
                             ctl + CTL_LOW, negative, positive)
        return fast

    def predict_proba_one(self, p) -> dict:
        """Return ``{classes_[0]: 1 - p', classes_[1]: p'}`` at the base forecast ``p`` (no learning)."""
        # The queue and the forecast in one kernel call (the checks of the batch path
        # are needed only where these fail).  A float in [0, 1] without clip first:
        fast = self._fast
        if fast is not None and type(p) is float and 0.0 <= p <= 1.0 and self.clip is None:
            call, mv, out, low, negative, positive = fast
            n = self._n_queued
            proba = call(n, p)
            if n:  # _applied, inlined (log10 S is in the memory: _log10)
                self._n_queued = 0
                self._n_seen += n
                if proba < 0.0:  # -2.0: a step set a new record; the forecast is in CTL_OUT
                    self._applied_records(n)
                    proba = mv[out]
            return {negative: mv[low], positive: proba}  # the negative class formed directly
        if self._queue and type(p) in _FAST_P and not (type(p) is int and not 0 <= p <= 1):
            q = p if type(p) is float else float(p)
            if 0.0 <= q <= 1.0:
                clip = self.clip
                if clip is not None:
                    q = min(max(q, clip[0]), clip[1])
                call, mv, out, low, negative, positive = fast or self._fast_calls()
                n = self._n_queued
                proba = call(n, q)
                if n:
                    self._applied(n)
                if proba < 0.0:  # -2.0: a new record; the forecast is in CTL_OUT
                    proba = mv[out]
                return {negative: mv[low], positive: proba}
        return super().predict_proba_one(p)

    # -- what reads the state applies the queue first --------------------------------

    @property
    def weights_(self) -> np.ndarray:
        """How the capital is spread over the family, per rate: shape ``(R, K)``."""
        self._flush()
        return self._weights

    @property
    def n_seen_(self) -> int:
        """Steps seen since the last :meth:`reset`."""
        return self._n_seen + self._n_queued

    def __getstate__(self) -> dict:
        self._flush()
        state = self.__dict__.copy()
        for name in _VIEWS:
            del state[name]
        return state

    def __setstate__(self, state: dict) -> None:
        state.setdefault("half_life", None)  # pickled before forgetting
        state.setdefault("_gamma", 1.0)
        log10 = state.pop("_log10", None)  # pickled while log10 S was an attribute
        self._restore(state)
        if log10 is not None and self._log10 != log10:
            if not self._mem.flags.writeable:  # (a read-only memmap: a copy to write into)
                self._mem = np.array(self._mem)
                self._views()
            self._log10 = log10
        self._labels()  # learn_one's lookup of the labels (not pickled)

    def _restore(self, state: dict) -> None:
        """:meth:`__setstate__` of the memory and everything but ``log10 S`` and the labels."""
        if "_mem" not in state:  # pickled before the single calls: separate arrays
            weights, cap, err = state.pop("weights_"), state.pop("_log_cap"), state.pop("_log_err")
            self.__dict__.update(state, _n_seen=state.pop("n_seen_"))
            self._new_memory()
            self._weights[:], self._log_cap[:], self._log_err[:] = weights, cap, err
            self._new_top()
            return
        self.__dict__.update(state)
        if self._kind != _path(self.family_):  # pickled when the steps of Cox's families and
            self._kind = _path(self.family_)   # unions went through learn_many: a new memory
            R, K = self._rates.shape[0], len(self.family_)
            old = calls_layout(self._queue, K, R, 0)
            state = self._mem[old[1]:old[4]].copy()
            self._new_memory()
            self._mem[self._off[1]:self._off[4]] = state
            self._new_top()
            return
        total = self._layout()[-1]
        if self._mem.shape[0] < total:  # pickled before the rates' scratch rows (at the end)
            self._mem = np.concatenate([self._mem, np.zeros(total - self._mem.shape[0])])
        self._views()
        if self._mem[self._ctl + CTL_GAMMA] != self._gamma:  # pickled before forgetting: 0.0
            self._mem = np.array(self._mem)  # (a read-only memmap is left as it is otherwise)
            self._views()
            self._mem[self._ctl + CTL_GAMMA] = self._gamma

    # -- delayed labels (venncal.online.Pending) -------------------------------------

    def _forecast_snapshot(self, p) -> np.ndarray:
        """Each rate's weights over the family now, mixed, shape ``(R, K)``: a delayed label's bets.

        They are the weights rate ``r`` forecasts with at ``p`` (Algorithm 2's
        line 5), so its forecast is ``p'_r = sum_k w_k f_k(p) / sum_k w_k``
        and its bet on a label ``y`` is ``B_{p'_r}(y) / B_p(y) = sum_k w_k
        rho_k(y) / sum_k w_k``, the family's likelihood ratios mixed: exact
        where ``1 - p'_r`` or a subnormal ``p'_r`` is not (attack 21 F1).
        """
        self._flush()
        q = check_probabilities(np.atleast_1d(p), name="p")
        if q.shape[0] != 1:
            raise ValueError(f"p must be one base forecast; got {q.shape[0]}")
        K = len(self.family_)
        out = np.empty((self._rates.shape[0], K))
        for r in range(out.shape[0]):  # the kernel's arithmetic: stay * w + jump
            out[r] = (1.0 - self._rates[r]) * self._weights[r] + self._rates[r] / K
        return out

    def _bet(self, r: int, wm: np.ndarray, t: np.ndarray, ls: float) -> None:
        """Multiply rate ``r``'s capital by ``sum_k wm_k t_k / sum_k wm_k * exp(ls)``, in the
        kernel's arithmetic (``jumper.advance_into``, Algorithm 1's lines 5-6)."""
        tot = g = 0.0
        least = 1.0
        for k in range(wm.shape[0]):
            tot += wm[k]
            g += max(wm[k] * t[k, 0], 0.0)
            least = min(least, t[k, 0])
        if least < 0.0:  # ratios below 2**-1022, coded as their logs
            g += coded_growth(wm, t, 0)
        if not g > 0.0:
            self._log_cap[r], self._log_err[r] = -np.inf, 0.0
            return
        log_growth = float(np.log(g / tot))
        if abs(log_growth + ls) <= _NEAR_ONE:  # S barely moves: every bit counts
            log_growth = float(np.log(growth_near_one(wm, t, 0)))
        hi, lo = _compensated_add(self._log_cap[r], self._log_err[r], log_growth)
        self._log_cap[r], self._log_err[r] = _compensated_add(hi, lo, ls)

    def _learn_delayed(self, p, y, bets: np.ndarray) -> None:
        """Learn ``(p, y)`` betting with ``bets``, each rate's mixed weights when it forecast ``p``.

        Rate ``r``'s capital is multiplied by ``B_{p'_r}(y) / B_p(y)`` (in
        logs), from the family's likelihood ratios at ``(p, y)`` mixed by the
        weights of :meth:`_forecast_snapshot`, in the batch kernel's arithmetic
        (a label learned before the next forecast gives ``learn_one``'s values
        to rounding); its weights over the family take the step as
        ``learn_one`` does (mixed, then multiplied by the likelihood ratios).
        """
        self._flush()
        q, y01, classes = self._inputs([p], [y])
        table = self.family_.table(q)
        t, ls = self.family_._scaled_ratios(q, y01, table)
        K = len(self.family_)
        for r in range(self._rates.shape[0]):
            self._bet(r, bets[r], t, float(ls[0]))
            w = self._weights[r]
            w[:] = (1.0 - self._rates[r]) * w + self._rates[r] / K
            g, least = 0.0, 1.0
            for k in range(K):  # the kernel's order of operations, bit for bit
                prod = w[k] * t[k, 0]
                g += max(prod, 0.0)
                least = min(least, prod if t[k, 0] != 0.0 else 1.0)
            ratios = np.where(t[:, 0] < 0.0, np.exp(np.minimum(t[:, 0], 0.0)), t[:, 0])
            for k in np.flatnonzero(t[:, 0] < 0.0):  # ratios below 2**-1022, coded as logs
                g += w[k] * ratios[k]
            if g > 0.0 and self._gamma != 1.0 and least < 2.0**-1022:
                forget_step(w, t, 0, self._gamma)  # line 7 and forgetting, from the logs
                continue
            if g >= 2.0**-1000:
                w[:] = w * ratios * (1.0 / g)
            elif g > 0.0:
                w[:] = w * ratios / g
            if self._gamma != 1.0:
                forget(w, self._gamma)
        log10 = np.array([(_rate_weights(self._log_cap, self._log_err, np.empty_like(self._rates))
                           - np.log(self._rates.shape[0])) / np.log(10.0)])
        if self.classes_ is None:
            self.classes_ = classes
            self._labels()
        self._records.add(self._n_seen + 1, log10)
        self._new_top()
        self._n_seen += 1
        self._log10 = float(log10[0])
