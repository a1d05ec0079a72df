"""scikit-learn classifiers that calibrate any base estimator.

Every wrapper fits its base estimator (once per fold) and calibrates the
scores with a score-level calibrator of :mod:`venncal.venn_abers` or
:mod:`venncal.baselines`:

- :class:`VennAbersClassifier`: IVAP, CVAP (the estimator-level route to the
  cross Venn-Abers predictor) or SVA;
- :class:`FullVennAbersClassifier`: the full Venn-Abers predictor (refits
  per test object);
- :class:`CalibratedClassifier`: any registered method per fold, in the
  spirit of scikit-learn's ``CalibratedClassifierCV``.
"""

from ._calibrated import CalibratedClassifier
from ._full import FullVennAbersClassifier
from ._venn_abers import VennAbersClassifier

__all__ = ["CalibratedClassifier", "FullVennAbersClassifier", "VennAbersClassifier"]
