"""venncal: exact, fast probability calibration for binary classifiers.

The score-level calibrators fit on scores and labels (no model inside); the
estimator wrappers are scikit-learn classifiers around any base estimator.
"""

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
    "CrossVennAbersCalibrator",
    "FullVennAbersClassifier",
    "ScoreSummary",
    "VennAbersCalibrator",
    "VennAbersClassifier",
    "__version__",
    "brier_minimax",
    "log_minimax",
    "merge_folds",
]
