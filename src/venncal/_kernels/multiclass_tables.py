"""The Venn-Abers tables of many binary problems in one call (multiclass fitting).

A one-vs-one calibrator fits K(K-1)/2 inductive Venn-Abers predictors of a
few thousand scores each; building each one's tables through
:func:`venncal._kernels.ivap.ivap_tables_full` costs a Python round trip per
problem (the choice of arithmetic, five scratch arrays, two sweeps).
:func:`ivap_tables_many` runs that function's steps for every problem in one
compiled loop: the same choice of arithmetic (``_mode``), the same compiled
sweeps and the same ordering pass, so every table is the same bit for bit.
Problems whose weights need exact rational arithmetic are flagged and left
to the caller (:func:`~venncal._kernels.ivap.ivap_tables_full`, in Python).
"""

from __future__ import annotations

import numpy as np

from ._jit import jit
from .ivap import (
    _DD,
    _DONE,
    _EXACT,
    _PLAIN,
    _SMALL,
    _make_ordered,
    _mode,
    _sweep_dd,
    _sweep_dd_careful,
    _sweep_plain,
    _sweep_small,
    ivap_tables_full,
)

__all__ = ["ivap_tables_list", "ivap_tables_many"]


@jit
def _upper_sweep(w, a, b, flip, mode, out, comp, zh, zl, yh, yl, buf):
    # ivap.upper_sweep_into, compiled: double-double falls back to the careful
    # variant when a coordinate does not fit in two doubles.
    if mode == _SMALL:
        _sweep_small(w, a, b, flip, out, comp, zh, zl, yh, yl, buf)
    elif mode == _PLAIN:
        _sweep_plain(w, a, b, flip, out, comp, zh, zl, yh, yl, buf)
    elif mode == _DD and _sweep_dd(w, a, b, flip, out, comp, zh, zl, yh, yl, buf) == _DONE:
        return
    else:
        _sweep_dd_careful(w, a, b, flip, out, comp, zh, zl, yh, yl, buf)


@jit
def ivap_tables_many(w, a, b, starts, F0, F1, Q0, Q1, exact):
    """``ivap_tables_full`` of every summary ``w[starts[c]:starts[c + 1]]`` (with ``a``, ``b``).

    ``b`` (the negative weights) has the length of ``w``, or length 0 (none:
    ``w - a``, for every summary).

    Writes table ``c``'s ``F0``, ``F1``, ``Q0``, ``Q1`` into the same
    positions of the four outputs, or sets ``exact[c]`` (and writes nothing there) when
    its weights need exact rational arithmetic.
    """
    U = starts.shape[0] - 1
    widest = 0
    for c in range(U):
        widest = max(widest, starts[c + 1] - starts[c])
    zh = np.empty(widest + 2)
    zl = np.empty(widest + 2)
    yh = np.empty(widest + 2)
    yl = np.empty(widest + 2)
    buf = np.empty(64)
    # A bool, not the literals True and False: numba would compile every sweep once per
    # literal (twice in all, and apart from ivap's own bool signature; 102 s of CPU cold).
    up = np.bool_(True)
    for c in range(U):
        first = starts[c]
        e = starts[c + 1]
        wc = w[first:e]
        ac = a[first:e]
        bc = b[first:e] if b.shape[0] == w.shape[0] else b
        mode = _mode(wc, ac, bc)
        exact[c] = mode == _EXACT
        if mode == _EXACT:
            continue
        f0 = F0[first:e]
        f1 = F1[first:e]
        q0 = Q0[first:e]
        q1 = Q1[first:e]
        _upper_sweep(wc, ac, bc, up, mode, f0, q0, zh, zl, yh, yl, buf)
        _upper_sweep(wc, ac, bc, not up, mode, f1, q1, zh, zl, yh, yl, buf)
        if mode >= _DD:
            _make_ordered(f0, f1, q0, q1)


def ivap_tables_list(weights, positive_weights, negative_weights=None) -> list:
    """``ivap_tables_full(w, a, b)`` of each pair of the lists: a list of ``(F0, F1, Q0, Q1)``.

    ``negative_weights``: one array ``b`` per summary, or None (``w - a``
    for every one).

    One :func:`ivap_tables_many` call for all of them (the arrays returned
    are views of one array per kind), then ``ivap_tables_full`` for those
    that need exact arithmetic.
    """
    starts = np.zeros(len(weights) + 1, dtype=np.intp)
    np.cumsum([w.shape[0] for w in weights], out=starts[1:])
    w = np.concatenate(weights)
    a = np.concatenate(positive_weights)
    b = np.zeros(0) if negative_weights is None else np.concatenate(negative_weights)
    if b.shape[0] and b.shape != w.shape:
        raise ValueError("negative_weights must have the lengths of weights")
    F0, F1, Q0, Q1 = (np.empty(w.shape[0]) for _ in range(4))
    exact = np.zeros(len(weights), dtype=np.bool_)
    ivap_tables_many(w, a, b, starts, F0, F1, Q0, Q1, exact)
    out = []
    for u, (b, e) in enumerate(zip(starts[:-1].tolist(), starts[1:].tolist(), strict=True)):
        if exact[u]:
            out.append(ivap_tables_full(weights[u], positive_weights[u],
                                        None if negative_weights is None else negative_weights[u]))
        else:
            out.append((F0[b:e], F1[b:e], Q0[b:e], Q1[b:e]))
    return out
