"""Baseline calibrators the papers compare Venn-Abers predictors with.

Platt scaling, isotonic regression (including the papers' direct isotonic
regression, DIR), histogram binning and Bayesian binning into quantiles (BBQ),
all score-level calibrators fitted from the score summary.
"""

from .bbq import BBQCalibrator
from .histogram import HistogramBinningCalibrator
from .isotonic import IsotonicCalibrator, isotonic_regression
from .platt import PlattCalibrator
from .quantized import QuantizedIsotonicCalibrator

__all__ = [
    "BBQCalibrator",
    "HistogramBinningCalibrator",
    "IsotonicCalibrator",
    "PlattCalibrator",
    "QuantizedIsotonicCalibrator",
    "isotonic_regression",
]
