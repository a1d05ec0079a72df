"""Small pieces of the online objects' state: the result of a run and the alarm records."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import Interval, validate_params

__all__ = ["AlarmRecords", "JumperResult", "alarm_level", "compiled_entry"]

_ALPHA = {"alpha": [Interval("real", 0.0, 1.0, closed="neither")]}


def alarm_level(alpha: float) -> float:
    """Return the level of ``log10 S`` at which ``S >= 1/alpha``, after checking ``0 < alpha < 1``.

    ``log10(1 / alpha)`` less 8 ulps of ``max(log10(1 / alpha), 1)``, as
    :func:`venncal.online.detect_changes` counts a threshold reached: ``log10
    S``, rounded, lies within about an ulp of its exact value, so an ``S``
    equal to ``1/alpha`` (``2**10`` at ``alpha = 2**-10``) alarms, where the
    bare comparison missed it in 159 of ``k = 1..199`` (attack 33 F3); an
    ``S`` below ``1/alpha`` by a factor within ``10**(8 ulp)`` may alarm too
    (8e-15 relative at ``alpha = 0.01``, 1e-12 at ``alpha = 1e-300``), which
    changes Ville's bound by as much.

    Examples
    --------
    >>> alarm_level(0.01) < 2.0 == alarm_level(0.01) + 8 * 2.0**-51
    True
    """
    validate_params("alarm", {"alpha": alpha}, _ALPHA)
    level = -math.log10(alpha)
    return level - 8.0 * math.ulp(max(level, 1.0))


@dataclass(frozen=True, eq=False)
class JumperResult:
    """The trajectory of a Jumper over a recorded stream (returned by ``run``).

    Attributes
    ----------
    log10_martingale : ndarray of shape (n,)
        ``log10 S_n`` after each step ``n`` of this run, counted from the start
        of the stream (so a run that continues a stream continues its values).
    protected_proba : ndarray of shape (n,)
        The protected probability ``p'_n`` of the positive class at each step,
        computed before its label was seen.
    start : int
        Number of steps of the stream before this run: row ``i`` is step
        ``start + i + 1``.
    log10_factors : ndarray of shape (n,) or None
        ``log10 (S_n / S_{n-1})``, the betting factor of each step, as the
        kernel computed it (rounded once a step, not a difference of the
        rounded path; 0 once ``S`` is 0): what the change-point procedures
        take.  None when the result was made without them (then
        :func:`venncal.online.log10_factors` of the path gives them).

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.online import JumperResult
    >>> res = JumperResult(np.array([0.5, 1.5, 2.5]), np.array([0.2, 0.3, 0.4]), start=0)
    >>> res.alarm(0.05), res.alarm(0.001), res.log10_final
    (2, None, 2.5)
    """

    log10_martingale: np.ndarray
    protected_proba: np.ndarray
    start: int = 0
    log10_factors: np.ndarray | None = None

    @property
    def log10_final(self) -> float:
        """``log10 S`` after the last step of the run."""
        return float(self.log10_martingale[-1])

    def alarm(self, alpha: float) -> int | None:
        """First step ``n`` of this run with ``S_n >= 1/alpha``, or None.

        ``log10 S_n`` within 8 ulps below ``log10(1/alpha)`` counts
        (:func:`alarm_level`): an ``S_n`` equal to ``1/alpha`` alarms.

        By Ville's inequality, under the base forecasts the probability that
        this ever happens is at most ``alpha``.  Steps are numbered in the
        stream (from ``start + 1``).
        """
        hits = np.flatnonzero(self.log10_martingale >= alarm_level(alpha))
        return int(self.start + hits[0] + 1) if hits.size else None


class AlarmRecords:
    """The records of ``log10 S``: the steps where it exceeded all earlier values.

    ``S_0 = 1`` counts as the first value, so records are positive and
    strictly increasing; the first ``n`` with ``S_n >= 1/alpha`` is the first
    record at or above ``log10(1/alpha)``, found by binary search.  Storage
    grows by doubling, so appending is amortised O(1) per record.
    """

    def __init__(self) -> None:
        self.size = 0
        self.steps = np.empty(16, dtype=np.int64)
        self.values = np.empty(16)

    @property
    def top(self) -> float:
        """The largest ``log10 S_n`` so far (0 for ``S_0 = 1``)."""
        return float(self.values[self.size - 1]) if self.size else 0.0

    def _append(self, steps: np.ndarray, values: np.ndarray) -> None:
        need = self.size + steps.shape[0]
        if need > self.steps.shape[0]:
            capacity = max(need, 2 * self.steps.shape[0])
            self.steps = np.resize(self.steps, capacity)
            self.values = np.resize(self.values, capacity)
        self.steps[self.size:need] = steps
        self.values[self.size:need] = values
        self.size = need

    def add(self, first_step: int, log10_values: np.ndarray) -> None:
        """Take the values of steps ``first_step, first_step + 1, ...``."""
        top = self.top
        if log10_values.shape[0] == 1:
            if log10_values[0] > top:
                self._append(np.array([first_step]), log10_values)
            return
        before = np.maximum.accumulate(np.concatenate(([top], log10_values[:-1])))
        new = np.flatnonzero(log10_values > before)
        self._append(first_step + new, log10_values[new])

    def first_at_least(self, level: float) -> int | None:
        """Return the first step whose value is ``>= level`` (``level > 0``), or None."""
        i = int(np.searchsorted(self.values[: self.size], level, side="left"))
        return int(self.steps[i]) if i < self.size else None


def compiled_entry(kernel, *args, run: bool = True):
    """Call ``kernel(*args)`` once; return its compiled function for exactly these argument types.

    numba's dispatcher finds the compiled version of a kernel from the types
    of its arguments at every call (about 0.1 µs an array); a single call
    from Python whose arguments always have the same types (the online
    objects' own arrays) can skip that search by calling the compiled
    function found here.  Falls back to the kernel itself if numba does not
    expose it (the result is the same either way).  ``run=False`` compiles
    (or loads from numba's cache) for those types without calling it.
    """
    sig = tuple(kernel.typeof_pyval(a) for a in args)
    if run:
        kernel(*args)
    else:
        kernel.compile(sig)
    try:
        return kernel.overloads[sig].entry_point
    except (AttributeError, KeyError, TypeError):  # pragma: no cover - another numba
        return kernel
