"""Parametric calibrators of K class scores: temperature, vector, matrix and structured scaling.

See docs/parametric.md for the objectives, the solvers and their tolerances.
"""

from ._matrix import MatrixScalingCalibrator
from ._structured import StructuredMatrixScalingCalibrator
from ._temperature import TemperatureCalibrator
from ._vector import VectorScalingCalibrator

__all__ = [
    "MatrixScalingCalibrator",
    "StructuredMatrixScalingCalibrator",
    "TemperatureCalibrator",
    "VectorScalingCalibrator",
]
