"""Inductive Venn-Abers tables in exact rational arithmetic (the fallback of :mod:`.ivap`).

For weights whose cumulative sums do not fit in two doubles (spanning more
than about ``2**104``, totals beyond the float64 range): the weights (and
the test observation's 1) are scaled by one power of two to Python integers,
which carry every sum and cross product exactly; each entry is then a
correctly rounded quotient of two integers.  About a microsecond or more per
score, so :func:`venncal._kernels.ivap.ivap_tables` uses it only for such
weights.
"""

from __future__ import annotations

import numpy as np

__all__ = ["exact_ivap_tables", "exact_ivap_tables_full"]


def _as_integers(values, shift):
    # values * 2**shift as Python integers (exact: every double is an integer
    # multiple of 2**-1074, and shift makes the denominators divide out).
    out = []
    for v in values.tolist():
        n, d = float(v).as_integer_ratio()
        out.append((n << shift) // d)
    return out


def _exact_sweep(W, A, flip, one):
    """Algorithms 1-2 (as :func:`.ivap.upper_sweep_into`) on exact integers; ``one`` is the test weight.

    Returns the table and its complement, ``1 - F0`` flipped, ``1 - F1``
    unflipped (each entry a correctly rounded quotient of integers).
    """
    k = len(W)

    def turn(ox, oy, ax, ay, bx, by):  # sign of (A - O) x (B - O)
        c = (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)
        return (c > 0) - (c < 0)

    xs, ys = [-one, 0], [-one, 0]
    X = Y = 0
    for j in range(k):
        jj = k - 1 - j if flip else j
        X += W[jj]
        Y += (W[jj] - A[jj]) if flip else A[jj]
        while len(xs) > 1 and turn(xs[-2], ys[-2], xs[-1], ys[-1], X, Y) <= 0:
            xs.pop()
            ys.pop()
        xs.append(X)
        ys.append(Y)
    xs.reverse()
    ys.reverse()
    out = [0.0] * k
    comp = [0.0] * k
    dy, dx = ys[-2] - ys[-1], xs[-2] - xs[-1]
    X = Y = 0
    for i in range(k):
        ii = k - 1 - i if flip else i
        out[ii] = ((dx - dy) if flip else dy) / dx  # int / int: correctly rounded
        comp[ii] = (dy if flip else dx - dy) / dx
        X += W[ii]
        Y += (W[ii] - A[ii]) if flip else A[ii]
        qx, qy = X - one, Y - one
        if turn(xs[-1], ys[-1], xs[-2], ys[-2], qx, qy) >= 0:
            continue
        xs.pop()
        ys.pop()
        while len(xs) > 1 and turn(qx, qy, xs[-1], ys[-1], xs[-2], ys[-2]) <= 0:
            xs.pop()
            ys.pop()
        xs.append(qx)
        ys.append(qy)
        dy, dx = ys[-2] - qy, xs[-2] - qx
    return np.array(out, dtype=np.float64), np.array(comp, dtype=np.float64)


def exact_ivap_tables(w, a, b=None):
    """``(F0, F1)`` in exact rational arithmetic, each entry correctly rounded."""
    return exact_ivap_tables_full(w, a, b)[:2]


def exact_ivap_tables_full(w, a, b=None):
    """``(F0, F1, 1 - F0, 1 - F1)`` in exact rational arithmetic, each entry correctly rounded.

    The weights (and the test observation's weight 1) are scaled by one
    power of two to integers; Python's integers then carry every sum and
    cross product exactly, whatever the range of the weights.  ``b``, when
    given, is each score's negative weight: the total weight of a score is
    then ``a + b`` exactly (``w`` is not used), else ``w``.
    """
    w = np.ascontiguousarray(w, dtype=np.float64)
    a = np.ascontiguousarray(a, dtype=np.float64)
    other = w if b is None else np.ascontiguousarray(b, dtype=np.float64)  # w, or b itself
    shift = max(
        [0] + [float(v).as_integer_ratio()[1].bit_length() - 1
               for v in (*other.tolist(), *a.tolist())]
    )
    A = _as_integers(a, shift)
    if b is None:
        W = _as_integers(w, shift)
    else:
        W = [x + y for x, y in zip(A, _as_integers(other, shift), strict=True)]
    one = 1 << shift
    F0, Q0 = _exact_sweep(W, A, True, one)
    F1, Q1 = _exact_sweep(W, A, False, one)
    return F0, F1, Q0, Q1
