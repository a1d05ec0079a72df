"""Slow, literal twin of :mod:`venncal._kernels.radix`: a stable sort by value.

Python's ``sorted`` is stable; the key orders doubles as numbers, with
``-0.0`` just below ``0.0`` (its sign breaks the tie), as the kernel's keys do.
"""

from __future__ import annotations

import math

import numpy as np


def _key(v: float):
    return (v, math.copysign(1.0, v))


def sort_with_payload_by_definition(x, payload):
    """Return ``(x, payload)`` sorted by ``x`` ascending, stably; ``-0.0`` before ``0.0``."""
    xs = [float(v) for v in x]
    ps = [float(v) for v in payload]
    order = sorted(range(len(xs)), key=lambda i: _key(xs[i]))  # stable
    return (np.array([xs[i] for i in order], dtype=np.float64),
            np.array([ps[i] for i in order], dtype=np.float64))
