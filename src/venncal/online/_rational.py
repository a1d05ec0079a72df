"""Split points as fractions, for the dense tree's exact integer arithmetic.

The package puts a mean ``p / q`` on the higher of two levels ``L0 < L1``
when it exceeds their midpoint ``u = (L0 + L1) / 2`` in exact arithmetic (a
mean exactly at ``u`` goes to the lower level).  Among the fractions whose
denominator is at most ``D``, let ``lo <= u < hi`` be the two that enclose
``u`` (neighbours in the Farey sequence of order ``D``).  For every such
fraction, ``p / q > u`` exactly when ``p / q > lo``; so with ``lo = P / Q``
the test becomes the sign of the integer ``p Q - q P`` whenever the total
weight ``q`` of the data is at most ``D``.  For evenly spaced levels ``lo``
is usually the exact midpoint ``(2j + 1) / (2 (K - 1))``.  (Without the
levels, ``u`` is the midpoint between a split point and the next float: the
boundary of the rounded mean ``fl(p / q)``.)
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["WEIGHT_BOUND", "split_fractions"]

WEIGHT_BOUND = 2**26  # D: total weight up to which the fractions are valid (D * Q < 2**53)


def _farey_below(u: Fraction, bound: int) -> tuple[int, int]:
    """Return ``(P, Q)``: the largest fraction ``P / Q <= u`` with ``Q <= bound`` (``0 <= u <= 1``).

    Walks the Stern-Brocot tree towards ``u``, taking each run of steps in
    one direction at once (O(log bound) runs).
    """
    a, b, c, d = 0, 1, 1, 1  # lo = a/b <= u <= c/d = hi
    if u == 1:
        return 1, 1
    while b + d <= bound:
        if Fraction(a + c, b + d) <= u:  # lo moves right: (a + k c) / (b + k d) <= u
            k = (u * b - a) / (c - u * d) if c != u * d else bound
            k = min(int(k), (bound - b) // d)
            a, b = a + k * c, b + k * d
        else:  # hi moves left while (c + k a) / (d + k b) > u
            num, den = c - u * d, u * b - a
            k = bound if den == 0 else int(num / den) - (1 if num % den == 0 else 0)
            k = min(max(k, 1), (bound - d) // b)
            c, d = c + k * a, d + k * b
    return a, b


def split_fractions(splits: np.ndarray, bound: int = WEIGHT_BOUND, levels=None):
    """Return ``(Q, P)``, float64 arrays of the fractions ``P[j] / Q[j]`` of the split points, or None.

    With ``levels`` (shape (K,), the split points' levels), each fraction
    decides as the exact midpoint of two levels does; without, as the split
    point does to a rounded mean.  None when a split point lies outside
    ``(0, 1)``, where the dense tree is not used.

    Examples
    --------
    >>> q, p = split_fractions(np.array([0.25, 0.75]))
    >>> q, p
    (array([4., 4.]), array([1., 3.]))
    """
    if splits.shape[0] == 0 or not (splits[0] > 0.0 and splits[-1] < 1.0):
        return None
    Q = np.empty(splits.shape[0])
    P = np.empty(splits.shape[0])
    for j, s in enumerate(splits.tolist()):
        if levels is None:
            u = (Fraction(s) + Fraction(float(np.nextafter(s, np.inf)))) / 2
        else:
            u = (Fraction(float(levels[j])) + Fraction(float(levels[j + 1]))) / 2
        P[j], Q[j] = _farey_below(u, bound)
    return Q, P
