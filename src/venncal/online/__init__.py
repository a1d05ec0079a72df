"""Online calibration of a stream of forecasts, in the style of River.

Objects take one step at a time (``learn_one(p, y)``, ``predict_proba_one(p)``),
a batch (``learn_many``, ``predict_proba_many``), or a whole recorded stream in
one compiled call (``run(p, y)``, returning the trajectories), and pickle with
their state.

- :class:`JumperMartingale`, :class:`JumperPredictor`, :class:`MeanJumper`:
  paper 002 (adaptive calibration: test martingales against, and online
  protection of, a deployed model's probabilities).
- Calibrating families for them: :func:`quadratic`, :func:`cubic`,
  :func:`cox`, :func:`cox2`, and :func:`family` for the user's own functions.
- :class:`QuantizedIsotonic`, :class:`OrderedQuantizedIsotonic`: paper 003
  (sequential quantized isotonic regression: inserts, deletes, sliding windows).

Examples
--------
>>> from venncal.online import JumperMartingale, quadratic
>>> mart = JumperMartingale(quadratic(), jump_rate=0.01, clip=(0.1, 0.9))
>>> for p, y in [(0.3, 1), (0.2, 1), (0.6, 1)]:
...     mart.learn_one(p, y)
>>> round(mart.log10_value, 4)
0.1967
"""

from ._state import JumperResult
from .families import CalibratingFamily, cox, cox2, cubic, family, quadratic
from .jumper import JumperMartingale, JumperPredictor, MeanJumper
from .quantized import OrderedQuantizedIsotonic, QuantizedIsotonic

__all__ = [
    "CalibratingFamily",
    "JumperMartingale",
    "JumperPredictor",
    "JumperResult",
    "MeanJumper",
    "OrderedQuantizedIsotonic",
    "QuantizedIsotonic",
    "cox",
    "cox2",
    "cubic",
    "family",
    "quadratic",
]
