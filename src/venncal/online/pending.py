"""Delayed labels: forecast now, learn when the label arrives (in any order).

A deployed model forecasts an event now and learns its label later: a loan
is repaid months after the decision, a click is counted after the page was
shown, and labels of different events come back out of order.
:class:`Pending` wraps any online object of :mod:`venncal.online` and keeps
each forecast, under a key the caller chooses, until its label arrives.

For the Jumper objects the bet on a label is the one made when its forecast
was: each rate's capital is multiplied by ``B_{p'}(y) / B_p(y)``, where
``p'`` is that rate's forecast *made at prediction time* (before the label
existed) and ``p`` the base forecast.  Under the base forecasts, ``y`` given
everything known before it arrives (other labels, other forecasts, the order
of arrivals) is Bernoulli(``p``), and ``p'`` was fixed before it, so the
factor has conditional expectation exactly 1: the capital is a test
martingale over the labels in their order of arrival, whatever that order,
and Ville's inequality bounds its false alarms by ``alpha`` as before.
(Betting with the forecast the object would make when the label arrives
would also be valid, but it is not the forecast the user acted on; the
protected predictor's identity ``log10 S = L_base - L_protected`` holds for
the forecasts issued.)  The weights over the family learn each label as
``learn_one`` does, when it arrives.  The factor is computed from the
family's likelihood ratios at ``(p, y)`` mixed by the weights each rate
forecast with (kept with the forecast), which is ``B_{p'}(y) / B_p(y)``
without rounding ``p'`` or ``1 - p'`` first (a forecast within ``2**-53`` of
1, or subnormal, keeps its bet).  Labels that come back in the order of
their forecasts, each before the next forecast, give the Jumper's usual
values to rounding (``learn_one``'s buffered kernels sum in another order).

Other objects (:class:`~venncal.online.QuantizedIsotonic`, ...) learn the
remembered ``(x, y)`` when the label arrives.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable

from ._base import OnlineCalibrator

__all__ = ["Pending"]


class Pending:
    """Forecasts waiting for their labels, with a bounded memory.

    Parameters
    ----------
    model : OnlineCalibrator
        The online object that forecasts and learns (a Jumper,
        :class:`~venncal.online.QuantizedIsotonic`, ...).
    max_pending : int, default=100_000
        Forecasts kept at most; one more is an error (learn or
        :meth:`forget` some first), so memory stays bounded.

    Examples
    --------
    >>> from venncal.online import JumperPredictor
    >>> from venncal.online.pending import Pending
    >>> waiting = Pending(JumperPredictor(classes=[0, 1]))
    >>> proba = waiting.predict_proba_one(0.3, key="loan-17")  # act on it now
    >>> round(proba[1], 12)
    0.3
    >>> round(waiting.predict_proba_one(0.8, key="loan-18")[1], 12)
    0.8
    >>> waiting.learn_one("loan-18", 1)   # labels come back in any order
    >>> waiting.learn_one("loan-17", 0)
    >>> waiting.model.n_seen_, len(waiting)
    (2, 0)
    >>> waiting.learn_one("loan-99", 1)
    Traceback (most recent call last):
    ...
    ValueError: no forecast is waiting for key 'loan-99' (made by predict_proba_one(x, key=...), not yet learned or forgotten)
    """

    def __init__(self, model: OnlineCalibrator, max_pending: int = 100_000):
        if not isinstance(model, OnlineCalibrator):
            raise TypeError(f"model must be an online object of venncal.online; got {model!r}")
        if (not isinstance(max_pending, numbers.Integral) or isinstance(max_pending, bool)
                or max_pending < 1):
            raise ValueError(f"max_pending must be a positive integer; got {max_pending!r}")
        self.model = model
        self.max_pending = int(max_pending)
        self._waiting: dict = {}

    def __len__(self) -> int:
        return len(self._waiting)

    def __contains__(self, key) -> bool:
        return key in self._waiting

    def predict_proba_one(self, x, key: Hashable) -> dict:
        """Forecast at ``x`` now and remember it under ``key`` until its label arrives."""
        _check_key(key)
        if _has_nan(key):  # never equal to another NaN: its label could never be learned
            shown = key.item() if hasattr(key, "item") else key
            raise ValueError(
                f"key must equal itself to be found again; got {shown!r} (a NaN): use another key")
        if key in self._waiting:
            raise ValueError(f"a forecast is already waiting for key {key!r}: learn or forget it first")
        if len(self._waiting) >= self.max_pending:
            raise ValueError(
                f"{self.max_pending} forecasts are waiting for their labels (max_pending): "
                "learn or forget some first")
        proba = self.model.predict_proba_one(x)
        snapshot = getattr(self.model, "_forecast_snapshot", None)
        self._waiting[key] = (x, None if snapshot is None else snapshot(x))
        return proba

    def learn_one(self, key: Hashable, y) -> None:
        """Learn the label ``y`` of the forecast made under ``key`` (which is then forgotten)."""
        _check_key(key)
        if key not in self._waiting:
            raise ValueError(
                f"no forecast is waiting for key {key!r} (made by predict_proba_one(x, key=...), "
                "not yet learned or forgotten)")
        x, bets = self._waiting[key]
        try:
            if bets is None:
                self.model.learn_one(x, y)
            else:
                self.model._learn_delayed(x, y, bets)
        except (TypeError, ValueError) as exc:  # named by its key, as the user knows it
            raise type(exc)(f"the label {y!r} of key {key!r} was refused (still waiting): "
                            f"{exc}") from None
        del self._waiting[key]  # kept if the label was refused: it can be given again

    def forget(self, key: Hashable) -> None:
        """Drop the forecast made under ``key`` (its label will never come)."""
        _check_key(key)
        if self._waiting.pop(key, None) is None:
            raise ValueError(f"no forecast is waiting for key {key!r}")


def _check_key(key) -> None:
    """Refuse a key that cannot be found again: one that is not hashable (a numpy array)."""
    try:
        hash(key)
    except TypeError:
        raise TypeError(f"key must be hashable (a str, a number, a tuple, ...); got "
                        f"{type(key).__name__}") from None


def _has_nan(key) -> bool:
    """Whether ``key`` is or holds a NaN (``(nan,)`` equals only the very same tuple)."""
    if isinstance(key, (tuple, frozenset)):
        return any(_has_nan(k) for k in key)
    return key != key
