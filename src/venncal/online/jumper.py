"""Jumper test martingale, Jumper predictor and Mean Jumper: River-style online objects.

Vovk, Petej and Gammerman, *Adaptive calibration for binary
classification*, 2021.  A base model forecasts ``p_n``, the probability that
the label ``y_n`` is positive.  A Jumper keeps capital on each function
``f_eps`` of a calibrating family and bets, at the odds of ``p_n``, that
``f_eps(p_n)`` is the better forecast, moving a fraction ``J`` (the jumping
rate) of its capital between the functions at every step:

* its capital ``S_n`` is a test martingale (Algorithm 1): under the base
  forecasts, ``P(S_n >= 1/alpha for some n) <= alpha`` (Ville), so a large
  ``S_n`` is evidence that the base model is miscalibrated;
* its predictor (Algorithm 2) forecasts ``p'_n``, the capital-weighted average
  of ``f_eps(p_n)``; the two are one object, since
  ``log10 S_N = L_base - L_protected`` exactly (decimal log losses);
* the Mean Jumper averages the martingales of several jumping rates; with
  ``J = 1`` among them it hedges the cost of betting when the base model is
  already right.

``half_life`` adds exponential forgetting of the weights over the family,
keeping ``S`` a test martingale (:mod:`venncal.online._jumper_forgetting`).

All three share one engine (:mod:`venncal._kernels.jumper`): ``learn_one``,
``learn_many`` and ``run`` advance the same state by the same arithmetic, so
any split of a stream gives bit-for-bit the same values.  ``S`` is held as its
logarithm and is exact far beyond ``10^308``, and every base forecast in
``[0, 1]`` is exact: a subnormal ``p`` (``1e-310``, ``5e-324``), ``p`` within
``2**-53`` of 1, ``p = 0`` or ``1`` (see below), for every family.  They
follow the contract of :class:`~venncal.online._base.OnlineCalibrator`.

Forecasts of 0 and 1.  Algorithm 1 line 5 divides by ``B_{p_n}(y_n)``, the
base probability of the label that came.  When it is 0 (``p = 0`` and a
positive label, or ``p = 1`` and a negative one) the step is undefined (the
base model's log loss is infinite, and ``S_n`` would be ``x / 0``): it is an
error naming the step, raised before the object changes.  Otherwise the step
is defined: ``p = 0`` with a negative label (or ``p = 1`` with a positive one)
has ``B_p(y) = 1``, and if every function of the family gives the label
probability 0 then ``S_n = 0`` (``log10 S = -inf``) and it stays 0 for ever, as
Algorithm 1 keeps ``C = 0``.  Algorithm 2 would then divide 0 by 0; the
predictor goes on with the capital's distribution from before that step.

Labels may be any two values: ``classes=[negative, positive]`` names them, in
that order; otherwise they are taken from the first labels seen (0/1 or
booleans need no naming; two other values must both appear in the first
batch) and, as in scikit-learn, the positive class is the larger one after
sorting.  Either way it is ``classes_[1]``, and ``p`` is its probability.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from decimal import Decimal, localcontext
from typing import Any, ClassVar

import numpy as np

from .._kernels.jumper import jumper_advance
from .._kernels.jumper_complement import advance_low
from .._validation import (
    NONE,
    Check,
    Interval,
    check_labels,
    check_probabilities,
    validate_params,
)
from ._base import OnlineCalibrator, unit_weight
from ._jumper_calls import SingleCalls, check_step_weight, kept_rows
from ._jumper_complement import complement_table, predict_both
from ._jumper_forgetting import HALF_LIFE, forgetting_factor
from ._state import AlarmRecords, JumperResult, alarm_level
from .families import CalibratingFamily, cox, cubic, quadratic

__all__ = ["JumperMartingale", "JumperPredictor", "MeanJumper"]

# A run evaluates the family and calls the kernel on blocks of this many steps
# (one block for the 45,211 rows of Bank), bounding the (K, n) table's memory.
_BLOCK = 1 << 16
_ADVICE, _TINY = "pass classes=[negative, positive]", 2.0 ** -1022  # (the smallest normal float)


def _is_pair(v) -> bool:
    return (isinstance(v, (tuple, list)) and len(v) == 2
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)
            and 0.0 <= v[0] < v[1] <= 1.0)


def _is_rates(v) -> bool:
    rate = Interval("real", 0.0, 1.0, closed="right")
    return (isinstance(v, (tuple, list, np.ndarray)) and len(v) > 0
            and all(rate(x) for x in np.asarray(v).tolist()))


def _is_classes(v) -> bool:
    return isinstance(v, (tuple, list, np.ndarray)) and len(v) == 2 and v[0] != v[1]


class _Jumper(SingleCalls, OnlineCalibrator):
    """The engine shared by the three public classes (Mean Jumper over ``rates``)."""

    _parameter_constraints: ClassVar[dict] = {
        "family": [NONE, Check(lambda v: isinstance(v, CalibratingFamily),
                               "a CalibratingFamily (quadratic(), cubic(...), cox(...), "
                               "cox2(...) or family(...))")],
        "jump_rate": [Interval("real", 0.0, 1.0, closed="right")],
        "jump_rates": [Check(_is_rates, "a non-empty tuple of numbers in (0, 1]")],
        "clip": [NONE, Check(_is_pair, "a pair (low, high) with 0 <= low < high <= 1")],
        "classes": [NONE, Check(_is_classes, "a pair of two distinct labels")],
        "half_life": HALF_LIFE,
    }

    def _setup(self) -> None:
        validate_params(type(self).__name__, self.get_params(), self._parameter_constraints)
        self.family_ = self.family if self.family is not None else quadratic()
        self._rates = np.array(self._rate_values(), dtype=np.float64)
        self._gamma = forgetting_factor(self.half_life)
        K, small = len(self.family_), self._rates / len(self.family_) < _TINY
        if small.any():
            least = K * _TINY  # the least J with J/K >= 2**-1022, as the check divides
            while least / K < _TINY:
                least = float(np.nextafter(least, np.inf))
            raise ValueError(
                f"every jumping rate J needs J/K at least 2**-1022 (K = {K} functions: "
                f"J >= {least!r}); got J = {float(self._rates[np.argmax(small)])!r}. "
                "Below it J/K is a subnormal float, which rounds (to 0 at J = 5e-324), so the "
                "jumps would not be the algorithm's"
                + (", and forgetting would bring back weights that have underflowed to 0"
                   if self._gamma != 1.0 else ""))
        self.reset()

    def _rate_values(self) -> tuple[float, ...]:
        return (self.jump_rate,)

    @classmethod
    def _unit_test_params(cls) -> Iterator[dict[str, Any]]:
        yield {}
        yield {"family": cox([0.5, 1.0, 2.0]), "clip": (0.1, 0.9), "classes": ("no", "yes")}
        yield {"family": cubic([(0.5, 0.5), (-1.0, 1.0), (0.0, 0.5)]), "half_life": 50.0}

    # -- state --------------------------------------------------------------------

    def reset(self) -> None:
        """Forget the stream: back to ``S_0 = 1`` and uniform weights."""
        self.classes_ = None if self.classes is None else np.asarray(self.classes)
        self._n_seen = 0
        self._records = AlarmRecords()
        self._new_memory()  # log10 S = 0: the memory's CTL_LAST (SingleCalls._log10)

    @property
    def log10_value(self) -> float:
        """``log10 S_n`` after the last step (0 before any)."""
        self._flush()
        return float(self._log10)

    @property
    def value(self) -> Decimal:
        """``S_n`` itself, as a ``Decimal`` (no overflow at ``10^1000`` and beyond).

        Computed from :attr:`log10_value`, so its relative accuracy is that of
        ``10^x`` for a float ``x``: about ``2.3 * ulp(x)``, e.g. ``3e-13`` at
        ``S = 10^919``.
        """
        x = self.log10_value
        if x == -math.inf:
            return Decimal(0)
        with localcontext() as ctx:
            ctx.prec = 17
            return Decimal(10) ** Decimal(repr(x))

    @property
    def rate_log10_values(self) -> np.ndarray:
        """``log10 S_n`` of the Jumper of each jumping rate, shape ``(R,)``."""
        self._flush()
        return (self._log_cap + self._log_err) / math.log(10.0)

    def alarm(self, alpha: float) -> int | None:
        """Return the first step ``n`` (from 1, since :meth:`reset`) with ``S_n >= 1/alpha``.

        Under the base forecasts, by Ville's inequality, an alarm is raised
        with probability at most ``alpha`` over the whole infinite stream.
        None if ``S_n`` has stayed below ``1/alpha`` (to 8 ulps of ``log10 S``: ``alarm_level``).
        """
        self._flush()
        return self._records.first_at_least(alarm_level(alpha))

    # -- input ----------------------------------------------------------------------

    def _inputs(self, p, y, sample_weight=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return the checked ``(p, y01, classes)`` of the rows that count (state untouched)."""
        p = check_probabilities(p, name="p")
        if self.clip is not None:
            p = np.clip(p, self.clip[0], self.clip[1])
        classes, y01 = check_labels(y, p.shape[0], self.classes_, advice=_ADVICE)
        kept = kept_rows(sample_weight, p.shape[0])
        impossible = np.where(y01, p == 0.0, p == 1.0)
        if kept is not None:
            impossible &= kept
        if impossible.any():
            i = int(np.flatnonzero(impossible)[0])
            step = self.n_seen_ + i + 1 - (0 if kept is None else int((~kept[:i]).sum()))
            where = f"p[{i}]" if p.shape[0] > 1 else "p"  # one step (learn_one): no index
            raise ValueError(
                f"{where} = {p[i]:g} (step {step} of the stream) gave probability 0 to its "
                f"label {np.asarray(y)[i].item()!r}: its log loss is infinite and the "
                f"martingale is undefined (Algorithm 1 would divide by 0). Keep base forecasts "
                f"away from 0 and 1, e.g. with clip=(0.1, 0.9) (Vovk, Petej & Gammerman 2021, section 5)"
            )
        if kept is not None:
            p, y01 = p[kept], y01[kept]
        return p, y01, classes

    # -- learning -----------------------------------------------------------------

    def _advance(self, p: np.ndarray, y01: np.ndarray, classes: np.ndarray,
                 low: np.ndarray | None = None) -> JumperResult:
        """Run the kernel over the checked steps; ``low`` (shape ``(n,)``): their negative class."""
        n = p.shape[0]
        log10, proba, factors = np.empty(n), np.empty(n), np.empty(n)
        # Work on copies so that a bad block (a user family leaving [0, 1])
        # leaves the object as it was.
        w, hi, lo = self._weights.copy(), self._log_cap.copy(), self._log_err.copy()
        for a in range(0, n, _BLOCK):
            b = min(n, a + _BLOCK)
            self._kernel(p[a:b], y01[a:b], w, hi, lo, log10[a:b], proba[a:b], factors[a:b],
                         None if low is None else low[a:b])
        result = JumperResult(log10, proba, start=self._n_seen, log10_factors=factors)
        self._weights[:], self._log_cap[:], self._log_err[:] = w, hi, lo
        if self.classes_ is None:
            self.classes_ = classes
            self._labels()
        self._records.add(self._n_seen + 1, log10)
        self._new_top()
        self._n_seen += n
        self._log10 = float(log10[-1])
        return result

    def _kernel(self, p, y01, w, hi, lo, out_log10, out_proba, out_factor, out_low=None) -> None:
        """Evaluate the family on ``p`` and run the kernel on the state ``(w, hi, lo)``.

        ``out_low`` (when given): each step's negative class, as
        :meth:`predict_proba_many` gives it at the state before the step.
        """
        table = self.family_.table(p)
        t, ls = self.family_._scaled_ratios(p, y01, table)
        if out_low is None:
            jumper_advance(table, t, ls, self._rates, self._gamma, w, hi, lo, out_log10,
                           out_proba, out_factor)
        else:
            advance_low(table, complement_table(self.family_, p, table), t, ls, self._rates,
                        self._gamma, w, hi, lo, out_log10, out_proba, out_factor, out_low)

    def run(self, p, y) -> JumperResult:
        """Process a recorded stream, in order, in compiled code; return its trajectory.

        One kernel call per block of 65,536 steps (one for the Bank stream),
        which bounds the memory of the family's ``(K, n)`` table.  The stream
        continues the object's state (call :meth:`reset` first for a fresh
        start); ``learn_one`` afterwards continues it exactly.

        Parameters
        ----------
        p : array-like of shape (n,)
            Base probabilities of the positive class, in ``[0, 1]``.
        y : array-like of shape (n,)
            The labels, in order.

        Returns
        -------
        JumperResult
            ``log10_martingale`` (``log10 S_n`` after step ``n``),
            ``protected_proba`` (``p'_n``, before ``y_n`` was seen) and
            ``log10_factors`` (``log10 S_n / S_{n-1}``, from the kernel).

        Raises
        ------
        ValueError
            For a forecast outside ``[0, 1]`` or NaN, labels outside the two
            classes, or a step whose label had base probability 0 (named by
            its step); the object is then as it was.
        """
        self._flush()
        return self._advance(*self._inputs(p, y))

    def _run_both(self, p, y) -> np.ndarray:
        """:meth:`run`, returning its forecasts as rows ``(1 - p'_n, p'_n)`` (ProtectedClassifier).

        The negative class is formed as :meth:`predict_proba_many` forms it
        (issue 22), at the state before each step.
        """
        self._flush()
        checked = self._inputs(p, y)
        low = np.empty(checked[0].shape[0])
        res = self._advance(*checked, low=low)
        return np.column_stack([low, res.protected_proba])

    def learn_many(self, p, y, sample_weight=None) -> None:
        """Process a batch of the stream, in order (``run`` without the trajectory).

        Parameters
        ----------
        p : array-like of shape (n,)
            Base probabilities of the positive class, in ``[0, 1]``.
        y : array-like of shape (n,)
            The labels, in order.
        sample_weight : array-like of shape (n,), default=None
            0 drops a row, 1 keeps it; a Jumper's steps take no other weight.
        """
        self._flush()
        p, y01, classes = self._inputs(p, y, sample_weight)
        if p.shape[0]:
            self._advance(p, y01, classes)

    def _learn_checked(self, p, y, sample_weight) -> None:
        """``learn_one`` of a step its fast path did not queue (a weight, a first label, a check)."""
        check_step_weight(sample_weight)
        if self._queued(p, y, sample_weight):
            return
        self._flush()
        step = self._scalar_step(p, y) if unit_weight(sample_weight) else None
        if step is None:  # first label, a weight, or an input to reject: the batch path
            self.learn_many([p], [y], None if unit_weight(sample_weight) else [sample_weight])
            return
        self._advance(*step, self.classes_)

    def _scalar_step(self, p, y) -> tuple[np.ndarray, np.ndarray] | None:
        """Return ``(p, y01)`` as arrays of length 1 when no check can fail, else None."""
        if (self.classes_ is None or not np.isscalar(y)
                or not isinstance(p, (float, int, np.floating, np.integer))
                or (isinstance(p, np.floating) and p.dtype.itemsize > 8)  # (53 F3: long double)
                or (isinstance(p, int) and not 0 <= p <= 1)):  # (10**400: the checked path says)
            return None
        q = float(p)
        if not 0.0 <= q <= 1.0:
            return None
        if self.clip is not None:
            q = min(max(q, self.clip[0]), self.clip[1])  # np.clip, bit for bit
        if y == self.classes_[1]:
            positive = True
        elif y == self.classes_[0]:
            positive = False
        else:
            return None
        if q == (0.0 if positive else 1.0):
            return None
        return np.array([q]), np.array([positive])

    # -- prediction ---------------------------------------------------------------

    def predict_proba_many(self, p) -> np.ndarray:
        """Return the protected probabilities of ``classes_``, at the current state.

        Row ``i`` is ``(1 - p'_i, p'_i)``, where ``p'_i`` is what the next step
        would forecast for the base probability ``p[i]`` (no learning between
        the rows); ``1 - p'_i`` is formed as the same mixture of the
        complements ``1 - f(p_i)`` where ``p'_i > 1/2`` (not 0 where ``p'_i``
        rounds to 1, issue 22).

        Parameters
        ----------
        p : array-like of shape (n,)
            Base probabilities of the positive class.

        Returns
        -------
        ndarray of shape (n, 2)
            Probabilities of ``classes_[0]`` and ``classes_[1]``.
        """
        self._flush()
        p = check_probabilities(p, name="p")
        if self.clip is not None:
            p = np.clip(p, self.clip[0], self.clip[1])
        p = np.ascontiguousarray(p, dtype=np.float64)
        return predict_both(self.family_, p, self._rates, self._weights, self._log_cap,
                            self._log_err)


class _OneRate(_Jumper):
    """A Jumper of one jumping rate: the parameters of Algorithms 1 and 2."""

    def __init__(self, family: CalibratingFamily | None = None, jump_rate: float = 0.01, *,
                 clip: tuple[float, float] | None = None, classes: Sequence | None = None,
                 half_life: float | None = None):
        self.family = family
        self.jump_rate = jump_rate
        self.clip = clip
        self.classes = classes
        self.half_life = half_life
        self._setup()


class JumperMartingale(_OneRate):
    """The Jumper test martingale (Vovk, Petej & Gammerman 2021, Algorithm 1): evidence against the base forecasts.

    Parameters
    ----------
    family : CalibratingFamily, default=None
        The calibrating functions to bet on; None means :func:`quadratic` with
        ``E = (-1, -0.5, 0, 0.5, 1)``, as in the paper's experiments.
    jump_rate : float, default=0.01
        ``J`` in ``(0, 1]``: the fraction of the capital redistributed
        uniformly over the family at each step.  Needs ``J/K >= 2**-1022``
        for a family of ``K`` functions (else a ValueError).
    clip : (float, float), default=None
        If given, base probabilities are clipped to ``[low, high]`` first;
        the paper uses ``(0.1, 0.9)``.
    classes : pair of labels, default=None
        The two labels, ``[negative, positive]``; by default the labels seen,
        sorted (the larger is the positive class, ``classes_[1]``).
    half_life : float, default=None
        Exponential forgetting of the weights over the family (steps after
        which a step's evidence counts half); ``S`` stays a test martingale
        (see :mod:`venncal.online._jumper_forgetting`).  None: none, bit for bit.

    Attributes
    ----------
    classes_ : ndarray of shape (2,) or None
        The labels ``[negative, positive]`` once known.
    weights_ : ndarray of shape (1, K)
        How the capital is spread over the family's functions now.
    n_seen_ : int
        Steps seen since the last :meth:`reset`.

    See Also
    --------
    JumperPredictor : the same object, used for its protected forecasts.
    MeanJumper : the average over several jumping rates.

    Notes
    -----
    ``J = 1`` redraws the capital's distribution uniformly at every step, so
    the Jumper learns nothing: ``p'_n`` is the plain average of
    ``f_eps(p_n)`` over the family and ``S_n = prod B_{p'_i}(y_i) / B_{p_i}(y_i)``.
    For a family whose average is the identity (the quadratic family with
    ``E`` symmetric about 0, e.g. the default) this gives ``p' = p`` and
    ``S_n = 1`` at every step.  The paper allows ``J`` in ``(0, 1]``.

    Examples
    --------
    The base model says 0.2, but the positive label comes up half the time:

    >>> import numpy as np
    >>> from venncal.online import JumperMartingale
    >>> rng = np.random.default_rng(0)
    >>> p = np.full(2000, 0.2)
    >>> y = rng.random(2000) < 0.5
    >>> mart = JumperMartingale(jump_rate=0.01)
    >>> res = mart.run(p, y)
    >>> round(mart.log10_value, 1)
    153.3
    >>> res.alarm(0.01)  # first n with S_n >= 100
    54
    >>> mart.learn_one(0.2, True)
    >>> mart.n_seen_
    2001
    """


class JumperPredictor(_OneRate):
    """The Jumper predictor (Vovk, Petej & Gammerman 2021, Algorithm 2): base forecasts protected online.

    Forecasts ``p'_n = sum_eps w_eps f_eps(p_n)``, the functions of the family
    weighted by the capital the Jumper martingale keeps on them.  Its log loss
    is the base model's minus ``log S_n`` of :class:`JumperMartingale`, and
    (section 4) at most the loss of the best *sequence* of family functions
    plus a price per switch.  The parameters, attributes and methods are those
    of :class:`JumperMartingale` (the two are the same computation).

    Notes
    -----
    Regret (section 4).  For every sequence ``theta_1, ..., theta_n`` of
    family functions with ``k`` switches, in natural-log loss,

        Loss(p') <= Loss(f_theta(p)) + log|E| + k log(|E|/J)
                    + (n - k - 1) log(1 / (1 - J + J/|E|)),

    the negative log of the prior probability of ``theta`` under Algorithm
    1, which redraws the state from *all* of ``E`` with probability ``J``.
    The paper prints ``k log(|E|-1) + k log(1/J) + (n-k-1) log(1/(1-J))``,
    the bound of fixed share to the *other* experts (Herbster and Warmuth):
    weaker when switches are rare (it then follows from this one), it fails
    for Algorithm 1 when they are frequent (tests/test_jumper_kernel.py has
    an example).

    Parameters
    ----------
    family : CalibratingFamily, default=None
        None means :func:`quadratic` with ``E = (-1, -0.5, 0, 0.5, 1)``.
    jump_rate : float, default=0.01
        ``J`` in ``(0, 1]``, with ``J/K >= 2**-1022`` for ``K`` functions.
    clip : (float, float), default=None
        Clip base probabilities to ``[low, high]`` first (the paper: ``(0.1, 0.9)``).
    classes : pair of labels, default=None
        The two labels ``[negative, positive]``, in that order (``classes_[1]``, whose
        probability ``p`` is); None: the labels of the first batch, the larger positive.
    half_life : float, default=None
        Forget the family's past log likelihoods with this half-life, so that
        the forecasts follow a drifting calibration faster; None: none.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.online import JumperPredictor
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.1, 0.9, 5000)
    >>> y = rng.random(5000) < p ** 2  # the base model overestimates
    >>> pred = JumperPredictor(jump_rate=0.01)
    >>> res = pred.run(p, y)
    >>> loss = lambda q: -np.log10(np.where(y, q, 1 - q)).sum()
    >>> bool(np.isclose(loss(p) - loss(res.protected_proba), res.log10_final, rtol=1e-12))
    True
    >>> pred.predict_proba_one(0.5)  # learned to shade 0.5 down  # doctest: +ELLIPSIS
    {False: 0.727..., True: 0.272...}
    """


class MeanJumper(_Jumper):
    """The Mean Jumper: the average of Jumper martingales over several jumping rates.

    ``S_n = (1/R) sum_r S_{r,n}``, a test martingale; its predictor's gale is
    the average of the rates' gales, so its log loss is at most the best
    rate's loss plus ``log R``.  Including ``J = 1`` (which, for a family
    symmetric about the identity, never bets) caps what the insurance costs
    when the base model is already right: ``S_n >= S_{1,n} / R``.

    Parameters
    ----------
    family : CalibratingFamily, default=None
        None means :func:`quadratic` with ``E = (-1, -0.5, 0, 0.5, 1)``.
    jump_rates : tuple of float, default=(1, 0.1, 0.01, 0.001)
        The rates, each in ``(0, 1]`` with ``J/K >= 2**-1022`` for ``K`` functions.
    clip : (float, float), default=None
        Clip base probabilities to ``[low, high]`` first (the paper: ``(0.1, 0.9)``).
    classes : pair of labels, default=None
        The two labels ``[negative, positive]``, in that order (``classes_[1]``, whose
        probability ``p`` is); None: the labels of the first batch, the larger positive.
    half_life : float, default=None
        Forget the family's past log likelihoods with this half-life, so that
        the forecasts follow a drifting calibration faster; None: none.

    Attributes
    ----------
    weights_ : ndarray of shape (R, K)
        For each rate, how its capital is spread over the family.
    rate_log10_values : ndarray of shape (R,)
        ``log10 S_{r,n}`` of each rate's Jumper.

    Examples
    --------
    Labels coded 1 and 2, as in the Bank Marketing data (2 is positive):

    >>> import numpy as np
    >>> from venncal.online import MeanJumper
    >>> rng = np.random.default_rng(1)
    >>> p = rng.uniform(0.1, 0.9, 3000)
    >>> y = np.where(rng.random(3000) < p, 2, 1)  # the base model is right
    >>> mj = MeanJumper()
    >>> res = mj.run(p, y)
    >>> mj.classes_
    array([1, 2])
    >>> bool(mj.log10_value >= np.log10(1 / 4))  # never below S_{J=1} / 4 = 1/4
    True
    >>> mj.rate_log10_values.round(2) + 0.0  # J = 1: exactly 0, to rounding (+ 0.0: no -0.)
    array([ 0.  , -8.7 , -7.47, -1.61])
    """

    def __init__(self, family: CalibratingFamily | None = None,
                 jump_rates: Sequence[float] = (1.0, 0.1, 0.01, 0.001), *,
                 clip: tuple[float, float] | None = None, classes: Sequence | None = None,
                 half_life: float | None = None):
        self.family = family
        self.jump_rates = jump_rates
        self.clip = clip
        self.classes = classes
        self.half_life = half_life
        self._setup()

    def _rate_values(self) -> tuple[float, ...]:
        return tuple(self.jump_rates)

    @classmethod
    def _unit_test_params(cls) -> Iterator[dict[str, Any]]:
        yield {}
        yield {"family": cubic([(0.5, 0.5), (-0.5, 0.5), (0.0, 0.5)]), "jump_rates": (1.0, 0.05),
               "classes": (2, 1)}
