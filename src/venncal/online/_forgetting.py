"""Exponential forgetting for :class:`~venncal.online.QuantizedIsotonic` (``half_life=``).

Observation ``i`` (the ``t_i``-th learned of positive weight: a zero weight
drops its row, as everywhere in the online contract) of weight ``w_i`` weighs ``w_i * 2**(-(T - t_i) / h)``
after ``T`` observations.  Decaying every stored weight at every step would
cost O(n); instead the newest observations are inserted *heavier*: the
``t``-th with weight ``w * 2**e(t)``, ``e(t) = (t - base) / h - c``, which is
proportional to the decayed weight (one factor ``2**e(T)`` for all, and
multiplying every weight by one positive factor does not change the map; the
``w`` here and below are the relative weights ``u``, see *leaves*).
The trees keep these weights exactly.  When ``e`` passes :data:`RESCALE`,
every stored weight is multiplied by ``2**-k`` (``k = floor(e) - 1``): a power
of two, exact for a normal float, and the stored weights are always at least
twice the decayed ones (``e >= 1`` after a rescale), so none is subnormal
while it is held (the observations that leave at the rescale's step leave
before it).  The trees are rebuilt from the held observations then
(O(n log n) every ``RESCALE * h`` observations).  As stored weights are up
to ``2**RESCALE`` times the decayed ones, the bound on the weights held
(their exact sums stay below ``2**1000``) applies to them as stored: a
learn that would pass it is refused, and changes nothing.

Weights are taken *relative* to the largest weight held, by its
power of two: ``u_i = w_i * 2**shift`` with ``shift = 1 - top`` and ``top``
that weight's binary exponent (lowered, by :meth:`Decay._lower_top`, when
the last observation of its power of two leaves; a ``learn_many`` call takes
its weights relative to its largest so far) (so the largest ``u`` is in ``[1, 2)``, and
multiplying every weight by a power of two changes nothing at all, by any
other factor at most when each observation leaves, by under ``h`` steps).
An observation *leaves* (is deleted exactly, weight and score) at the first
step ``T`` at which its decayed relative weight ``u_i * 2.0**(-(T - t_i) / h)``
(this float expression) is below ``2**-1022``, the smallest normal float: it
never lingers as subnormal residue; for a weight equal to the largest, after
about ``1022 h`` steps, whatever its scale.  When a larger power of two
comes, every ``u`` held is divided by the same power of two (exactly) and the
trees are rebuilt (at most once per power of two passed); a weight that
would make a held observation leave at once is refused, with nothing
changed.  A weight below ``2**-1022`` times the largest's power of two
(it would leave at once) is refused, with nothing changed.  A stream pickled
before the relative weights keeps ``shift = 0`` (its weights as given).

Tolerance: the stored weights are the decayed ones times one common factor
up to a few roundings (each a relative ``2**-53``, plus ``RESCALE * 2**-53``
in the exponent per rescale within an observation's life), so the map is the
exact fit of weights within a relative ``1e-13`` of ``w_i 2**(-(T - t_i)/h)``.
An isotonic value moves by at most twice that (times the largest
``|target - value|``): the level at each score held equals that of a batch
fit with the literal weights, except where that fit's isotonic value lies
within ``1e-12`` of a midpoint between two levels (targets in [0, 1]).
"""

from __future__ import annotations

import copy
import heapq
import math
import numbers

import numpy as np

from .._kernels.exact import BOUND
from ._quantized_map import WeightBoundError

__all__ = ["Decay", "check_half_life"]

#: Rescale the stored weights when the newest would weigh more than 2**RESCALE times its decayed weight.
RESCALE = 256
TINY = 2.0**-1022  # the smallest normal float


def check_half_life(half_life, window) -> float | None:
    """Return ``half_life`` as a float (None stays None), or raise a clear ValueError."""
    if half_life is None:
        return None
    if isinstance(half_life, bool) or not isinstance(half_life, numbers.Real) \
            or not math.isfinite(half_life) or half_life <= 0:
        raise ValueError(f"half_life must be a positive finite number of observations or None; "
                         f"got {half_life!r}")
    if not 2.0**-40 <= half_life <= 2.0**50:  # (attack 44 F6: 1e25 hung, 5e-324 overflowed)
        raise ValueError(
            f"half_life must lie between 2**-40 and 2**50 observations; got {half_life!r}: "
            + ("from 1/1100 down every observation leaves at the next step, as at 2**-40"
               if half_life < 1 else
               "past 2**50 a weight would take more steps than float64 counts exactly to "
               "leave (past 2**53 its decay per step rounds to 1): pass None for no forgetting"))
    if window is not None:
        raise ValueError("half_life and window cannot be combined: a window keeps the last "
                         "observations at full weight, a half-life decays them all; choose one")
    return float(half_life)


def _room(host, y: np.ndarray, w: np.ndarray) -> bool:
    """Whether ``host`` can take weights ``w`` however heavy they are stored (``2**RESCALE`` times):
    then no stored weight overflows and no part of the learn is refused."""
    if w.shape[0] == 1:  # one learn_one call: no array operations
        total, scale = float(w[0]), max(host._scale, abs(float(y[0])))
    else:
        total = float(np.sum(w * 2.0**-64)) * 2.0**64  # no sum of these overflows
        scale = max(host._scale, float(np.max(np.abs(y))))
    return (host._held + total * 2.0**RESCALE) * scale <= BOUND  # Python floats: inf, no error


def last_step(w: float, t: int, h: float) -> int:
    """The last step ``T >= t`` at which ``w * 2.0**(-(T - t) / h) >= 2**-1022`` (``w >= 2**-1022``)."""
    a = max(int(h * (math.log2(w) + 1022.0)), 0)
    while a > 0 and w * 2.0 ** (-a / h) < TINY:
        a -= 1
    while w * 2.0 ** (-(a + 1) / h) >= TINY:
        a += 1
    return t + a


class Decay:
    """The forgetting state of one stream: the step, the exponent's origin and the held observations.

    ``held`` is a heap of ``[last step, t, score, target, stored weight, u]``:
    the observations present, the first to leave on top; ``u = w 2**shift``
    is the weight relative to the largest weight's power of two (``2**-shift``,
    ``top`` its exponent).  An object pickled before the relative weights
    (``relative`` False) keeps ``shift = 0``: weights as given.
    """

    relative, top, shift = False, None, 0  # (pickled before the relative weights)
    lower_due = False  # an observation of top's power of two left: see _settle

    def __init__(self, half_life: float):
        self.h = half_life
        self.T = 0  # observations learned
        self.base, self.c = 0, 0.0  # e(t) = (t - base) / h - c
        self.held: list = []
        self.relative = True

    def exponent(self, t):
        return (t - self.base) / self.h - self.c

    def learn(self, host, s: np.ndarray, y: np.ndarray, w: np.ndarray) -> None:
        """Learn rows ``(s, y, w)`` in order: one step each; the leaving ones deleted exactly.

        All or nothing: a learn refused (weights whose exact sums could
        overflow) leaves ``host`` as it was.  Only a learn that rescales
        with weights too heavy for a cheap bound (times ``2**RESCALE``) can
        fail after a change; ``host`` is copied first then.
        """
        if not np.all(w > 0):  # a zero weight drops its row: no step
            s, y, w = s[w > 0], y[w > 0], w[w > 0]
        if s.shape[0] == 0:
            return
        if self.relative:
            self._learn_relative(host, s, y, w)
            return
        small = w < TINY
        if np.any(small):
            raise ValueError(
                f"sample_weight {float(w[small][0])!r} is below 2**-1022 (subnormal): with "
                "half_life every weight held must stay a normal float; multiply every weight "
                "by one positive factor (the map does not change)")
        self._learn_scaled(host, s, y, w)

    def _learn_relative(self, host, s, y, w) -> None:
        """Learn rows of positive weight, each relative to the largest weight's power of two so far.

        The rows are taken in runs of one largest power of two; where it
        rises, every weight held is brought to the new one first
        (:meth:`_raise_top`).  A weight below ``2**-1022`` times it would
        leave at once: refused, with nothing changed.
        """
        if w.shape[0] == 1 and self.top is not None:  # one learn_one call: no array operations
            x = float(w[0])
            if math.frexp(x)[1] <= self.top:  # (then u <= 2: no overflow)
                u = math.ldexp(x, self.shift)
                if u >= TINY:
                    self._learn_scaled(host, s, y, np.array([u]))
                    self._settle(host)
                    return
        E = np.frexp(w)[1]
        tops = np.maximum.accumulate(E) if self.top is None else \
            np.maximum.accumulate(np.maximum(E, self.top))
        small = np.ldexp(w, 1 - tops) < TINY
        if np.any(small):
            i = int(np.flatnonzero(small)[0])
            raise ValueError(
                f"sample_weight {float(w[i])!r} is below 2**-1022 times the largest weight "
                f"held ({math.ldexp(1.0, int(tops[i]) - 1):.3g} or more): with "
                "half_life it would be forgotten at once; the weights of one stream must lie "
                "within a factor of 2**1022 of each other")
        # a larger power of two could refuse the learn after a change (_raise_top), also after
        # the top is lowered within the call: all or nothing, as the rest of the learn (rare)
        m = s.shape[0]
        until = self._top_until()
        raised = self.top is not None and int(tops[-1]) > self.top
        saved = copy.deepcopy(host) if raised or m > 1 and (
            self.top is None or until < self.T + m) else None
        try:
            i = 0
            while i < m:  # runs of one top; a row above it raises it first (as learn_one)
                if self.top is None:
                    self.top, self.shift = int(E[i]), 1 - int(E[i])
                elif E[i] > self.top:
                    self._raise_top(host, int(E[i]), float(w[i]))
                above = np.flatnonzero(E[i:] > self.top)
                b = i + int(above[0]) if above.size else m
                j = self._segment_end(w, i, b)  # where the top may be lowered (_settle)
                self._learn_scaled(host, s[i:j], y[i:j], np.ldexp(w[i:j], self.shift))
                self._settle(host)
                i = j
        except ValueError:
            if saved is not None:
                host.__dict__.update(saved.__dict__)
            raise

    def _raise_top(self, host, top: int, weight: float) -> None:
        """Bring every weight held to the larger power of two ``2**(top - 1)`` (exactly).

        Each held ``u`` and stored weight is multiplied by ``2**-k``, and the
        trees are rebuilt (O(n log n), at most once per power of two that
        the largest weight passes).  An observation that would then leave at
        once (below ``2**-1022`` of the new weight, decayed) is refused: the
        new ``weight`` raises a ``ValueError`` naming it, and the caller
        restores what was learned before.
        """
        k = top - self.top
        kept = []
        for last, t, gs, gy, gw, u in self.held:
            v = math.ldexp(u, -k)
            new_last = last_step(v, t, self.h) if v >= TINY else -1
            if new_last < self.T + 1 <= last:  # it would have stayed: it would be evicted
                raise ValueError(
                    f"sample_weight {weight!r} is more than 2**1022 times the decayed weight "
                    f"of an observation held (score {gs!r}, weight {math.ldexp(u, -self.shift)!r}"
                    f", learned {self.T + 1 - t} steps before): with half_life that observation "
                    "would be forgotten at once; the weights of one stream, decayed, must lie "
                    "within a factor of 2**1022 of each other; nothing was learned")
            if new_last >= self.T:
                kept.append([new_last, t, gs, gy, math.ldexp(gw, -k), v])
        self.top, self.shift = top, self.shift - k
        self._rebuild(host, kept)

    def _lower_top(self, host) -> None:
        """Hold the weights relative to the largest *held*, once none held is of ``top``'s power
        of two: each ``u`` and stored weight multiplied by ``2**k`` (exact: the largest stays
        below 2), their last steps moved later, the trees rebuilt.

        Without it a weight long gone would shorten every later life and refuse light weights
        for good (attack 42 F4: one weight of 1e300, then weights of 1 forgotten after 26 h
        steps, not 1022 h, and 1e-9 refused, after the 1e300 had left).
        """
        if not self.held:
            self.top, self.shift = None, 0  # the next weight sets them
            return
        k = 1 - math.frexp(max(row[5] for row in self.held))[1]
        if k <= 0:
            return
        self.top, self.shift = self.top - k, self.shift + k
        self._rebuild(host, [[last_step(math.ldexp(u, k), t, self.h), t, gs, gy,
                              math.ldexp(gw, k), math.ldexp(u, k)]
                             for _, t, gs, gy, gw, u in self.held])

    def _rebuild(self, host, rows: list) -> None:
        heapq.heapify(rows)
        self.held = rows
        host._clear_trees()
        if rows:
            a = np.array([row[2:5] for row in rows])
            host._learn_now(a[:, 0], a[:, 1], a[:, 2])

    def _settle(self, host) -> None:
        """After a learn (or a segment of one): lower ``top`` if an observation of its power of
        two left and none is held now (most rows are lighter, or another of that power is found
        at once).  Done between learns, not inside one, so that every weight of a learn is
        taken relative to one top."""
        if self.lower_due:
            self.lower_due = False
            if not any(r[5] >= 1.0 for r in self.held):
                self._lower_top(host)

    def _top_until(self) -> int:
        """The last step of the observations held of ``top``'s power of two (``u >= 1``), or -1."""
        return max((r[0] for r in self.held if r[5] >= 1.0), default=-1)

    def _segment_end(self, w, i: int, b: int) -> int:
        """The end of the rows ``w[i:b]`` to learn before :meth:`_settle`: after the first row at
        whose step every observation of top's power of two (held, or learned before it) has
        left, so that the rows after it are taken relative to the lowered top."""
        if b - i == 1:
            return b
        until = self._top_until()
        u = np.ldexp(w[i:b], self.shift)
        for k in range(b - i):
            t = self.T + 1 + k
            if t > until:
                return i + k + 1
            if u[k] >= 1.0:
                until = max(until, last_step(float(u[k]), t, self.h))
        return b

    def _learn_scaled(self, host, s, y, w) -> None:
        """Learn rows of weights ``w`` (relative ones with ``relative``), the leaving ones deleted."""
        if _room(host, y, w):
            self._learn(host, s, y, w)
            return
        saved = copy.deepcopy(host) if self.exponent(self.T + s.shape[0]) > RESCALE else None
        try:
            with np.errstate(over="ignore"):  # an overflowing stored weight: refused below
                self._learn(host, s, y, w)
        except ValueError as exc:
            if saved is not None:
                host.__dict__.update(saved.__dict__)
            if not isinstance(exc, WeightBoundError):
                raise
            raise WeightBoundError(
                f"{type(host).__name__}(half_life={self.h!r}): the weights held would pass "
                f"2**1000 as stored (up to 2**{RESCALE} times the decayed weights, the newest "
                "heavier between rescales), where their exact sums could overflow; "
                + ("too many observations are held at once: shorten the half-life"
                   if self.relative else
                   "multiply every weight by one positive factor (the map does not change)"))\
                from None

    def _learn(self, host, s, y, w) -> None:
        i, m = 0, s.shape[0]
        while i < m:
            # The rows up to the next rescale: stored weights of exponent <= RESCALE.
            t = self.T + 1 + np.arange(m - i)
            e = self.exponent(t)
            j = i + int(np.searchsorted(e, RESCALE, side="right"))
            if j == i:
                self._rescale(host, int(math.floor(float(e[0]))) - 1, int(t[0]))
                continue
            self._chunk(host, s[i:j], y[i:j], w[i:j], t[: j - i], e[: j - i])
            i = j

    def _chunk(self, host, s, y, w, t, e) -> None:
        T = int(t[-1])
        stored = w * np.power(2.0, e)
        rows = []
        for k in range(w.shape[0]):
            last = last_step(float(w[k]), int(t[k]), self.h)
            if last >= T:
                rows.append((last, k))
        if rows:  # first (a weight bound error leaves everything as it was)
            r = np.array([k for _, k in rows])
            host._learn_now(s[r], y[r], stored[r])
        for last, k in rows:
            heapq.heappush(self.held, [last, int(t[k]), float(s[k]), float(y[k]),
                                       float(stored[k]), float(w[k])])
        top_left = False
        while self.held and self.held[0][0] < T:
            row = heapq.heappop(self.held)
            host._remove(row[2], row[3], row[4])
            top_left = top_left or row[5] >= 1.0
        self.T = T
        self.lower_due = self.lower_due or (top_left and self.relative)

    def _rescale(self, host, k: int, t: int) -> None:
        """Multiply every stored weight by ``2**-k`` (exact: none is subnormal) and rebuild the trees.

        Before step ``t``: the observations whose last step is ``t - 1`` leave
        first (their stored weights could underflow, attack 25 F1).
        """
        top_left = False
        while self.held and self.held[0][0] < t:
            u = heapq.heappop(self.held)[5]
            top_left = top_left or u >= 1.0
        self.c = self.c + k - (t - self.base) / self.h
        self.base = t
        for row in self.held:
            row[4] = math.ldexp(row[4], -k)
        self.lower_due = self.lower_due or (top_left and self.relative)
        self._rebuild(host, self.held)
