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

__all__ = [
    "LN2_HALF",
    "ZERO_RATIO_LOG2",
    "half_diff_into",
    "ovr_logit_into",
    "pair_log_ratio_into",
    "pair_half_diff_into",
    "ivap_lookup_columns",
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


@jit
def half_diff_into(a, b, out):
    """``out[i] = (a[i] - b[i]) / 2`` correctly rounded (see the module docstring)."""
    for i in range(a.shape[0]):
        out[i] = _half_diff(a[i], b[i])


@jit
def ovr_logit_into(z, out):
    """One-vs-rest score of every class: ``half_diff(z_k, logsumexp(z_c, c != k))``.

    ``z`` of shape (n, K) with K >= 2; ``out`` of the same shape.  For the
    row's largest logit ``m`` (first one on ties) the others' log-sum-exp is
    ``m2 + log(sum exp(z_c - m2))`` with ``m2`` the largest of the others
    (the sum includes ``exp(0) = 1``); for any other class ``m + log(S -
    exp(z_k - m))`` with ``S = sum_c exp(z_c - m)``, where ``S - exp(z_k - m)``
    is at least 1 (the largest term is left).
    """
    n, K = z.shape
    for r in range(n):
        a = 0
        for c in range(1, K):
            if z[r, c] > z[r, a]:
                a = c
        m = z[r, a]
        b = 1 if a == 0 else 0
        for c in range(K):
            if c != a and z[r, c] > z[r, b]:
                b = c
        m2 = z[r, b]
        total = 0.0
        rest = 0.0
        for c in range(K):
            total += math.exp(z[r, c] - m)
            if c != a:
                rest += math.exp(z[r, c] - m2)
        for k in range(K):
            if k == a:
                lse = m2 + math.log(rest)
            else:
                lse = m + math.log(max(total - math.exp(z[r, k] - m), 1.0))
            out[r, k] = _half_diff(z[r, k], lse)


@jit
def pair_half_diff_into(z, first, second, out):
    """``out[:, q] = half_diff(z[:, second[q]], z[:, first[q]])`` (logits and margins)."""
    n = z.shape[0]
    for r in range(n):
        for q in range(first.shape[0]):
            out[r, q] = _half_diff(z[r, second[q]], z[r, first[q]])


@jit_inline
def _log2_ratio(hi, lo):
    # log2(hi / lo) for 0 < lo <= hi (see the module docstring): >= 0.
    mh, eh = math.frexp(hi)
    ml, el = math.frexp(lo)
    e = eh - el
    r = mh / ml  # correctly rounded, in (0.5, 2)
    if r < 1.0:
        r *= 2.0  # exact
        e -= 1
    if r == 2.0:
        r = 1.0
        e += 1
    return e + math.log2(r)


@jit
def pair_log_ratio_into(p, first, second, out):
    """``out[:, q] = ln(p_j / p_i) / 2`` with ``i = first[q]``, ``j = second[q]`` (see module)."""
    n = p.shape[0]
    for r in range(n):
        for q in range(first.shape[0]):
            pi = p[r, first[q]]
            pj = p[r, second[q]]
            if pi == 0.0 or pj == 0.0:
                if pi == pj:
                    v = 0.0
                elif pi == 0.0:
                    v = ZERO_RATIO_LOG2
                else:
                    v = -ZERO_RATIO_LOG2
            elif pj >= pi:
                v = _log2_ratio(pj, pi)
            else:
                v = -_log2_ratio(pi, pj)
            out[r, q] = v * LN2_HALF


@jit
def ivap_lookup_columns(s, F0, F1, starts, queries, p0, p1):
    """The Venn-Abers pair of every query of every column, from K tables laid end to end.

    Table ``c`` is ``s[starts[c]:starts[c + 1]]`` (with ``F0``, ``F1``), and
    column ``c`` of ``queries`` (shape (n, K)) is looked up in it as
    :func:`venncal._kernels.ivap.ivap_lookup` does: a query equal to ``s[l]``
    gets ``(F0[l], F1[l])``, one between ``s[l-1]`` and ``s[l]`` gets
    ``(F0[l-1], F1[l])``, with 0 below the table and 1 above it.
    """
    n, K = queries.shape
    for r in range(n):
        for c in range(K):
            b = starts[c]
            e = starts[c + 1]
            v = queries[r, c]
            lo = b
            hi = e
            # Invariant: s[b:lo] < v <= s[hi:e].
            while lo < hi:
                mid = (lo + hi) >> 1
                if s[mid] < v:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < e and s[lo] == v:
                p0[r, c] = F0[lo]
                p1[r, c] = F1[lo]
            else:
                p0[r, c] = F0[lo - 1] if lo > b else 0.0
                p1[r, c] = F1[lo] if lo < e else 1.0
