"""ENIR: nearly-isotonic regression paths and their Bayesian ensemble (paper 004)."""

from .calibrator import ENIRCalibrator
from .path import NearIsotonicPath, near_isotonic_path

__all__ = ["ENIRCalibrator", "NearIsotonicPath", "near_isotonic_path"]
