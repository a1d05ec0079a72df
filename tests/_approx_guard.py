"""A guard against ``pytest.approx``'s hidden absolute tolerance.

``pytest.approx(x, rel=r)`` also accepts anything within ``abs=1e-12`` of ``x`` unless ``abs`` is
given, so a comparison of values far below 1e-12 (forecasts near 1e-310, statistics near
1e-160) passes whatever the value is (issue 22's edge tests).  :func:`install` replaces
``pytest.approx`` by a wrapper that refuses, naming the expected value, a call without an
explicit ``abs`` whose expected value holds a nonzero finite number ``e`` with
``max(rel, 1e-6) * |e| < 1e-12``: there the hidden ``abs`` accepts relative errors above 1e-6
that the test never asked for (with the default ``rel``: any ``e`` below 1e-6 in magnitude).
Give ``abs=0.0`` (with the ``rel`` meant) or a justified absolute tolerance instead.

Not refused, but also loosened: a ``rel`` below 1e-12 on values near 1 (``rel=1e-15`` at 0.07
is really 1.3e-11); write ``abs=0.0`` there too when the ``rel`` is meant.

Expected values of 0 are left alone (there the absolute tolerance is the only one).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pytest

#: pytest's default absolute and relative tolerances of ``approx``.
HIDDEN_ABS = 1e-12
DEFAULT_REL = 1e-6


def _numbers(expected):
    """The real numbers inside ``expected`` (scalars, arrays, mappings, sequences), as floats."""
    if isinstance(expected, (bool, np.bool_)):
        return
    if isinstance(expected, (int, float, np.integer, np.floating)):
        yield float(expected)
    elif isinstance(expected, np.ndarray):
        if expected.dtype.kind in "iuf":
            yield from expected.astype(float).ravel().tolist()
    elif isinstance(expected, Mapping):
        for value in expected.values():
            yield from _numbers(value)
    elif isinstance(expected, (list, tuple)):
        for value in expected:
            yield from _numbers(value)


def smallest_loosened(expected, rel=None):
    """The nonzero finite number of ``expected`` with the smallest magnitude whose tolerance
    ``max(rel, 1e-6) * |e|`` falls below the hidden absolute one, or None if there is none."""
    r = max(DEFAULT_REL, 0.0 if rel is None else float(rel))
    worst = None
    for e in _numbers(expected):
        if e != 0 and math.isfinite(e) and r * abs(e) < HIDDEN_ABS:
            if worst is None or abs(e) < abs(worst):
                worst = e
    return worst


def checked_approx(original):
    """``original`` (pytest.approx) refusing a call the hidden ``abs=1e-12`` would loosen."""

    def approx(expected, rel=None, abs=None, nan_ok=False):
        if abs is None:
            worst = smallest_loosened(expected, rel)
            if worst is not None:
                raise AssertionError(
                    f"pytest.approx({worst!r}, rel={rel!r}) without abs=: the hidden abs=1e-12 "
                    f"exceeds a 1e-6 relative tolerance, so the test accepts values far from "
                    f"{worst!r}; pass abs=0.0 (or a justified absolute tolerance)"
                )
        return original(expected, rel=rel, abs=abs, nan_ok=nan_ok)

    approx.__wrapped__ = original
    approx.__doc__ = original.__doc__
    return approx


def install():
    """Replace ``pytest.approx`` by the checked wrapper (idempotent)."""
    if not hasattr(pytest.approx, "__wrapped__"):
        pytest.approx = checked_approx(pytest.approx)
