"""Look-ups in the Venn-Abers tables of :mod:`.ivap`: the pair of a test score in O(log k).

A test score equal to calibration score ``s[j]`` reads entry ``j`` of both
tables; strictly between ``s[j-1]`` and ``s[j]`` it reads ``F0[j-1]`` and
``F1[j]``; below every calibration score ``p0 = 0``, above every one
``p1 = 1``.
"""

from __future__ import annotations

from ._jit import jit, jit_inline

__all__ = ["ivap_lookup", "ivap_lookup_full"]


@jit_inline
def _below(s, v):
    """The number of calibration scores below ``v`` (binary search of sorted ``s``)."""
    lo = 0
    hi = s.shape[0]
    # Invariant: s[:lo] < v <= s[hi:].
    while lo < hi:
        mid = (lo + hi) >> 1
        if s[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@jit_inline
def _pair_index(s, v):
    """Return ``(i0, i1)``, the table entries of ``p0`` and ``p1`` for the query ``v``.

    One binary search finds ``l``, the number of calibration scores below
    ``v``.  A query equal to ``s[l]`` reads entry ``l`` of both tables;
    otherwise it lies between ``s[l-1]`` and ``s[l]`` and reads ``F0[l-1]``
    and ``F1[l]``.  ``i0 = -1`` below every calibration score (``p0 = 0``),
    ``i1 = k`` above every one (``p1 = 1``).
    """
    lo = _below(s, v)
    if lo < s.shape[0] and s[lo] == v:
        return lo, lo
    return lo - 1, lo


@jit
def ivap_lookup(s, F0, F1, queries, p0, p1):
    """Write the Venn-Abers pair of every query score into ``p0`` and ``p1``.

    The entries are those of :func:`_pair_index`, with ``F0[-1] := 0`` and
    ``F1[k] := 1``.
    """
    k = s.shape[0]
    for q in range(queries.shape[0]):
        i0, i1 = _pair_index(s, queries[q])
        p0[q] = F0[i0] if i0 >= 0 else 0.0
        p1[q] = F1[i1] if i1 < k else 1.0


@jit
def ivap_lookup_full(s, F0, F1, Q0, Q1, queries, p0, p1, q0, q1):
    """:func:`ivap_lookup`, also writing ``1 - p0`` and ``1 - p1`` from ``Q0``, ``Q1``.

    ``q0`` is the entry of ``Q0`` at ``p0``'s position (``1`` below every
    calibration score, where ``p0 = 0``), ``q1`` that of ``Q1`` at ``p1``'s
    (``0`` above every one, where ``p1 = 1``).
    """
    k = s.shape[0]
    for q in range(queries.shape[0]):
        i0, i1 = _pair_index(s, queries[q])
        if i0 >= 0:
            p0[q] = F0[i0]
            q0[q] = Q0[i0]
        else:
            p0[q] = 0.0
            q0[q] = 1.0
        if i1 < k:
            p1[q] = F1[i1]
            q1[q] = Q1[i1]
        else:
            p1[q] = 1.0
            q1[q] = 0.0
