"""Minimax merges of Venn-Abers pairs into one probability (Vovk, Petej & Fedorova 2015, section 4)."""

from __future__ import annotations

import numpy as np

from .._validation import Options, validate_params

__all__ = ["MERGES", "brier_minimax", "log_minimax", "merge_folds", "minimax"]

MERGES = ("log", "brier")
# p0 above this is "near 1": CVAP's merge takes 1 - p0 from the exact complement q0.
_NEAR_ONE = 1.0 - 2.0**-10
# Values below this have their exponent taken out of a geometric mean (_geometric_mean).
_SPLIT = 2.0**-10
_LN2 = 0.6931471805599453


def log_minimax(p0, p1):
    """Log-loss minimax probability ``p1 / (1 - p0 + p1)`` (Vovk & Petej 2014, eq. (10)).

    Examples
    --------
    >>> log_minimax([0.2, 0.5], [0.3, 0.5])
    array([0.27272727, 0.5       ])
    """
    p0 = np.asarray(p0, dtype=np.float64)
    p1 = np.asarray(p1, dtype=np.float64)
    return p1 / (1.0 - p0 + p1)


def brier_minimax(p0, p1):
    """Brier-loss minimax probability ``p1 + p0**2/2 - p1**2/2`` (Vovk & Petej 2014, eq. (11)).

    Examples
    --------
    >>> brier_minimax([0.2, 0.5], [0.3, 0.5])
    array([0.275, 0.5  ])
    """
    p0 = np.asarray(p0, dtype=np.float64)
    p1 = np.asarray(p1, dtype=np.float64)
    return p1 + 0.5 * p0 * p0 - 0.5 * p1 * p1


def minimax(p0, p1, merge: str = "log"):
    """Return the minimax probability of Venn-Abers pairs (:func:`log_minimax` or :func:`brier_minimax`).

    Examples
    --------
    >>> minimax([0.2], [0.3], "brier")
    array([0.275])
    """
    return (log_minimax if merge == "log" else brier_minimax)(p0, p1)


def _complement(p0, q0):
    """``1 - p0``: the exact complements ``q0`` when given, else computed from ``p0``."""
    if q0 is None:
        return 1.0 - p0
    q0 = np.asarray(q0, dtype=np.float64)
    if q0.shape != p0.shape:
        raise ValueError(f"q0 must have the shape of p0 {p0.shape}; got {q0.shape}")
    return q0


def _log_complement(p0, q0):
    """``log(1 - p0)`` elementwise, from ``q0 = 1 - p0`` where ``p0`` is within ``2**-10`` of 1.

    ``log1p(-p0)`` (what CVAP always computed) has the relative error of
    ``1 - p0`` formed from a rounded ``p0``: at most ``2**-54 / (1 - p0)``,
    below ``2**-44`` where ``1 - p0 >= 2**-10``, so that the merged ``p`` is
    within ``2**-46`` of its exact value there, and it stays bit for bit as
    it was.  Nearer 1 (``p0`` rounded to 1 makes it ``-inf``) ``log(q0)``
    is used.  Where ``q0`` is not given, ``log1p(-p0)``.
    """
    with np.errstate(divide="ignore"):
        old = np.log1p(-p0)
        if q0 is None:
            return old
        near_one = p0 > _NEAR_ONE
        if not near_one.any():
            return old
        return np.where(near_one, np.log(q0), old)


def _geometric_mean(logs, values, split):
    """``GM = exp(mean(logs, axis=0))`` as ``(2**n exp(a), n, a)``, within a few ulps at any scale.

    ``logs`` (shape ``(K, n)``) are the logarithms of ``values``; where
    ``split`` holds (the values below ``2**-10``), a value ``m 2**e`` (``m`` in
    ``[1/2, 1)``) contributes ``log m`` and its exponent ``e`` instead: the
    exponents' mean, ``n + r/K`` with ``n`` the nearest integer, goes to the
    exact power ``2**n`` and ``(r/K) ln 2``, so ``exp`` gets an argument below
    8 in size.  ``exp(mean(log x))`` of a value near 1e-300 carried about
    ``|mean log|`` ulps (690; 806 ulps, 1.8e-13, were seen in CVAP ends).
    Where nothing is split, ``n = 0`` and ``a`` is ``mean(logs)``: the same
    bits as before.
    """
    k = logs.shape[0]
    if not split.any():
        a = np.mean(logs, axis=0)
        return np.exp(a), np.zeros(a.shape, dtype=np.int64), a
    m, e = np.frexp(np.where(split, values, 1.0))
    e = np.where(split, e, 0).astype(np.int64)
    with np.errstate(divide="ignore"):
        parts = np.where(split, np.log(m), logs)
    total = e.sum(axis=0)
    n = np.floor_divide(2 * total + k, 2 * k)  # the nearest integer to total / k
    a = np.mean(parts, axis=0) + ((total - n * k) / k) * _LN2
    return np.ldexp(np.exp(a), n), n, a


def _complement_mean(p0, q0):
    """``GM(1 - p0)`` over axis 0 as :func:`_geometric_mean` returns it (terms of :func:`_log_complement`)."""
    logs = _log_complement(p0, q0)
    if q0 is None:
        return _geometric_mean(logs, 1.0 - p0, np.zeros(p0.shape, dtype=bool))
    near_one = p0 > _NEAR_ONE
    return _geometric_mean(logs, q0, near_one & (q0 < _SPLIT))


def _keep_small(p, p_complement, old_complement):
    """Column 0 of ``predict_proba``: ``1 - p`` where ``p <= 1/2``, else the complement formula.

    ``1 - p`` is at least 1/2 there and as accurate as ``p``; past 1/2 it
    has lost the relative precision of a small result, which the formula in
    the complements keeps (``old_complement``: ``1 - p``, computed before).
    """
    return np.where(p <= 0.5, old_complement, p_complement)


def merge_with_complement(p0, p1, q0=None, merge: str = "log"):
    """:func:`merge_folds` that also returns ``1 - p`` with full relative precision.

    Parameters
    ----------
    p0, p1 : ndarray of shape (K, n)
    q0 : ndarray of shape (K, n) or None
        ``1 - p0`` computed exactly (the IVAP tables' ``q0_``); None: from ``p0``.
    merge : {"log", "brier"}

    Returns
    -------
    p, p_complement : ndarray of shape (n,)
        The merged probability and ``1 - p``; where ``p <= 1/2`` the latter
        is ``1.0 - p`` bit for bit, past 1/2 it is computed from the
        complements: ``GM(1 - p0) / (GM(1 - p0) + GM(p1))`` (log) or the
        mean of ``q0 - q0**2/2 + q1**2/2`` with ``q1 = 1 - p1`` (Brier).
    interval : ndarray of shape (n, 2)
    """
    validate_params("merge_folds", {"merge": merge}, {"merge": [Options(MERGES)]})
    p0 = np.asarray(p0, dtype=np.float64)
    p1 = np.asarray(p1, dtype=np.float64)
    if p0.shape != p1.shape or p0.ndim != 2:
        raise ValueError("p0 and p1 must both have shape (K, n)")
    comp0 = _complement(p0, q0)
    if p0.shape[0] == 1:  # exact for a single predictor: no exp(log(.)) round trip
        gm1 = p1[0]
        gm0 = 1.0 - p0[0]
        interval = np.column_stack((p0[0], p1[0]))
        # (1 - p0 is within half an ulp of 1 - p0 exact, enough for p: p1/(1 - p0 + p1))
        exact_gm0 = comp0[0]
    else:
        # Both are > 0 for exact Venn-Abers outputs (Vovk, Petej & Fedorova 2015, Lemma 2);
        # p0 rounds to 1 when 1 - p0 < 2**-54 (a class of weight past 2**53), so the
        # complement comes from q0, computed from the weights, where p0 has lost it.
        with np.errstate(divide="ignore"):
            gm1 = _geometric_mean(np.log(p1), p1, p1 < _SPLIT)[0]
        gm0, n0, a0 = _complement_mean(p0, q0)
        exact_gm0 = gm0
        # 1 - GM(1 - p0) as -expm1(.): 1.0 - gm0 rounds a small lower end (5.9e-21) to 0
        # (attack 14 F5); p keeps gm0 as before; + 0.0 makes -expm1(0) = -0.0 a 0.0.  Where
        # a power of two was taken out (n0 < 0), gm0 <= 2**-1 e**0.35 < 0.71: 1 - gm0 is exact
        lower = np.where(n0 == 0, -np.expm1(a0) + 0.0, 1.0 - gm0)
        interval = np.column_stack((lower, gm1))
    if merge == "log":
        p = gm1 / (gm0 + gm1)
        p_complement = exact_gm0 / (exact_gm0 + gm1)
    else:
        p = np.mean(brier_minimax(p0, p1), axis=0)
        # 1 - (p1 + p0**2/2 - p1**2/2) = q0 - q0**2/2 + q1**2/2 (q1 = 1 - p1, exact
        # enough: q1 <= q0, so its error is below q0's last place)
        p_complement = np.mean(brier_minimax(1.0 - p1, comp0), axis=0)
    with np.errstate(invalid="ignore"):
        return p, _keep_small(p, p_complement, 1.0 - p), interval


def merge_folds(p0, p1, merge: str = "log", *, q0=None):
    """Merge the pairs of K Venn-Abers predictors (CVAP, Vovk, Petej & Fedorova 2015, Algorithm 7).

    Parameters
    ----------
    p0, p1 : ndarray of shape (K, n)
        Lower and upper probabilities of each of K predictors.
    merge : {"log", "brier"}, default="log"
        ``"log"``: ``GM(p1) / (GM(1 - p0) + GM(p1))`` with GM the geometric
        mean over the K predictors; ``"brier"``: the mean over the K
        predictors of ``p1 + p0**2/2 - p1**2/2``.
    q0 : ndarray of shape (K, n), optional
        ``1 - p0``, computed without rounding ``p0`` first (as
        :class:`VennAbersCalibrator` does from the weights: its ``q0_``).
        Where ``p0 > 1 - 2**-10`` (K > 1) ``GM(1 - p0)`` takes ``1 - p0``
        from it: a fold whose ``p0`` rounds to 1 then no longer makes
        ``GM(1 - p0)`` 0 and ``p`` exactly 1.  Elsewhere, and without
        ``q0``, ``1 - p0`` is computed from ``p0`` (relative error below
        ``2**-44`` there), bit for bit as before.

    Returns
    -------
    p : ndarray of shape (n,)
        Merged probability of the positive class.
    interval : ndarray of shape (n, 2)
        ``(1 - GM(1 - p0), GM(p1))``.  For K > 1 this pair is not always
        ordered (Vovk, Petej & Fedorova 2015 calls it "formally, a pair of numbers").

    Examples
    --------
    >>> p, interval = merge_folds([[0.2], [0.4]], [[0.3], [0.5]])
    >>> p.round(4), interval.round(4)
    (array([0.3586]), array([[0.3072, 0.3873]]))
    """
    p, _, interval = merge_with_complement(p0, p1, q0, merge)
    return p, interval
