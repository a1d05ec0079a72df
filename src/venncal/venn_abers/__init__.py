"""Venn-Abers predictors: score-level IVAP, estimator wrappers, merges."""

from ._calibrator import VennAbersCalibrator
from ._classifier import VennAbersClassifier
from ._cross import CrossVennAbersCalibrator
from ._full import FullVennAbersClassifier
from ._merge import brier_minimax, log_minimax, merge_folds

__all__ = [
    "CrossVennAbersCalibrator",
    "FullVennAbersClassifier",
    "VennAbersCalibrator",
    "VennAbersClassifier",
    "brier_minimax",
    "log_minimax",
    "merge_folds",
]
