"""Minimax merges of Venn-Abers pairs into one probability (Vovk, Petej & Fedorova 2015, section 4)."""

from __future__ import annotations

import numpy as np

from .._validation import Options, validate_params

__all__ = ["MERGES", "brier_minimax", "log_minimax", "merge_folds", "minimax"]

MERGES = ("log", "brier")
# p0 above this is "near 1": CVAP's merge takes 1 - p0 from the exact complement q0.
_NEAR_ONE = 1.0 - 2.0**-10


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
            gm1 = np.exp(np.mean(np.log(p1), axis=0))
        log_gm0 = np.mean(_log_complement(p0, q0), axis=0)
        gm0 = exact_gm0 = np.exp(log_gm0)
        # 1 - GM(1 - p0) as -expm1(.): 1.0 - gm0 rounds a small lower end (5.9e-21) to 0
        # (attack 14 F5); p keeps gm0 as before; + 0.0 makes -expm1(0) = -0.0 a 0.0
        interval = np.column_stack((-np.expm1(log_gm0) + 0.0, gm1))
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
