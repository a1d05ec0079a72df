"""Multiclass calibration on class scores: one-vs-rest and one-vs-one over any binary calibrator.

See docs/multiclass.md for the binary scores, the couplings and the shapes.
"""

from ._coupling import COUPLINGS, couple
from ._ovo import OneVsOneCalibrator
from ._ovr import OneVsRestCalibrator
from ._scores import SCORE_KINDS

__all__ = ["COUPLINGS", "SCORE_KINDS", "OneVsOneCalibrator", "OneVsRestCalibrator", "couple"]
