"""Error-free transformation of a sum: the one double-double helper of venncal.

``two_sum(a, b)`` returns ``(s, e)`` with ``s = fl(a + b)`` and ``s + e == a + b``
exactly (Knuth's TwoSum: six flops, no branch, valid in round-to-nearest
whatever the order of magnitude of ``a`` and ``b``, barring overflow).  A
difference ``a - b`` is ``two_sum(a, -b)``: negation is exact and rounding is
symmetric, so this is also the exact error-free difference.

The function is plain arithmetic, so the same source serves two callers:
``two_sum`` itself works elementwise on numpy arrays (the vectorised code of
:mod:`venncal.baselines.isotonic`), and ``two_sum_jit`` is the same function
compiled for the kernels (numba inlines it; no call overhead in the loops).
"""

from __future__ import annotations

from ._jit import jit

__all__ = ["two_sum", "two_sum_jit"]


def two_sum(a, b):
    """Return ``(s, e)``: ``s = fl(a + b)`` and ``s + e == a + b`` exactly.

    Works on floats and, elementwise, on float64 arrays.

    Examples
    --------
    >>> two_sum(1.0, 2.0**-60)
    (1.0, 8.673617379884035e-19)
    """
    s = a + b
    bb = s - a  # the part of b that made it into s
    return s, (a - (s - bb)) + (b - bb)


two_sum_jit = jit(two_sum)
