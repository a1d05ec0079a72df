"""Slow, literal twins of the multiclass calibrators (venncal.multiclass).

Binary scores row by row in Python (exact rational arithmetic where the
definition is a rounding of an exact value), then, for each class (one-vs-rest)
or pair of classes (one-vs-one), each test object and each hypothetical label,
isotonic regression refitted from scratch (``naive.ivap_by_definition``).
Couplings by their formulas, one row at a time.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
from .naive import cvap_interval, cvap_merge, ivap_by_definition, log_minimax

ZERO_RATIO_LOG2 = 1075.0


def half_diff(a: float, b: float) -> float:
    """``(a - b) / 2``, correctly rounded (exact rational, then one rounding)."""
    return float((Fraction(a) - Fraction(b)) / 2)


def log2_ratio(hi: float, lo: float) -> float:
    """``E + log2(r)``: ``hi / lo = 2**E * r`` exactly, ``r`` in [1, 2) rounded once (hi >= lo > 0)."""
    rho = Fraction(hi) / Fraction(lo)
    E = 0
    while rho >= 2 * Fraction(2) ** E:
        E += 1
    while rho < Fraction(2) ** E:
        E -= 1
    r = float(rho / Fraction(2) ** E)
    if r == 2.0:
        r, E = 1.0, E + 1
    return E + math.log2(r)


def pair_score(xi: float, xj: float, kind: str) -> float:
    """Binary score of class j against class i (one-vs-one)."""
    if kind != "proba":
        return half_diff(xj, xi)
    if xi == 0.0 or xj == 0.0:
        v = 0.0 if xi == xj else (ZERO_RATIO_LOG2 if xi == 0.0 else -ZERO_RATIO_LOG2)
    elif xj >= xi:
        return _half_log(xj, xi)
    else:
        return -_half_log(xi, xj)
    return v * (math.log(2.0) / 2.0)


def _half_log(hi: float, lo: float) -> float:
    """``ln(hi / lo) / 2`` (hi >= lo > 0): a ratio below 2 by ``log1p`` of its excess over 1
    (the exact excess rounded once), a larger one as ``E + log2(r)`` times ``ln(2) / 2``."""
    rho = Fraction(hi) / Fraction(lo)
    if rho < 2:
        return math.log1p(float(rho - 1)) * 0.5
    return log2_ratio(hi, lo) * (math.log(2.0) / 2.0)


def ovr_score(row, k: int, kind: str) -> float:
    """Binary score of class k against the rest (one-vs-rest)."""
    if kind != "logit":
        return float(row[k])
    # ((z_k - m) - log sum_{c != k} exp(z_c - m)) / 2, m the others' largest: the differences
    # of doubles exact (1,200 digits hold any), the log in 60 digits, rounded once to a double
    with localcontext() as ctx:
        ctx.prec = 1200
        others = [Decimal(float(v)) for c, v in enumerate(row) if c != k]
        m = max(others)
        d = Decimal(float(row[k])) - m
        diffs = [v - m for v in others]
        with localcontext() as log_ctx:
            # the sum is 1 + e (its largest term is exp(0)): 60 digits of e, not of 1 + e
            log_ctx.prec = 60
            excess = sum(((+x).exp() for x in diffs if x < 0), Decimal(sum(x == 0 for x in diffs) - 1))
            log_ctx.prec = 60 + (max(0, -excess.adjusted()) if excess else 0)
            log_rest = (1 + excess).ln()
        return float((d - log_rest) / 2)


def ovr_pairs(cal_x, cal_y, test_x, classes, kind, w=None):
    """Per-class IVAP ``(p0, p1)`` by definition: arrays of shape (n_test, K)."""
    K = len(classes)
    p0 = np.empty((len(test_x), K))
    p1 = np.empty((len(test_x), K))
    for k in range(K):
        s = [ovr_score(r, k, kind) for r in cal_x]
        t = [ovr_score(r, k, kind) for r in test_x]
        y01 = [lab == classes[k] for lab in cal_y]
        p0[:, k], p1[:, k] = ivap_by_definition(s, y01, w, t)
    return p0, p1


def ovr_proba(p0, p1):
    """One-vs-rest probabilities: log-minimax per class, normalised row by row."""
    out = np.empty(p0.shape)
    for r in range(p0.shape[0]):
        q = [float(log_minimax(a, b)[0]) for a, b in zip(p0[r], p1[r], strict=True)]
        total = math.fsum(q)
        out[r] = [v / total for v in q]
    return out


def pairs_of(K: int):
    return [(i, j) for i in range(K) for j in range(i + 1, K)]


def ovo_pairs(cal_x, cal_y, test_x, classes, kind, w=None):
    """Per-pair IVAP ``(p0, p1)`` of class j against class i: arrays (n_test, P)."""
    pairs = pairs_of(len(classes))
    p0 = np.empty((len(test_x), len(pairs)))
    p1 = np.empty((len(test_x), len(pairs)))
    for q, (i, j) in enumerate(pairs):
        rows = [r for r, lab in enumerate(cal_y) if lab in (classes[i], classes[j])]
        s = [pair_score(cal_x[r][i], cal_x[r][j], kind) for r in rows]
        y01 = [cal_y[r] == classes[j] for r in rows]
        ws = None if w is None else [w[r] for r in rows]
        t = [pair_score(row[i], row[j], kind) for row in test_x]
        p0[:, q], p1[:, q] = ivap_by_definition(s, y01, ws, t)
    return p0, p1


def couple_row(r, K: int, method: str, r0=None):
    """One row's coupling by its formula; ``r[q]``: probability of j within pair q = (i, j).

    ``r0[q]``: probability of i within pair q (default ``1 - r[q]``).
    """
    R = [[0.0] * K for _ in range(K)]
    for q, (i, j) in enumerate(pairs_of(K)):
        R[j][i] = float(r[q])
        R[i][j] = 1.0 - float(r[q]) if r0 is None else float(r0[q])
    if method == "normalize":
        p = [math.fsum(R[i]) * 2.0 / (K * (K - 1)) for i in range(K)]
    elif method == "price":
        p = []
        for i in range(K):
            if any(R[i][j] == 0.0 for j in range(K) if j != i):
                p.append(0.0)
            else:
                p.append(1.0 / (math.fsum(1.0 / R[i][j] for j in range(K) if j != i) - (K - 2)))
    elif method == "wu-lin-weng":
        A = np.zeros((K + 1, K + 1))
        for i in range(K):
            A[i, i] = sum(R[s][i] ** 2 for s in range(K) if s != i)
            for j in range(K):
                if j != i:
                    A[i, j] = -R[j][i] * R[i][j]
            A[i, K] = A[K, i] = 1.0
        b = np.zeros(K + 1)
        b[K] = 1.0
        p = [max(v, 0.0) for v in np.linalg.lstsq(A, b, rcond=None)[0][:K].tolist()]
    else:
        raise ValueError(method)
    total = math.fsum(p)
    return [v / total for v in p]


def cvap_ovr(cal_x, cal_y, folds, test_x, classes, kind):
    """Multiclass CVAP one-vs-rest: per class, one IVAP per fold by definition, merged."""
    K = len(classes)
    fold_ids = sorted(set(folds))
    p = np.empty((len(test_x), K))
    interval = np.empty((len(test_x), K, 2))
    for k in range(K):
        p0s, p1s = [], []
        for f in fold_ids:
            rows = [r for r in range(len(cal_y)) if folds[r] == f]
            s = [ovr_score(cal_x[r], k, kind) for r in rows]
            y01 = [cal_y[r] == classes[k] for r in rows]
            t = [ovr_score(row, k, kind) for row in test_x]
            a, b = ivap_by_definition(s, y01, None, t)
            p0s.append(a)
            p1s.append(b)
        p[:, k] = cvap_merge(p0s, p1s)
        interval[:, k] = cvap_interval(p0s, p1s)
    return p, interval
