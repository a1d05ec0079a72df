"""The look-up caches of a fitted multiclass Venn-Abers model: what makes them stale.

:meth:`MulticlassCalibrator._ivap_tables` lays every binary calibrator's
tables end to end once and keeps them in the model's ``__dict__`` (not
pickled or saved); they are valid while the calibrators and their fitted
arrays are the same objects.
"""

from __future__ import annotations

__all__ = ["CACHES", "fit_key", "same_fit"]

CACHES = ("_tables", "_q0_tables")


def fit_key(cals) -> tuple:
    """What the look-up caches depend on: each calibrator and its fitted arrays, by identity.

    A pair calibrator refitted in place (same object, new arrays) or a
    changed ``merge`` makes the caches stale (attack 15 note).
    """
    return tuple((cal, getattr(cal, "scores_", None), getattr(cal, "p0_", None),
                  getattr(cal, "p1_", None), getattr(cal, "q0_", None),
                  getattr(cal, "merge", None)) for cal in cals)


def same_fit(key: tuple, cals) -> bool:
    """Whether ``key`` (:func:`fit_key`) still describes ``cals``."""
    return len(key) == len(cals) and all(
        a is b or (isinstance(a, str) and a == b)
        for old, new in zip(key, fit_key(cals), strict=True)
        for a, b in zip(old, new, strict=True)
    )
