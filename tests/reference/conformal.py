"""Literal twins of :mod:`venncal._kernels.conformal`, in plain Python.

* :func:`uniforms`: the counter-based ``U_n`` with Python integers mod ``2**64``.
* :func:`pvalues_naive`: the definition, ``O(n^2)``: every nonconformity score
  recomputed at every step (the two-sided median distances as exact fractions).
* :func:`pvalues_sorted`: the same counts from a sorted list (``bisect``), ``O(n)``
  a step in C: fast enough for ``10^5`` steps.
* :func:`martingale`: the Jumpers in natural-log space, capital by capital
  (``log C_eps``, log-sum-exp), averaged over the rates, with the factors
  ``log10(S_n / S_{n-1})`` taken from the capitals' sums.
"""

from __future__ import annotations

import bisect
import math
from fractions import Fraction

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


def _mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def uniforms(seed: int, first: int, n: int) -> list[float]:
    key = _mix64(seed & _MASK)
    return [(_mix64((key + (first + i) * _GAMMA) & _MASK) >> 11) / 2.0**53 for i in range(n)]


def _nonconformity(bag: list, z, kind: str):
    if kind == "high":
        return Fraction(z)
    if kind == "low":
        return -Fraction(z)
    med = sorted(bag)[(len(bag) - 1) // 2]
    return abs(Fraction(z) - Fraction(med))


def pvalues_naive(scores, kind: str = "high", seed: int = 0) -> list[float]:
    """``p_n = (#{i <= n: a_i > a_n} + U_n #{i <= n: a_i = a_n}) / n``, literally."""
    u = uniforms(seed, 1, len(scores))
    out = []
    for n in range(1, len(scores) + 1):
        bag = [float(v) for v in scores[:n]]
        a = [_nonconformity(bag, v, kind) for v in bag]
        gt = sum(1 for ai in a if ai > a[-1])
        eq = sum(1 for ai in a if ai == a[-1])
        out.append((gt + u[n - 1] * eq) / n)
    return out


def pvalues_sorted(scores, kind: str = "high", seed: int = 0) -> list[float]:
    """The same counts from a sorted list of the bag (two-sided: exact reflection 2m - z)."""
    u = uniforms(seed, 1, len(scores))
    bag: list[float] = []
    out = []
    for n, z in enumerate((float(v) for v in scores), start=1):
        bisect.insort(bag, z)
        below = bisect.bisect_left(bag, z)
        eq = bisect.bisect_right(bag, z) - below
        above = n - below - eq
        if kind == "high":
            gt = above
        elif kind == "low":
            gt = below
        else:
            med = bag[(n - 1) // 2]
            c = 2 * Fraction(med) - Fraction(z)  # the reflection of z about the median
            c_lo = bisect.bisect_left(bag, c)
            c_eq = bisect.bisect_right(bag, c) - c_lo
            if z > med:
                gt = above + c_lo
            elif z < med:
                gt = below + (n - c_lo - c_eq)
            else:
                gt = n - eq
            if z != med:
                eq += c_eq
        out.append((gt + u[n - 1] * eq) / n)
    return out


def _logsumexp(xs):
    top = max(xs)
    return top + math.log(sum(math.exp(x - top) for x in xs))


def martingale(pvalues, eps, rates):
    """``(log10 S_n, log10 S_n / S_{n-1})`` of the Jumpers over ``f_eps(p) = 1 + eps (p - 1/2)``."""
    K, R = len(eps), len(rates)
    logc = [[-math.log(K)] * K for _ in range(R)]  # log C_eps per rate, C = 1 at the start
    path, factors = [], []
    for p in pvalues:
        before = [_logsumexp(row) for row in logc]
        grow = []
        for r, J in enumerate(rates):
            total = before[r]
            mixed = [
                _logsumexp([math.log1p(-J) + lc, math.log(J / K) + total]) if J < 1
                else math.log(1.0 / K) + total
                for lc in logc[r]
            ]
            logc[r] = [m + math.log(1 + e * (p - 0.5)) for m, e in zip(mixed, eps)]
            grow.append(_logsumexp(logc[r]) - _logsumexp(mixed))
        after = [_logsumexp(row) for row in logc]
        path.append((_logsumexp(after) - math.log(R)) / math.log(10))
        top = max(before)
        share = [math.exp(b - top) for b in before]
        factors.append(math.log10(sum(s * math.exp(g) for s, g in zip(share, grow)) / sum(share)))
    return path, factors
