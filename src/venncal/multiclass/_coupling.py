"""Pairwise coupling: K class probabilities from the K(K-1)/2 pairwise ones.

For a pair ``(i, j)`` of classes the binary calibrator gives ``r_ji``, the
probability of class ``j`` given that the class is ``i`` or ``j``, and
``r_ij``, that of class ``i``: its ``predict_proba`` column 0, which keeps its
own relative precision where ``r_ij`` is tiny and ``1 - r_ji`` would round it
to 0 or to a multiple of ``2**-53`` (without it, ``r_ij = 1 - r_ji``).  Three rules turn them into probabilities ``p`` that sum
to 1 (vectorised over the rows):

``"normalize"``
    ``p_i = 2 / (K (K - 1)) * sum_{j != i} r_ij``: the mean of the pairwise
    probabilities of ``i``, which sum to 1 over the classes without
    rescaling.
``"price"``
    ``p_i = 1 / (sum_{j != i} 1 / r_ij - (K - 2))``, then normalised to sum
    to 1 (Price, Knerr, Personnaz & Dreyfus 1995, "Pairwise neural network
    classifiers with probabilistic outputs", NIPS 7), as in venn-abers and
    MAPIE (Manokhin 2017, "Multi-class probabilistic classification using
    inductive and cross Venn-Abers predictors", COPA).  ``r_ij = 0`` gives
    ``p_i = 0``; a row whose K values are all 0 (possible only when the
    binary calibrators output 0 and 1, never with Venn-Abers, whose outputs
    lie strictly inside (0, 1)) gets the ``"normalize"`` rule instead.
``"wu-lin-weng"``
    Wu, Lin & Weng 2004, "Probability estimates for multi-class
    classification by pairwise coupling" (JMLR 5), method 2 (their eq. (21)):
    ``p`` minimises ``sum_i sum_{j != i} (r_ji p_i - r_ij p_j)**2`` subject to
    ``sum_i p_i = 1``, the solution of the (K+1) x (K+1) linear system
    ``[[Q, e], [e', 0]] [p; b] = [0; 1]`` with ``Q_ii = sum_{s != i} r_si**2``
    and ``Q_ij = -r_ji r_ij``.  Solved for all rows at once (LAPACK); a row
    whose system is singular (pairwise probabilities of exactly 0 and 1) is
    solved in the least-squares sense instead.  The solution is non-negative
    in exact arithmetic (their Theorem 2); rounding below 0 is clipped and the
    row renormalised.
"""

from __future__ import annotations

import numpy as np

from .._kernels.multiclass import normalize_into, price_into

__all__ = ["COUPLINGS", "couple"]

COUPLINGS = ("normalize", "price", "wu-lin-weng")


def _pairwise_matrix(r: np.ndarray, r0: np.ndarray, first: np.ndarray, second: np.ndarray,
                     K: int) -> np.ndarray:
    """``R[:, i, j] = r_ij`` (probability of ``i`` within pair ``{i, j}``), 0 on the diagonal."""
    n = r.shape[0]
    R = np.zeros((n, K, K))
    R[:, second, first] = r
    R[:, first, second] = r0
    return R


def _normalize(R: np.ndarray, K: int) -> np.ndarray:
    return R.sum(axis=2) * (2.0 / (K * (K - 1)))


def _wu_lin_weng(R: np.ndarray, K: int) -> np.ndarray:
    n = R.shape[0]
    Rt = np.swapaxes(R, 1, 2)  # Rt[:, i, s] = r_si
    A = np.zeros((n, K + 1, K + 1))
    Q = -Rt * R  # Q_ij = -r_ji r_ij (the diagonal is 0 here: r_ii = 0)
    idx = np.arange(K)
    Q[:, idx, idx] = (Rt * Rt).sum(axis=2)  # Q_ii = sum_s r_si**2
    A[:, :K, :K] = Q
    A[:, :K, K] = 1.0
    A[:, K, :K] = 1.0
    rhs = np.zeros((n, K + 1))
    rhs[:, K] = 1.0
    try:
        sol = np.linalg.solve(A, rhs[..., None])[..., 0]
    except np.linalg.LinAlgError:
        sol = np.empty((n, K + 1))
        for row in range(n):
            try:
                sol[row] = np.linalg.solve(A[row], rhs[row])
            except np.linalg.LinAlgError:
                sol[row] = np.linalg.lstsq(A[row], rhs[row], rcond=None)[0]
    p = np.clip(sol[:, :K], 0.0, None)
    bad = ~np.isfinite(p).all(axis=1) | ~(p.sum(axis=1) > 0)
    if bad.any():
        p[bad] = _normalize(R[bad], K)
    return p / p.sum(axis=1, keepdims=True)


def couple(r, first, second, K: int, method: str, r0=None) -> np.ndarray:
    """Class probabilities, shape (n, K), from pairwise ``r`` of shape (P, n).

    ``r[q]`` is the probability of class ``second[q]`` against class
    ``first[q]``; ``r0[q]`` (same shape; default ``1 - r``) that of class
    ``first[q]`` against class ``second[q]``, the pair calibrator's column 0;
    ``method`` one of :data:`COUPLINGS` (see the module docstring for the
    formulas).

    Examples
    --------
    >>> import numpy as np
    >>> first, second = np.array([0, 0, 1]), np.array([1, 2, 2])
    >>> r = np.array([[0.5], [0.5], [0.5]])
    >>> couple(r, first, second, 3, "price")
    array([[0.33333333, 0.33333333, 0.33333333]])
    >>> couple(np.array([[0.2], [0.2], [0.5]]), first, second, 3, "normalize").round(4)
    array([[0.5333, 0.2333, 0.2333]])
    """
    r = np.ascontiguousarray(r, dtype=np.float64)
    if r0 is None:
        r0 = 1.0 - r
    r0 = np.ascontiguousarray(r0, dtype=np.float64)
    if r0.shape != r.shape:
        raise ValueError(f"r0 must have the shape of r, {r.shape}; got {r0.shape}")
    first = np.ascontiguousarray(first, dtype=np.intp)
    second = np.ascontiguousarray(second, dtype=np.intp)
    out = np.empty((r.shape[1], K))
    if method == "normalize":
        normalize_into(r, r0, first, second, out)
        return out
    if method == "price":
        price_into(r, r0, first, second, out)
        return out
    if method == "wu-lin-weng":
        R = _pairwise_matrix(np.ascontiguousarray(r.T), np.ascontiguousarray(r0.T), first, second, K)
        return _wu_lin_weng(R, K)
    raise ValueError(f"coupling must be one of {', '.join(map(repr, COUPLINGS))}; got {method!r}")
