"""The one contract of venncal's online calibrators, in River's style.

Every online object of :mod:`venncal.online` learns from a stream of
``(x, y)`` pairs, where ``x`` is a score or a base forecast and ``y`` a label,
and forecasts the probabilities of the two classes:

===========================================  ==========================================
``learn_one(x, y, sample_weight=1.0)``       learn one step; returns None (as in River)
``learn_many(x, y, sample_weight=None)``     learn a batch, in order; returns None
``predict_proba_one(x)``                     ``{classes_[0]: 1 - p, classes_[1]: p}``
``predict_proba_many(x)``                    ndarray of shape ``(n, 2)``, rows sum to 1
``reset()``                                  forget the stream (the parameters stay)
``clone()``                                  a fresh object with the same parameters
``get_params()``                             the constructor's parameters, as given
===========================================  ==========================================

``learn_many`` is ``learn_one`` repeated, and ``predict_proba_many`` is
``predict_proba_one`` repeated, bit for bit; predictions never learn.  An
object pickles (and deep-copies) mid-stream and resumes exactly.  Bad input
raises ``ValueError`` or ``TypeError`` naming the input and the rule, and
leaves the object as it was.  ``sample_weight`` holds frequency weights, as
everywhere in venncal (a row of weight 0 is dropped); an object whose steps
cannot be weighted says which weights it takes.

:class:`OnlineCalibrator` implements ``learn_one``, ``predict_proba_one``,
``get_params``, ``clone`` and ``__repr__`` from three methods a subclass
supplies: ``learn_many``, ``predict_proba_many`` and ``reset``.  It also
holds River's hook for the contract test (``tests/test_online_contract.py``):
``_unit_test_params`` (the parameters to test an object with) and
``_unit_test_stream`` (a stream it accepts).
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = ["OnlineCalibrator", "unit_weight"]


class OnlineCalibrator(ABC):
    """Base of the online calibrators: one vocabulary for learning and predicting.

    Subclasses implement :meth:`learn_many`, :meth:`predict_proba_many` and
    :meth:`reset`, store their constructor's arguments under the same names
    (``get_params`` reads them from the signature) and keep the class labels,
    once known, in ``classes_`` (``[negative, positive]``; keys of
    :meth:`predict_proba_one`, 0 and 1 until then).
    """

    classes_: np.ndarray | None = None

    # -- what a subclass supplies -------------------------------------------------

    @abstractmethod
    def learn_many(self, x, y, sample_weight=None) -> None:
        """Learn the steps ``(x[i], y[i])`` in order.

        Parameters
        ----------
        x : array-like of shape (n,)
            Scores or base forecasts.
        y : array-like of shape (n,)
            Their labels.
        sample_weight : array-like of shape (n,), default=None
            Frequency weights (None: all 1); a row of weight 0 is dropped.
        """

    @abstractmethod
    def predict_proba_many(self, x) -> np.ndarray:
        """Return the probabilities of ``classes_`` at each ``x``, shape ``(n, 2)``; no learning."""

    @abstractmethod
    def reset(self) -> None:
        """Forget the stream: the object is then as it was when made."""

    # -- derived --------------------------------------------------------------------

    def learn_one(self, x, y, sample_weight=1.0) -> None:
        """Learn one step ``(x, y)``: ``learn_many([x], [y], [sample_weight])``."""
        self.learn_many([x], [y], None if unit_weight(sample_weight) else [sample_weight])

    def predict_proba_one(self, x) -> dict:
        """Return ``{label: probability}`` for the two classes at ``x`` (no learning)."""
        row = self.predict_proba_many([x])[0]
        negative, positive = self._class_keys()
        return {negative: float(row[0]), positive: float(row[1])}

    def _class_keys(self) -> tuple:
        return (0, 1) if self.classes_ is None else tuple(self.classes_.tolist())

    def get_params(self) -> dict[str, Any]:
        """Return the constructor's parameters, as given."""
        names = inspect.signature(type(self).__init__).parameters
        return {name: getattr(self, name) for name in names if name != "self"}

    def clone(self):
        """Return a fresh object with the same parameters and no data seen."""
        return type(self)(**self.get_params())

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    # -- River's hooks for the contract test ----------------------------------------

    @classmethod
    def _unit_test_params(cls) -> Iterator[dict[str, Any]]:
        """Yield the parameters the contract test makes objects with."""
        yield {}

    @classmethod
    def _unit_test_stream(cls, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """Return a stream ``(x, y01)`` of ``n`` steps the object accepts (labels 0/1)."""
        rng = np.random.default_rng(seed)
        x = rng.uniform(0.02, 0.98, n)
        return x, (rng.random(n) < x).astype(np.int64)


def unit_weight(value) -> bool:
    """True for the weight 1 given as a plain number (the common case of ``learn_one``)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and value == 1
