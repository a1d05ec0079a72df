"""venncal: exact, fast probability calibration for binary classifiers.

The score-level calibrators fit on scores and labels (no model inside); the
estimator wrappers are scikit-learn classifiers around any base estimator.
"""

from . import persist
from .baselines import (
    BBQCalibrator,
    HistogramBinningCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
    QuantizedIsotonicCalibrator,
)
from .calibrated import CalibratedClassifier
from .persist import load, save
from .summary import ScoreSummary
from .venn_abers import (
    CrossVennAbersCalibrator,
    FullVennAbersClassifier,
    VennAbersCalibrator,
    VennAbersClassifier,
    brier_minimax,
    log_minimax,
    merge_folds,
)

__version__ = "0.1.0"

__all__ = [
    "BBQCalibrator",
    "CalibratedClassifier",
    "CrossVennAbersCalibrator",
    "FullVennAbersClassifier",
    "HistogramBinningCalibrator",
    "IsotonicCalibrator",
    "PlattCalibrator",
    "QuantizedIsotonicCalibrator",
    "ScoreSummary",
    "VennAbersCalibrator",
    "VennAbersClassifier",
    "__version__",
    "brier_minimax",
    "load",
    "log_minimax",
    "merge_folds",
    "persist",
    "save",
]
