"""Minimax merges of Venn-Abers pairs into one probability (Vovk, Petej & Fedorova 2015, section 4)."""

from __future__ import annotations

import numpy as np

from .._validation import Options, validate_params

__all__ = ["MERGES", "brier_minimax", "log_minimax", "merge_folds", "minimax"]

MERGES = ("log", "brier")


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


def merge_folds(p0, p1, merge: str = "log"):
    """Merge the pairs of K Venn-Abers predictors (CVAP, Vovk, Petej & Fedorova 2015, Algorithm 7).

    Parameters
    ----------
    p0, p1 : ndarray of shape (K, n)
        Lower and upper probabilities of each of K predictors.
    merge : {"log", "brier"}, default="log"
        ``"log"``: ``GM(p1) / (GM(1 - p0) + GM(p1))`` with GM the geometric
        mean over the K predictors; ``"brier"``: the mean over the K
        predictors of ``p1 + p0**2/2 - p1**2/2``.

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
    validate_params("merge_folds", {"merge": merge}, {"merge": [Options(MERGES)]})
    p0 = np.asarray(p0, dtype=np.float64)
    p1 = np.asarray(p1, dtype=np.float64)
    if p0.shape != p1.shape or p0.ndim != 2:
        raise ValueError("p0 and p1 must both have shape (K, n)")
    if p0.shape[0] == 1:  # exact for a single predictor: no exp(log(.)) round trip
        gm1 = p1[0]
        gm0 = 1.0 - p0[0]
    else:
        # Both are > 0 for exact Venn-Abers outputs (Vovk, Petej & Fedorova 2015, Lemma 2), but
        # p0 rounds to 1 when 1 - p0 < 2**-54 (a class of weight past 2**53):
        # a geometric mean with a factor 0 is then 0, as the formula says.
        with np.errstate(divide="ignore"):
            gm1 = np.exp(np.mean(np.log(p1), axis=0))
            gm0 = np.exp(np.mean(np.log1p(-p0), axis=0))
    interval = np.column_stack((1.0 - gm0, gm1))
    if p0.shape[0] == 1:
        interval = np.column_stack((p0[0], p1[0]))
    p = gm1 / (gm0 + gm1) if merge == "log" else np.mean(brier_minimax(p0, p1), axis=0)
    return p, interval

