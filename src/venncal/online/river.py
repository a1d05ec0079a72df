"""River adapter: any River classifier, protected online by the Jumper (Vovk, Petej & Gammerman 2021).

Needs the optional dependency River (``pip install "venncal[river]"``).
:class:`ProtectedRiverClassifier` is itself a River classifier, so it composes
with River's pipelines and evaluation (``river.evaluate.progressive_val_score``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

try:
    from river import base
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError('venncal.online.river needs River: pip install "venncal[river]"') from exc

from .families import CalibratingFamily
from .jumper import JumperPredictor, MeanJumper

__all__ = ["ProtectedRiverClassifier"]


class ProtectedRiverClassifier(base.Classifier):
    """A River binary classifier whose probabilities are protected by the Jumper.

    ``predict_proba_one(x)`` returns the Jumper's protected forecast ``p'`` of
    the model's probability ``p`` for ``x``; ``learn_one(x, y)`` first lets the
    Jumper learn from ``(p, y)`` (the forecast made before ``y`` was seen),
    then the model learn from ``(x, y)``.  Both learn online, from the same
    stream.

    Parameters
    ----------
    model : river.base.Classifier
        The base classifier (a pipeline is fine), binary.
    family : CalibratingFamily, default=None
        The calibrating functions; ``None`` means ``quadratic()``.
    jump_rate : float in (0, 1] or sequence of float, default=0.01
        The Jumper's rate; a sequence runs the Mean Jumper over those rates.
    clip : (float, float), default=None
        Clip the model's probabilities to ``[low, high]`` first; needed when
        it can say 0 or 1 (e.g. a Hoeffding tree), since a certain forecast that
        is wrong has infinite log loss.
    classes : (label, label), default=None
        The two labels, ``[negative, positive]``.  Without it, labels are
        learned from the stream (booleans need no naming) and the larger is
        the positive class; until both have been seen, forecasts pass
        through unchanged and only the model learns.

    Attributes
    ----------
    jumper : JumperPredictor or MeanJumper
        The Jumper over the steps seen (``log10_value``, ``alarm(alpha)``).

    Examples
    --------
    >>> from river import linear_model
    >>> from venncal.online.river import ProtectedRiverClassifier
    >>> model = ProtectedRiverClassifier(linear_model.LogisticRegression(), clip=(0.01, 0.99))
    >>> stream = [({"x": 1.0}, True), ({"x": -1.0}, False)] * 200
    >>> for x, y in stream:
    ...     p = model.predict_proba_one(x)   # protected, before y is seen
    ...     model.learn_one(x, y)
    >>> sorted(model.predict_proba_one({"x": 1.0}))
    [False, True]
    >>> model.predict_one({"x": 1.0})
    True
    >>> model.jumper.n_seen_
    400
    """

    def __init__(
        self,
        model: base.Classifier,
        family: CalibratingFamily | None = None,
        jump_rate: float | Sequence[float] = 0.01,
        clip: tuple[float, float] | None = None,
        classes: Sequence | None = None,
    ):
        self.model = model
        self.family = family
        self.jump_rate = jump_rate
        self.clip = clip
        self.classes = classes
        kwargs: dict[str, Any] = {"clip": clip, "classes": [False, True]}
        if np.ndim(jump_rate) == 0:  # any real scalar (numpy's too), checked by the Jumper
            self.jumper = JumperPredictor(family, jump_rate, **kwargs)
        else:
            self.jumper = MeanJumper(family, tuple(jump_rate), **kwargs)
        self._labels = None if classes is None else list(classes)
        if self._labels is not None and (
            len(self._labels) != 2 or self._labels[0] == self._labels[1]
        ):
            raise ValueError(f"classes must be two distinct labels; got {classes!r}")

    @property
    def _multiclass(self) -> bool:
        return False

    @classmethod
    def _unit_test_params(cls):
        from river import linear_model

        yield {"model": linear_model.LogisticRegression(), "clip": (0.01, 0.99)}

    def _note_label(self, y) -> None:
        if self._labels is not None:
            return
        if isinstance(y, bool):
            self._labels = [False, True]
            return
        seen = getattr(self, "_seen", [])
        if y not in seen:
            seen = [*seen, y]
        self._seen = seen
        if len(seen) == 2:  # later labels are checked against these two by learn_one
            try:
                self._labels = sorted(seen)
            except TypeError:
                raise TypeError(
                    f"the labels {seen[0]!r} and {seen[1]!r} cannot be ordered (one is "
                    f"{type(seen[0]).__name__}, the other {type(seen[1]).__name__}); give "
                    "labels of one type"
                ) from None

    def _base_proba(self, x: dict) -> float:
        """Return the model's probability of the positive class (0.5 before it has one)."""
        neg, pos = self._labels
        proba = self.model.predict_proba_one(x)
        if pos in proba:
            value = float(proba[pos])
        elif neg in proba:
            q = float(proba[neg])
            value = 1.0 - q
            if value == 1.0 and q > 0.0:  # not certainty, but float64 cannot tell it apart
                raise ValueError(
                    f"the model's probability of {neg!r} for this x is {q!r}, below 2**-53: "
                    f"its probability of {pos!r}, 1 - {q!r}, rounds to 1.0 in float64, and "
                    f"the Jumper, whose forecasts are probabilities of {pos!r}, would take it "
                    f"for certainty (probability 0 for {neg!r}); keep the model's "
                    "probabilities at least 2**-53 from 0 and 1 (clip them)"
                )
        else:
            return 0.5
        if not 0.0 <= value <= 1.0:  # NaN included
            raise ValueError(
                f"the model's probability of {pos!r} for this x is {value!r}, not a "
                "probability in [0, 1] (a NaN or infinite feature?); the Jumper needs one"
            )
        return value

    def learn_one(self, x: dict, y) -> None:
        """Let the Jumper learn from the model's forecast for ``x``, then the model from ``(x, y)``."""
        self._note_label(y)
        if self._labels is not None:
            if y not in self._labels:
                raise ValueError(f"label {y!r} is not one of the two classes {self._labels!r}")
            self.jumper.learn_one(self._base_proba(x), y == self._labels[1])
        self.model.learn_one(x, y)

    def predict_proba_one(self, x: dict) -> dict:
        """Return the protected probabilities ``{label: probability}`` for ``x``."""
        if self._labels is None:
            return self.model.predict_proba_one(x)
        # The Jumper's own single call (its classes are False, True: in that order).
        negative, positive = self.jumper.predict_proba_one(self._base_proba(x)).values()
        neg, pos = self._labels
        return {neg: negative, pos: positive}
