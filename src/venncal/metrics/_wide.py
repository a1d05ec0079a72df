"""Exact sums of row terms over the whole exponent range of float64, for the calibration tests.

The tests' sums (Spiegelhalter's two, the cumulative path and variance of
KS and Kuiper) are of row terms such as ``w (y - p) (1 - 2p)``.  Formed in
float64, a term whose true value lies below ``2**-1022`` is subnormal and
keeps only the bits above ``2**-1074``: a weight of 1e-310 beside one of
1e300, or a weight of 1 with ``p = 1e-300`` beside a weight of 1.7e308,
lost 1 to 3 % of the statistic.  Here each term is kept as a mantissa and an
exponent, with no bound on the exponent: the signed deviations, whose sums
may cancel, exactly (:func:`exact_terms`: ``y - p`` and ``1 - 2p`` as two
floats each, every product as two; rounded terms of weights 2**100 whose
deviations cancel to 0 gave z = -4.4e6 where the exact z is 5e-24), the
positive variance terms rounded to 53 bits after each multiplication
(:func:`row_terms`), a relative error of a few ulps.  The sums of such terms
(:func:`wide_sums`) are exact, rounded once to 53 bits: by
:func:`venncal._kernels.exact_sum.run_sums` on the terms scaled by one
power of two when their exponents span less than :data:`SPAN` bits (any
data with weights and forecasts in the normal range), by Python integers
otherwise.
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = ["SPAN", "exact_difference", "exact_product_terms", "exact_terms", "normalized",
           "over_root", "row_terms", "wide_sums"]

#: The widest span of exponents summed by one scaling: the largest term is scaled to below
#: 2**955 (so sums of up to 2**45 rows stay below 2**1000) and the smallest stays at or
#: above 2**-1000, a normal float.
SPAN = 1950
_TOP = 955


def row_terms(*factors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The row-wise product of ``factors`` as ``(m, k)``: ``m * 2**k``, ``m`` in [0.5, 1) or 0.

    Multiplied left to right, each product rounded to 53 bits as float64
    rounds it in its normal range (the mantissas' product lies in [0.25, 1):
    never subnormal), whatever the exponents.
    """
    m, k = np.frexp(np.asarray(factors[0], dtype=float))
    k = k.astype(np.int64)
    for f in factors[1:]:
        fm, fk = np.frexp(np.asarray(f, dtype=float))
        m, dk = np.frexp(m * fm)
        k = k + fk + dk
    return m, k


def exact_product_terms(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The exact products ``a * b`` as twice as many terms ``(m, k)`` (a rounded part and its error).

    Dekker's product of the mantissas (each in [0.5, 1), split into 26 and 27
    bits): exact, for any exponents.
    """
    ma, ka = np.frexp(np.asarray(a, dtype=float))
    mb, kb = np.frexp(np.asarray(b, dtype=float))
    hi, lo, k = _mantissa_product(ma, ka, mb, kb)
    return np.concatenate([hi, lo]), np.concatenate([k, k])


def exact_difference(a, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a - b`` exactly, as two floats ``(hi, lo)``: ``hi`` rounded, ``lo`` its error.

    Knuth's two-sum: exact for any finite floats whose difference does not
    overflow (subnormals included).

    Examples
    --------
    >>> hi, lo = exact_difference(1.0, np.array([0.1]))
    >>> float(hi[0]), float(lo[0]) != 0.0
    (0.9, True)
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    hi = a - b
    bb = hi - a
    lo = (a - (hi - bb)) + (-b - bb)
    return hi, lo


def exact_terms(first: np.ndarray,
                *sums: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The row-wise products ``first * (h1 + l1) * (h2 + l2) ...`` exactly, as terms ``(m, k)``.

    Each row's product is the sum of ``T`` terms ``m * 2**k`` (each factor
    multiplies ``T`` by 4, or by 2 when its error parts ``l`` are all 0),
    stored row after row: row ``i``'s terms are ``[i * T, (i + 1) * T)``,
    so that ``T = m.shape[0] // len(first)``.  Exact for any exponents.
    """
    first = np.asarray(first, dtype=float)
    m, k = np.frexp(first)
    terms = [(m, k.astype(np.int64))]
    for hi, lo in sums:
        parts = [np.frexp(np.asarray(part, dtype=float))
                 for part in ((hi, lo) if np.any(lo) else (hi,))]
        grown = []
        for tm, tk in terms:
            for pm, pk in parts:
                a, b, kk = _mantissa_product(tm, tk, pm, pk)
                grown += [normalized(a, kk), normalized(b, kk)]
        terms = grown
    return (np.stack([tm for tm, _ in terms], axis=1).ravel(),
            np.stack([tk for _, tk in terms], axis=1).ravel())


def _mantissa_product(ma, ka, mb, kb):
    """``(hi, lo, k)``: ``(ma * mb) * 2**(ka + kb) == (hi + lo) * 2**k`` exactly (Dekker)."""
    hi = ma * mb
    split = 134217729.0  # 2**27 + 1
    ah = split * ma
    ah = ah - (ah - ma)
    al = ma - ah
    bh = split * mb
    bh = bh - (bh - mb)
    bl = mb - bh
    lo = ((ah * bh - hi) + ah * bl + al * bh) + al * bl
    return hi, lo, (ka + kb).astype(np.int64)


def normalized(values: np.ndarray, exponents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(m, k)`` with ``m * 2**k == values * 2**exponents``, ``m`` in [0.5, 1) or 0."""
    m, dk = np.frexp(values)
    return m, np.asarray(exponents, dtype=np.int64) + dk


def wide_sums(m: np.ndarray, k: np.ndarray, last: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The exact prefix sums of the terms ``m * 2**k`` up to each index of ``last``, each rounded
    once to 53 bits (ties to even), as ``(values, exponents)``: ``values * 2**exponents``.

    The values are normal floats or 0 (a sum's own magnitude does not limit
    its digits).
    """
    m, k = normalized(m, k)
    last = np.asarray(last, dtype=np.int64)
    live = m != 0.0
    if not live.any():
        return np.zeros(last.shape[0]), np.zeros(last.shape[0], dtype=np.int64)
    top, low = int(k[live].max()), int(k[live].min())
    if top - low <= SPAN:
        from .._kernels.exact_sum import run_sums

        shift = top - _TOP
        # every term at or above 2**-996 (normal) and below 2**955: exact sums, and a sum
        # below 2**-1022 is a multiple of the smallest term's last bit: exact too
        sums = run_sums(np.ascontiguousarray(np.ldexp(m, np.where(live, k - shift, 0))), last)
        return normalized(sums, np.full(last.shape[0], shift, dtype=np.int64))
    ints = np.ldexp(m, 53).astype(np.int64).tolist()  # exact: 53-bit mantissas
    shifts = np.where(live, k - low, 0).tolist()
    prefix = list(itertools.accumulate(i << s for i, s in zip(ints, shifts)))
    values, exponents = np.zeros(last.shape[0]), np.zeros(last.shape[0], dtype=np.int64)
    for j, at in enumerate(last.tolist()):
        total = prefix[at]
        if total:
            bits = abs(total).bit_length()
            values[j] = total / (1 << bits)  # int / int: correctly rounded, in [0.5, 1]
            exponents[j] = low - 53 + bits
    return normalized(values, exponents)


def over_root(values: np.ndarray, exponents: np.ndarray, d: float, d_exponent: int) -> np.ndarray:
    """``values * 2**exponents / sqrt(d * 2**d_exponent)`` for ``d > 0``: one division of
    mantissas by a root, rounded as float64 rounds it, then scaled (inf past the float64 range,
    rounded to a subnormal below it)."""
    nm, nk = normalized(np.asarray(values, dtype=float), exponents)
    dm, dk = np.frexp(d)
    odd = int(d_exponent + dk) % 2
    root_exponent = (int(d_exponent + dk) - odd) // 2  # d = (dm * 2**odd) * 4**root_exponent
    with np.errstate(over="ignore", under="ignore"):
        return np.ldexp(nm / np.sqrt(dm * 2.0**odd), nk - root_exponent)
