"""Online calibration of a stream of forecasts, in the style of River.

Objects follow one contract (:class:`OnlineCalibrator`): they take one step at
a time (``learn_one(x, y, sample_weight=1.0)``, ``predict_proba_one(x)`` ->
``{class: p}``) or a batch (``learn_many(x, y, sample_weight=None)``,
``predict_proba_many(x)`` -> shape ``(n, 2)``), ``reset()``, ``clone()`` and
pickle with their state; the Jumpers also run a whole recorded stream in one
compiled call (``run(p, y)``, returning the trajectories).

- :class:`JumperMartingale`, :class:`JumperPredictor`, :class:`MeanJumper`:
  Vovk, Petej & Gammerman 2021 (adaptive calibration: test martingales against, and online
  protection of, a deployed model's probabilities).
- Calibrating families for them: :func:`quadratic`, :func:`cubic`,
  :func:`cox`, :func:`cox2`, :func:`family` for the user's own functions,
  :func:`union` (or ``+``) of families, and :func:`named` (e.g. ``"shift+confidence"``).
- :func:`detect_changes`: CUSUM, Shiryaev-Roberts and Ville change points over a
  martingale's betting factors (:func:`log10_factors`), with restarts.
- :class:`ProtectedClassifier`: a scikit-learn classifier whose probabilities
  are protected by the Jumper over a labelled stream (imports scikit-learn
  when first used).
- :class:`QuantizedIsotonic`, :class:`OrderedQuantizedIsotonic`: Gokcesu & Gokcesu 2022
  (sequential quantized isotonic regression: inserts, deletes, sliding windows).
- :class:`ConformalMartingale` (:mod:`venncal.online.conformal`): label-free monitoring, a
  conformal test martingale over the scores alone (no labels): ``learn_one(score)``,
  ``learn_many(scores)``, ``run(scores)`` -> :class:`ConformalResult`.

Examples
--------
>>> from venncal.online import JumperMartingale, quadratic
>>> mart = JumperMartingale(quadratic(), jump_rate=0.01, clip=(0.1, 0.9))
>>> for p, y in [(0.3, 1), (0.2, 1), (0.6, 1)]:
...     mart.learn_one(p, y)
>>> round(mart.log10_value, 4)
0.1967
"""

from ._base import OnlineCalibrator
from ._state import JumperResult
from .changepoint import ChangePoints, detect_changes, log10_factors
from .conformal import ConformalMartingale, ConformalResult
from .families import CalibratingFamily, cox, cox2, cubic, family, named, quadratic, union
from .jumper import JumperMartingale, JumperPredictor, MeanJumper
from .pending import Pending
from .quantized import OrderedQuantizedIsotonic, QuantizedIsotonic

__all__ = [
    "CalibratingFamily",
    "ChangePoints",
    "ConformalMartingale",
    "ConformalResult",
    "JumperMartingale",
    "JumperPredictor",
    "JumperResult",
    "MeanJumper",
    "OnlineCalibrator",
    "OrderedQuantizedIsotonic",
    "Pending",
    "ProtectedClassifier",
    "QuantizedIsotonic",
    "cox",
    "cox2",
    "cubic",
    "detect_changes",
    "family",
    "log10_factors",
    "named",
    "quadratic",
    "union",
]


def __getattr__(name: str):
    # scikit-learn is imported only by the estimator, when it is first asked for.
    if name == "ProtectedClassifier":
        from .protected import ProtectedClassifier

        return ProtectedClassifier
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
