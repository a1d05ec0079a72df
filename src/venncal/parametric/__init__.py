"""Parametric calibrators of K class scores: temperature scaling.

See docs/parametric.md for the objectives, the solvers and their tolerances.
"""

from ._temperature import TemperatureCalibrator

__all__ = ["TemperatureCalibrator"]
