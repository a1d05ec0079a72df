"""ENIR: nearly-isotonic regression paths and their Bayesian ensemble (Naeini & Cooper 2016)."""

from .calibrator import ENIRCalibrator
from .path import NearIsotonicPath, near_isotonic_path

__all__ = ["ENIRCalibrator", "NearIsotonicPath", "near_isotonic_path"]
