"""What both quantized isotonic streams share: levels, the weight bound, the API, prediction.

The streams themselves are in :mod:`venncal.online.quantized`.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from .._kernels.exact import BOUND
from .._kernels.quantized import DEN, HI, LO, NUM, level_at
from .._validation import check_sample_weight, check_scores
from ..baselines.isotonic import _nearest_steps, block_table
from ..baselines.quantized import (
    QuantizedIsotonicCalibrator,
    check_levels,
    level_splits,
    level_table,
)
from ._base import OnlineCalibrator

UNSET = object()  # the deprecated ``weight=`` keyword, not given


def _real(value, name: str) -> float:
    """Return ``value`` as a finite float (the rule of ``check_scores``)."""
    if isinstance(value, float) or (isinstance(value, numbers.Integral)
                                    and -(2**53) <= value <= 2**53):
        if math.isfinite(value):
            return float(value) + 0.0  # -0.0 becomes 0.0: one key per score
    # the rest as check_scores reads it: integers past 2**53 (a double cannot hold them:
    # two scores would tie), text, long doubles and Fractions a double cannot hold (attack
    # 53 F3, F4: rounded here, refused by learn_many) are refused there
    return float(check_scores(np.atleast_1d(value), name=name)[0]) + 0.0


def _weight(value, weight, method: str) -> float:
    """Return ``sample_weight`` (or the deprecated ``weight``) as a finite non-negative float."""
    if weight is not UNSET:
        warnings.warn(f"{method}(weight=...) is deprecated and will be removed in the next "
                      "release: use sample_weight=...", DeprecationWarning, stacklevel=3)
        value = weight
    if (isinstance(value, float) or (isinstance(value, numbers.Integral) and abs(value) <= 2**53)) \
            and math.isfinite(value) and value >= 0:  # (isfinite(10**400) raises OverflowError)
        return float(value)
    # the batch's checks and messages (an int beyond 2**53 that a double holds exactly passes,
    # as in learn_many; one beyond the doubles is refused by name, not by an OverflowError)
    w = None if value is None else check_sample_weight([value], 1, name="sample_weight",
                                                       zero_total=True)
    if w is None or not isinstance(value, numbers.Real):
        raise ValueError(f"sample_weight must be a finite non-negative number; got {value!r}")
    return float(w[0])


def _batch(scores, y, sample_weight):
    s = check_scores(scores) + 0.0
    t = check_scores(y, name="y") + 0.0
    if t.shape[0] != s.shape[0]:
        raise ValueError(f"scores and y have different lengths: {s.shape[0]} and {t.shape[0]}")
    # (a batch of weight 0 changes nothing, as learn_one of weight 0 does not)
    w = check_sample_weight(sample_weight, s.shape[0], zero_total=True)
    return s, t, np.ones_like(s) if w is None else w


class WeightBoundError(ValueError):
    """Weights held whose exact sums could overflow (refused before any change)."""


class QuantizedMap(OnlineCalibrator):
    """What both streams share: levels, the current groups, prediction.

    The streams follow the online contract (:class:`OnlineCalibrator`):
    ``learn_one``/``learn_many`` with ``sample_weight``, ``predict_proba_one``/
    ``predict_proba_many`` (for 0/1 targets), ``reset``, ``clone``,
    ``get_params``.  Beyond it they take targets other than 0 and 1 (then
    :meth:`predict_one` and :meth:`predict` give the map's level, and the
    probabilities are refused).
    """

    def reset(self) -> None:
        """Forget the stream: the object is as it was made (the parameters stay)."""
        params = self.get_params()
        self.__dict__.clear()
        self.__init__(**params)

    @classmethod
    def _unit_test_params(cls):
        """The parameters the online contract test makes streams with."""
        yield {}
        yield {"levels": 11}
        yield {"levels": np.array([0.0, 0.2, 0.5, 0.9, 1.0])}

    def _set_levels(self, levels) -> None:
        self.levels = levels
        self.levels_ = check_levels(levels, unit_interval=False)
        self._splits = level_splits(self.levels_)
        self._lv = level_table(self.levels_)
        self._steps = None
        self._held = 0.0  # the weights held, about (bounds the sums: see _check_bound)
        self._scale = max(1.0, float(np.max(np.abs(self.levels_))))  # max(1, |level|, |y|)

    def _check_bound(self, t: np.ndarray, w: np.ndarray) -> None:
        """Refuse, before any change, weights whose exact sums could overflow.

        The weights held (at their peak, while a window holds one more than
        its size) times the largest of 1, ``|target|`` and ``|level|`` must
        stay below ``2**1000``; the sums then stay far below overflow.
        """
        window = getattr(self, "window", None)
        if t.shape[0] == 1:  # one insert() call: no array operations
            w0 = float(w[0])
            scale = max(self._scale, abs(float(t[0])))
            peak = held = self._held + w0
            if window is not None and w0 > 0 and self._ring_state[1] == window:
                held -= float(self._ring[self._ring_state[0], 2])
        else:
            scale = max(self._scale, float(np.max(np.abs(t))) if t.shape[0] else 0.0)
            tiny = w[w > 0] * 2.0**-64  # no sum of these overflows
            peak = held = self._held + float(np.sum(tiny)) * 2.0**64
        if window is not None and t.shape[0] > 1:  # the window deletes its oldest: O(new)
            ring, (head, count) = self._ring, self._ring_state
            gone = max(0, int(count) + tiny.shape[0] - window)
            first = (head + np.arange(min(gone, int(count)))) % ring.shape[0]
            held -= float(np.sum(ring[first, 2] * 2.0**-64)
                          + np.sum(tiny[: max(gone - int(count), 0)])) * 2.0**64
            if not peak * scale <= BOUND:  # the peak exactly: the window's sums over time
                order = (head + np.arange(count)) % ring.shape[0]
                c = np.cumsum(np.concatenate(([0.0], ring[order, 2] * 2.0**-64, tiny)))
                ends = np.arange(int(count) + 1, c.shape[0])
                inner = c[ends] - c[np.maximum(ends - window - 1, 0)]
                peak = float(np.max(inner, initial=0.0)) * 2.0**64
        if not peak * scale <= BOUND:
            raise WeightBoundError(
                f"{type(self).__name__}: the weights held would add up to about {peak:.3g} "
                f"(times the largest of 1, |target| and |level|: {scale:.3g}), beyond 2**1000, "
                "where their exact sums could overflow; multiply every weight by one "
                "positive factor (the map does not change)")
        self._held, self._scale = max(held, 0.0), scale

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

    def insert(self, score, y, sample_weight=1.0, *, weight=UNSET) -> None:
        """Add one observation (weight 0: nothing happens).

        :class:`OrderedQuantizedIsotonic` also needs its score to be at
        least the largest so far.  ``weight=`` is the deprecated name of
        ``sample_weight=``.
        """
        self._learn(np.array([_real(score, "score")]), np.array([_real(y, "y")]),
                    np.array([_weight(sample_weight, weight, "insert")]))

    def learn_many(self, scores, y, sample_weight=None) -> None:
        """Learn observations in the order given (a zero weight drops its row)."""
        self._learn(*_batch(scores, y, sample_weight))

    def _learn(self, s: np.ndarray, t: np.ndarray, w: np.ndarray) -> None:
        raise NotImplementedError

    def learn_one(self, score, y, sample_weight=1.0, *, weight=UNSET) -> None:
        """Learn one observation (River's name for :meth:`insert`); returns None."""
        w = _weight(sample_weight, weight, "learn_one")
        self._learn(np.array([_real(score, "score")]), np.array([_real(y, "y")]), np.array([w]))

    @property
    def classes_(self) -> np.ndarray:
        """The labels of a 0/1 stream: ``[0, 1]`` (probabilities are those of 1)."""
        return np.array([0, 1])

    def _check_proba(self) -> None:
        if self.levels_[0] < 0 or self.levels_[-1] > 1:
            raise ValueError(f"{type(self).__name__}: probabilities need levels in [0, 1]")
        if not self._binary():
            raise ValueError(
                f"{type(self).__name__}: probabilities need targets 0 and 1 (labels), and the "
                "stream holds other targets; use predict_one or predict")

    def predict_proba_one(self, score) -> dict:
        """Return ``{0: 1 - p, 1: p}``, ``p`` the level at ``score`` (River's convention).

        Raises
        ------
        ValueError
            Before the first observation, when a level lies outside [0, 1],
            or when the observations present have targets other than 0 and 1.
        """
        p = self.predict_one(score)
        self._check_proba()
        return {0: 1.0 - p, 1: p}

    def predict_proba_many(self, scores) -> np.ndarray:
        """Return the probabilities of 0 and 1 at each score: shape (n_samples, 2).

        The errors are those of :meth:`predict_proba_one`.
        """
        p = self.predict(scores)
        self._check_proba()
        return np.column_stack((1.0 - p, p))

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


