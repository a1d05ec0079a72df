"""Score-level Venn-Abers predictors: IVAP, CVAP and the minimax merges.

The scikit-learn wrappers around a base estimator are in :mod:`venncal.estimators`.
"""

from ._calibrator import VennAbersCalibrator
from ._cross import CrossVennAbersCalibrator
from ._merge import brier_minimax, log_minimax, merge_folds

__all__ = [
    "CrossVennAbersCalibrator",
    "VennAbersCalibrator",
    "brier_minimax",
    "log_minimax",
    "merge_folds",
]
