"""Parametric calibrators: temperature scaling of K class scores; Beta calibration and
quadratic logistic calibration of binary scores.

See docs/parametric.md for the objectives, the solvers and their tolerances.
"""

from ._beta import BetaCalibrator
from ._quadratic import QuadraticLogisticCalibrator
from ._temperature import TemperatureCalibrator

__all__ = ["BetaCalibrator", "QuadraticLogisticCalibrator", "TemperatureCalibrator"]
