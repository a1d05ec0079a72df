"""Class scores -> the scores of the binary problems (one-vs-rest, one-vs-one).

The kinds of class scores (``score=``), never guessed from the values:

- ``"proba"``: probabilities, each row finite, ``>= 0`` and summing to 1
  within ``K * 2**-23`` (the rounding of K float32 numbers, so that the
  softmax of a float32 model passes while raw scores and logits do not).
- ``"logit"``: softmax logits, any finite reals (the probabilities are
  ``softmax(z)``; adding a constant to a row changes nothing).
- ``"margin"``: decision-function margins (any finite reals, higher means
  more likely that class), such as a one-vs-rest linear SVM's.

The binary score of class k against the rest (one-vs-rest), increasing
with the chance of class k:

- proba: ``p_k`` itself (as scikit-learn's ``CalibratedClassifierCV`` and
  venn-abers);
- logit: ``(z_k - logsumexp(z_c, c != k)) / 2``, half the log-odds of
  ``softmax(z)_k``, a strictly increasing function of it;
- margin: ``m_k`` itself.

The binary score of class j against class i (one-vs-one, pair ``(i, j)``,
``i`` before ``j`` in ``classes_``), increasing with ``p_j / (p_i + p_j)``:

- proba: ``ln(p_j / p_i) / 2`` (from the exact ratio: below 2, ``log1p`` of its exact
  excess over 1 rounded once, within 2 ulps; ``+-1075 ln(2) / 2``
  when one of the two is 0, ``0`` when both are);
- logit: ``(z_j - z_i) / 2`` (the same number for a softmax model);
- margin: ``(m_j - m_i) / 2``.

Halves keep every score finite for any finite input (``z_j - z_i`` may
exceed the largest double); each is computed in numba
(:mod:`venncal._kernels.multiclass`), correctly rounded where a formula
allows it, and in any case the same function at fit and predict time.
"""

from __future__ import annotations

import numpy as np

from .._kernels.multiclass import (
    ovr_logit_into,
    pair_half_diff_into,
    pair_log_ratio_into,
)
from .._input_scales import as_array, as_float64
from .._rows import RowError

__all__ = [
    "SCORE_KINDS", "RowError", "check_class_scores", "ovr_scores", "pair_parts", "pair_scores",
    "proba_tolerance",
]

SCORE_KINDS = ("proba", "logit", "margin")


def proba_tolerance(K: int) -> float:
    """How far from 1 a row of K probabilities may sum: ``K * 2**-23``."""
    return K * 2.0**-23


def check_class_scores(scores, K: int, kind: str, *, name: str = "scores", blocks: int | None = None):
    """Return class scores as a C-contiguous float64 array of shape (n, K) (or (n, blocks, K)).

    ``blocks``: the number of folds when per-fold blocks of shape (n, F, K)
    are accepted besides (n, K) (a cross Venn-Abers base).  Errors
    (:class:`RowError`) name the first bad row, counted from 0.
    """
    arr = as_float64(as_array(scores), name)  # texts, 2**53 + 1, "1e-400" as 1-D scores (54 F1)
    shapes = f"(n_samples, {K})" + ("" if blocks is None else f" or (n_samples, {blocks}, {K})")
    ok = arr.ndim == 2 or (blocks is not None and arr.ndim == 3 and arr.shape[1] == blocks)
    if not ok or arr.shape[-1] != K:
        raise ValueError(
            f"{name} must have shape {shapes}: one column per class of classes_ ({K}); "
            f"got shape {arr.shape}"
        )
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty: at least one row is needed")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    flat = arr.reshape(-1, K)
    finite = np.isfinite(flat).all(axis=1)
    if not finite.all():
        i = int(np.flatnonzero(~finite)[0])
        raise _bad(arr, i, f"{name} must be finite; ", f" holds {flat[i].tolist()!r}")
    if kind == "proba":
        negative = (flat < 0).any(axis=1) | (flat > 1).any(axis=1)
        if negative.any():
            i = int(np.flatnonzero(negative)[0])
            raise _bad(arr, i, f"{name} (score='proba') must lie in [0, 1]; ",
                       f" holds {flat[i].tolist()!r} (for logits or margins pass score='logit' "
                       "or 'margin')")
        tol = proba_tolerance(K)
        off = np.abs(flat.sum(axis=1) - 1.0) > tol
        if off.any():
            i = int(np.flatnonzero(off)[0])
            raise _bad(arr, i, f"{name} (score='proba') must have rows summing to 1 (within "
                       f"{tol:.3g}); ", f" sums to {float(flat[i].sum())!r} (for logits or "
                       "margins pass score='logit' or 'margin')")
    return arr


def _bad(arr: np.ndarray, i: int, before: str, after: str) -> RowError:
    """The error for the row of ``arr.reshape(-1, K)[i]`` (of a fold block when 3-D)."""
    if arr.ndim == 3:
        return RowError(before, i // arr.shape[1], after, i % arr.shape[1])
    return RowError(before, i, after)


def ovr_scores(x: np.ndarray, kind: str) -> np.ndarray:
    """The one-vs-rest binary scores of validated class scores (n, K): shape (K, n), one row per class."""
    if kind == "logit":
        out = np.empty((x.shape[1], x.shape[0]))
        ovr_logit_into(x, out)
        return out
    return np.ascontiguousarray(x.T)


def pair_parts(x: np.ndarray, kind: str):
    """What :func:`pair_scores` needs of validated class scores (n, K), computed once."""
    if kind == "proba":
        m, e = np.frexp(x)
        return m, e.astype(np.intp)
    return x


def pair_scores(parts, kind: str, first: np.ndarray, second: np.ndarray,
                rows: np.ndarray | None = None) -> np.ndarray:
    """The one-vs-one binary scores, shape (P, m): row q is class ``second[q]`` against ``first[q]``.

    ``parts`` from :func:`pair_parts`; at the rows ``rows`` (all when None).
    """
    n = (parts[0] if kind == "proba" else parts).shape[0]
    if rows is None:
        rows = np.arange(n)
    out = np.empty((first.shape[0], rows.shape[0]))
    if kind == "proba":
        pair_log_ratio_into(parts[0], parts[1], first, second, rows, out)
    else:
        pair_half_diff_into(parts, first, second, rows, out)
    return out
