"""Parametric calibrators: temperature, vector, matrix and structured scaling of K class
scores; Beta calibration and quadratic logistic calibration of binary scores.

See docs/parametric.md for the objectives, the solvers and their tolerances.
"""

from ._beta import BetaCalibrator
from ._quadratic import QuadraticLogisticCalibrator
from ._matrix import MatrixScalingCalibrator
from ._structured import StructuredMatrixScalingCalibrator
from ._temperature import TemperatureCalibrator
from ._vector import VectorScalingCalibrator

__all__ = [
    "BetaCalibrator",
    "MatrixScalingCalibrator",
    "QuadraticLogisticCalibrator",
    "StructuredMatrixScalingCalibrator",
    "TemperatureCalibrator",
    "VectorScalingCalibrator",
]
