"""ENIR: nearly-isotonic regression paths and their Bayesian ensemble (paper 004)."""

from .path import NearIsotonicPath, near_isotonic_path

__all__ = ["NearIsotonicPath", "near_isotonic_path"]
