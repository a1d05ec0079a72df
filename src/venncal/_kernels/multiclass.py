"""Binary scores of the multiclass problems (one-vs-rest, one-vs-one) and their look-up.

Every kernel maps a row of K class scores to the score of one binary problem
with a fixed, documented formula (docs/multiclass.md), so that calibration and
test rows go through exactly the same function:

- ``half_diff(a, b)``: the correctly rounded value of ``(a - b) / 2`` for any
  finite doubles (never infinite: ``|a - b| / 2`` is at most the largest
  double).  ``a - b`` rounded is finite except past the float64 range, where
  both ``|a|``, ``|b|`` exceed ``2**970`` and their halves are exact; below
  ``2**-1021`` the difference is exact and is halved with one rounding.
- one-vs-rest logits: ``half_diff(z_k, lse_k)`` with ``lse_k`` the log-sum-exp
  of the other classes' logits, taken from the row's largest (or, for the
  largest itself, second largest) logit, so that no exponential overflows and
  the sum whose logarithm is taken is at least 1.
- one-vs-one probabilities: ``log(p_j / p_i) / 2`` computed from the exact
  ratio: ``p_j / p_i = 2**E * r`` with ``r`` in [1, 2) the correctly rounded
  ratio of the mantissas, and ``log2`` of the ratio is ``E + log2(r)``.  The
  score depends on the two probabilities only through their exact ratio, is
  exactly antisymmetric (computed for the ratio >= 1 and negated), and is
  ``+-1075 * ln(2) / 2`` when one of the two is 0 (beyond every finite ratio
  of doubles in [0, 1], which lie within ``2**+-1074``), 0 when both are.
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import jit, jit_inline
from .dd import dd_add_jit, dd_exp_jit, two_sum_jit

__all__ = [
    "LN2_HALF",
    "ZERO_RATIO_LOG2",
    "ovr_logit_into",
    "pair_log_ratio_into",
    "pair_half_diff_into",
    "pair_log_ratio_columns",
    "pair_half_diff_columns",
    "ivap_lookup_columns",
    "ivap_proba_columns",
    "normalize_into",
    "price_into",
]

LN2_HALF = math.log(2.0) / 2.0
#: log2 of the ratio given to a pair one of whose probabilities is 0.
ZERO_RATIO_LOG2 = 1075.0


@jit_inline
def _half_diff(a, b):
    d = a - b
    if abs(d) < np.inf:
        return d * 0.5
    return 0.5 * a - 0.5 * b  # |a|, |b| > 2**970: exact halves, one rounding


@jit_inline
def _exp_dd(xh, xl):
    """``exp(xh + xl)`` to about an ulp: ``exp(xh)`` with the first-order term of ``xl``."""
    t = math.exp(xh)
    if t > 0.0:
        t += t * xl
    return t


@jit_inline
def _exp_diff(a, b):
    """``exp(a - b)`` with the rounding of ``a - b`` (up to ``2**-53 |a - b|``) put back.

    ``exp(-41 + 3.5e-15)`` differs from ``exp(-41)`` by 16 ulps: ``a - b``
    rounded moved a small one-vs-rest score by that much (the rest's excess).
    """
    xh, xl = two_sum_jit(a, -b)
    return _exp_dd(xh, xl)


#: Below this, a top class's score ``(d - log(rest)) / 2`` is a cancellation (attack 46 F1):
#: that difference is off by up to about ``8 * 2**-53`` absolute (d, the rest's rounded
#: exponentials, the log), below 1e-13 relative only from here up.  About 1.5 % of the
#: rows of normal logits take the double-double path, 40 times dearer.
_NEAR_TOP = 2.0**-7


@jit_inline
def _top_score_dd(zs, m):
    """Score of the row's strict top class ``m`` from the others ``zs[:-1]``: ``-log1p(E) / 2``.

    ``E = sum_c exp(z_c - m) - 1`` in double-double (each ``z_c - m`` exact by
    TwoSum, its exponential to ``2**-102`` relative, terms below ``exp(-40)``
    plain), so ``E`` is known to an absolute ``K * 2**-105`` or so where ``d -
    log(rest)`` lost everything below ``2**-53``: ``[ln 2, 0, 0]`` scores
    ``-1.16e-17``, not 0.
    """
    eh, el = -1.0, 0.0
    for c in range(zs.shape[0] - 1):
        xh, xl = two_sum_jit(zs[c], -m)
        if xh < -40.0:  # exp(-40) = 4e-18: one rounding costs below 2**-105
            eh, el = dd_add_jit(eh, el, _exp_dd(xh, xl))
        else:
            th, tl = dd_exp_jit(xh, xl)
            eh, el = dd_add_jit(eh, el, th)
            eh, el = dd_add_jit(eh, el, tl)
    return -0.5 * (math.log1p(eh) + el / (1.0 + eh))


@jit
def ovr_logit_into(z, out):
    """One-vs-rest score of every class: ``out[k, r] = (z[r, k] - logsumexp(z[r, c], c != k)) / 2``.

    ``z`` of shape (n, K) with K >= 2; ``out`` of shape (K, n) (one
    contiguous column per class).  For a class with the row's largest logit
    ``m`` the others' log-sum-exp is ``m2 + log(sum exp(z_c - m2))`` with ``m2`` the
    largest of the others (the sum includes ``exp(0) = 1``); for any other
    class ``m + log(S - exp(z_k - m))`` with ``S = sum_c exp(z_c - m)``,
    where ``S - exp(z_k - m)`` is at least 1 (the largest term is left).
    Both sums are kept in double-double (so the others' sum ``S - exp(z_k -
    m)`` loses nothing to the subtraction and rounds once, as a correctly
    rounded sum does unless it lies within about ``K * 2**-105`` of a
    rounding boundary) and run over the row's logits in ascending order, so
    a score depends on the row's values and not on the order of its
    columns: a relabelling of the classes moves no score by an ulp (which
    could move it across a calibration score, where IVAP jumps).  The score
    is ``((z_k - t) - log(rest)) / 2`` with ``t`` the ``m2`` or ``m`` above
    and ``rest`` its sum (the log as ``log1p`` of the sum's excess over its
    term 1): the logits' difference is taken first (exact when they are
    within a factor of 2, Sterbenz), so that adding a constant to a row of
    such logits moves no score by an ulp either.  Where that difference
    cancels (a strict top class scoring within ``_NEAR_TOP`` of 0: its margin
    near ``log(rest)``), the score is recomputed as ``-log1p(E) / 2`` with
    ``E`` in double-double (``_top_score_dd``).
    """
    n, K = z.shape
    zs = np.empty(K)
    for r in range(n):
        for c in range(K):
            zs[c] = z[r, c]
        zs.sort()
        m = zs[K - 1]
        m2 = zs[K - 2]
        th, tl = 0.0, 0.0
        rh, rl = 0.0, 0.0
        for c in range(K):
            th, tl = dd_add_jit(th, tl, _exp_diff(zs[c], m))
        for c in range(K - 1):
            rh, rl = dd_add_jit(rh, rl, _exp_diff(zs[c], m2))
        # each sum holds exp(0) = 1: its log is log1p of the excess (h - 1 is exact), which keeps
        # 1 + 4e-18 (a class near the top, the rest 40 below) where log(h + l) gave 0 (45 F9)
        log_rest_top = math.log1p((rh - 1.0) + rl)
        for k in range(K):
            zk = z[r, k]
            if zk == m:  # every class tied for the largest: the same sum
                top, log_rest = m2, log_rest_top
            else:
                oh, ol = dd_add_jit(th, tl, -_exp_diff(zk, m))
                top, log_rest = m, math.log1p(max((oh - 1.0) + ol, 0.0))
            # (zk - top) - log_rest, the logits' difference first: exact when they are close
            # (Sterbenz), so a constant added to the row moves no score (attack 27 F1: zk - lse
            # rounded lse at the logits' magnitude, and lost ln 2 entirely from 2**53 on)
            d = zk - top
            if abs(d) < np.inf:
                out[k, r] = 0.5 * (d - log_rest)
                if zk == m and m2 < m and abs(out[k, r]) < _NEAR_TOP:
                    out[k, r] = _top_score_dd(zs, m)
            else:  # |zk|, |top| > 2**970: exact halves
                out[k, r] = (0.5 * zk - 0.5 * top) - 0.5 * log_rest


@jit
def pair_half_diff_into(z, first, second, rows, out):
    """``out[q, t] = half_diff(z[rows[t], second[q]], z[rows[t], first[q]])`` (logits, margins)."""
    for q in range(first.shape[0]):
        i = first[q]
        j = second[q]
        for t in range(rows.shape[0]):
            r = rows[t]
            out[q, t] = _half_diff(z[r, j], z[r, i])


@jit_inline
def _log_ratio_half(mi, ei, mj, ej):
    # ln(p_j / p_i) / 2 from the frexp parts (see pair_log_ratio_into).
    if mi == 0.0 or mj == 0.0:
        if mi == mj:
            v = 0.0
        elif mi == 0.0:
            v = ZERO_RATIO_LOG2
        else:
            v = -ZERO_RATIO_LOG2
    else:
        E = ej - ei
        swap = E < 0 or (E == 0 and mj < mi)
        if swap:
            E = -E
            a, b = mi, mj
        else:
            a, b = mj, mi
        # hi / lo = 2**E * a / b, a and b in [0.5, 1)
        if E == 0 or (E == 1 and a < b):
            # a ratio in [1, 2): ln of it from its excess over 1, exact by Sterbenz
            # (2a - b and a - b lie within a factor 2 of b), rounded once: log1p keeps
            # the relative precision that log2 of a rounded ratio near 1 loses
            if E == 1:
                a *= 2.0  # exact
            h = math.log1p((a - b) / b) * 0.5
            return -h if swap else h
        r = a / b
        if r < 1.0:
            r *= 2.0  # exact
            E -= 1
        v = E + math.log2(r)  # log2(2) = 1 exactly: a rounded r of 2 needs no care
        if swap:
            v = -v
    return v * LN2_HALF


@jit
def pair_log_ratio_into(m, e, first, second, rows, out):
    """``out[q, t] = ln(p_j / p_i) / 2`` at row ``rows[t]``, ``i = first[q]``, ``j = second[q]``.

    ``m``, ``e``: the probabilities' ``frexp`` parts (``p = m * 2**e``, ``m``
    in [0.5, 1), or 0).  With ``hi >= lo > 0`` the two of the pair,
    ``hi / lo = 2**(e_hi - e_lo) * (m_hi / m_lo)``; the ratio of the
    mantissas, correctly rounded, lies in (0.5, 2), and is doubled (exact)
    below 1, so that ``hi / lo = 2**E * r`` with ``r`` in [1, 2] and
    ``log2(hi / lo) = E + log2(r)``.  The score is ``+-(E + log2(r)) * ln(2) / 2``
    (minus when ``p_j < p_i``); for a ratio below 2, ``+-log1p(d / lo) / 2`` with
    ``d = hi - lo`` exact (Sterbenz): the ratio's rounding would cost its log
    all its relative precision near 1.  Within 2 ulps of ``ln(p_j / p_i) / 2``.
    """
    for q in range(first.shape[0]):
        i = first[q]
        j = second[q]
        for t in range(rows.shape[0]):
            row = rows[t]
            out[q, t] = _log_ratio_half(m[row, i], e[row, i], m[row, j], e[row, j])


@jit
def pair_log_ratio_columns(mT, eT, first, second, out):
    """:func:`pair_log_ratio_into` of every row, from the parts by class: ``mT``, ``eT`` (K, n).

    ``out[q, t] = ln(p_j / p_i) / 2`` of row ``t`` (the same function, so the
    same numbers bit for bit); class-major parts make each pair read two
    contiguous columns.
    """
    for q in range(first.shape[0]):
        i = first[q]
        j = second[q]
        for t in range(out.shape[1]):
            out[q, t] = _log_ratio_half(mT[i, t], eT[i, t], mT[j, t], eT[j, t])


@jit
def pair_half_diff_columns(zT, first, second, out):
    """``out[q, t] = half_diff(zT[second[q], t], zT[first[q], t])`` (logits, margins by class)."""
    for q in range(first.shape[0]):
        i = first[q]
        j = second[q]
        for t in range(out.shape[1]):
            out[q, t] = _half_diff(zT[j, t], zT[i, t])


@jit_inline
def _lower_bound(s, b, e, v):
    # The first index l in [b, e] with s[l] >= v (e if none), branch-free: the
    # answer lies in [base, base + size] throughout.
    base = b
    size = e - b
    while size > 1:
        half = size >> 1
        base = base + half if s[base + half - 1] < v else base
        size -= half
    return base + 1 if (size == 1 and s[base] < v) else base


@jit_inline
def _pair_at(s, F0, F1, b, e, v):
    lo = _lower_bound(s, b, e, v)
    if lo < e and s[lo] == v:
        return F0[lo], F1[lo]
    return (F0[lo - 1] if lo > b else 0.0), (F1[lo] if lo < e else 1.0)


@jit
def ivap_lookup_columns(s, F0, F1, starts, queries, p0, p1):
    """The Venn-Abers pair of every query of every column, from U tables laid end to end.

    Table ``c`` is ``s[starts[c]:starts[c + 1]]`` (with ``F0``, ``F1``), and
    row ``c`` of ``queries`` (shape (U, n)) is looked up in it as
    :func:`venncal._kernels.ivap.ivap_lookup` does: a query equal to ``s[l]``
    gets ``(F0[l], F1[l])``, one between ``s[l-1]`` and ``s[l]`` gets
    ``(F0[l-1], F1[l])``, with 0 below the table and 1 above it.  The search
    is branch-free (a conditional move per halving), one table at a time.
    """
    U, n = queries.shape
    for c in range(U):
        b = starts[c]
        e = starts[c + 1]
        for r in range(n):
            p0[c, r], p1[c, r] = _pair_at(s, F0, F1, b, e, queries[c, r])


@jit
def ivap_proba_columns(s, F0, F1, starts, queries, log_merge, out):
    """:func:`ivap_lookup_columns` merged into one probability (``out`` of shape (U, n)).

    ``log_merge``: the log-loss minimax ``p1 / (1 - p0 + p1)``, else the
    Brier-loss minimax ``p1 + p0**2/2 - p1**2/2`` (the same expressions as
    :func:`venncal.venn_abers.log_minimax` and ``brier_minimax``).
    """
    U, n = queries.shape
    for c in range(U):
        b = starts[c]
        e = starts[c + 1]
        for r in range(n):
            p0, p1 = _pair_at(s, F0, F1, b, e, queries[c, r])
            if log_merge:
                out[c, r] = p1 / (1.0 - p0 + p1)
            else:
                out[c, r] = p1 + 0.5 * p0 * p0 - 0.5 * p1 * p1


_NORMAL = 2.0**-1022  # the smallest normal double


@jit
def price_into(r, r0, first, second, out):
    """Price's coupling (see :mod:`venncal.multiclass._coupling`) of ``r`` (P, n) into ``out`` (n, K).

    ``r0`` (P, n) is the probability of ``first[q]`` in pair ``q`` (the pair
    calibrator's column 0, ``1 - r`` up to its rounding).
    ``out[t, i] = 1 / (sum_{j != i} 1 / r_ij - (K - 2))`` normalised, with
    ``r_ij = 0`` giving 0; a row of K zeros gets the normalize rule.
    """
    n, K = out.shape
    P = first.shape[0]
    inv = np.empty(K)
    zero = np.empty(K, dtype=np.bool_)
    ms = np.empty(K)
    us = np.empty(K)
    for t in range(n):
        for c in range(K):
            inv[c] = 0.0
            zero[c] = False
        for q in range(P):
            rj = r[q, t]  # probability of second[q]
            ri = r0[q, t]  # probability of first[q]
            if ri == 0.0:
                zero[first[q]] = True
            else:
                inv[first[q]] += 1.0 / ri
            if rj == 0.0:
                zero[second[q]] = True
            else:
                inv[second[q]] += 1.0 / rj
        total = 0.0
        tiny = False
        for c in range(K):
            v = 0.0 if zero[c] else 1.0 / (inv[c] - (K - 2))
            # an infinite sum of inverses, or a subnormal value: the scaled row below
            tiny = tiny or (not zero[c] and not v >= _NORMAL)
            out[t, c] = v
            total += v
        if tiny:
            _price_row_scaled(r, r0, first, second, t, zero, ms, us, out)
            continue
        if not total > 0.0:
            normalize_row(r, r0, first, second, t, out)
            continue
        for c in range(K):
            out[t, c] /= total


@jit_inline
def _price_row_scaled(r, r0, first, second, t, zero, ms, us, out):
    """Row ``t`` of Price's coupling, normalised, where a class's value is subnormal or overflows.

    Class ``c``'s value ``1 / (sum_j 1 / r_cj - (K - 2))`` is ``m_c u_c`` with
    ``m_c`` its smallest ``r_cj`` and ``u_c = 1 / (sum_j m_c / r_cj - (K - 2) m_c)``
    (every term at most 1, ``u_c`` at least about ``1 / (K - 1)``).  A pairwise
    probability below about ``(K - 1) / 1.8e308`` made ``1 / r`` infinite and
    the class 0 (attack 14 F4), and values rounded to subnormals lost their
    digits before the division by their total (attack 15 F2: a row of
    pairwise probabilities 5e-324 and 1e-323 gave [0, 0, 0.5, 0.5, 0]).  Here
    each value is ``(m_c / M) u_c`` with ``M`` the largest ``m_c``, then
    normalised: the ratios of the inputs, not their subnormal roundings.
    """
    K = out.shape[1]
    P = first.shape[0]
    top = 0.0
    for c in range(K):
        ms[c] = np.inf
    for q in range(P):
        ms[first[q]] = min(ms[first[q]], r0[q, t])
        ms[second[q]] = min(ms[second[q]], r[q, t])
    for c in range(K):
        us[c] = 0.0
    for q in range(P):
        i, j = first[q], second[q]
        if not zero[i]:
            us[i] += ms[i] / r0[q, t]
        if not zero[j]:
            us[j] += ms[j] / r[q, t]
    for c in range(K):
        if not zero[c]:
            us[c] = 1.0 / (us[c] - (K - 2) * ms[c])
            top = max(top, ms[c])
    total = 0.0
    for c in range(K):
        v = 0.0 if zero[c] else (ms[c] / top) * us[c]
        out[t, c] = v
        total += v
    for c in range(K):
        out[t, c] /= total


@jit_inline
def normalize_row(r, r0, first, second, t, out):
    n, K = out.shape
    for c in range(K):
        out[t, c] = 0.0
    for q in range(first.shape[0]):
        out[t, second[q]] += r[q, t]
        out[t, first[q]] += r0[q, t]
    total = 0.0
    for c in range(K):
        total += out[t, c]
    for c in range(K):
        out[t, c] /= total


@jit
def normalize_into(r, r0, first, second, out):
    """The normalize coupling: ``out[t, i]`` the sum of ``r_ij`` over ``j != i``, normalised.

    ``r`` (P, n): probability of ``second[q]``; ``r0``: of ``first[q]``.
    """
    for t in range(out.shape[0]):
        normalize_row(r, r0, first, second, t, out)
