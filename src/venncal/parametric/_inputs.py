"""Inputs of the parametric calibrators: class score rows, class labels, weights."""

from __future__ import annotations

import numpy as np

from ..multiclass._labels import _label_values, class_codes
from ..multiclass._scores import check_class_scores

__all__ = ["check_fitted_classes", "class_codes", "class_score_rows", "power_of_two_scale"]


def _as_array(scores) -> np.ndarray:
    """``np.asarray``, or ``np.from_dlpack`` for an array that only speaks DLPack (torch, jax)."""
    if hasattr(scores, "__dlpack__") and not isinstance(scores, np.ndarray):
        try:
            return np.from_dlpack(scores)
        except (BufferError, RuntimeError, TypeError):  # e.g. on a GPU: copy through asarray
            pass
    return np.asarray(scores)


def class_score_rows(scores, kind: str, classes, *, fitted: bool = False):
    """Return ``(z, top)``: validated class scores (n, K) and each row's largest score.

    ``kind="logit"`` keeps float32 scores as float32 (the kernels read them
    as float64); a row whose spread (largest minus smallest) is not a
    finite double is refused.  ``kind="proba"`` validates probabilities as
    the multiclass calibrators do and returns their logarithms (``-inf`` for
    0).  ``classes``: the known classes (their number is K) or None.
    """
    arr = _as_array(scores)
    K = None if classes is None else len(classes)
    if K is None:
        if arr.ndim != 2 or arr.shape[1] < 2:
            raise ValueError(
                "scores must have shape (n_samples, K), one column per class, K >= 2; "
                f"got shape {arr.shape}"
            )
        K = arr.shape[1]
    if kind == "proba":
        p = check_class_scores(arr, K, "proba")
        with np.errstate(divide="ignore"):
            z = np.log(p)
        return z, z.max(axis=1)
    if arr.dtype == np.float32 and arr.ndim == 2 and arr.shape[-1] == K and arr.shape[0]:
        if not np.isfinite(arr).all():
            check_class_scores(arr, K, "logit")  # raises, naming the row
        z = np.ascontiguousarray(arr)
    else:
        z = check_class_scores(arr, K, "logit")
    top = z.max(axis=1).astype(np.float64)
    with np.errstate(over="ignore"):
        spread = top - z.min(axis=1).astype(np.float64)
    wide = ~np.isfinite(spread)
    if wide.any():
        i = int(np.flatnonzero(wide)[0])
        raise ValueError(
            f"scores row {i} spans more than the largest double ({z[i].min()!r} to "
            f"{z[i].max()!r}): its softmax is 0 or 1 to every digit; rescale the logits"
        )
    return z, top


def power_of_two_scale(w: np.ndarray) -> np.ndarray:
    """Return ``w`` divided by the power of two at or below its largest value (exact).

    The weights' ratios are unchanged bit for bit (the division is by a
    power of two, and a result that would be subnormal is one that is
    negligible, 2**-1022 of the largest, in a weighted mean), and weighted
    sums neither overflow (weights near 1e308) nor lose every digit
    (weights near 1e-310).
    """
    _, e = np.frexp(np.max(w))
    return np.ldexp(w, 1 - int(e))


def check_fitted_classes(classes_, classes) -> np.ndarray:
    """Return a reloaded ``classes_``, or raise ``ValueError`` unless ``fit`` could give it.

    K >= 2 distinct labels (numbers, booleans or text): the ``classes``
    parameter when it was given, else sorted.
    """
    if (not isinstance(classes_, np.ndarray) or classes_.ndim != 1
            or classes_.dtype.kind not in "biufU" or classes_.shape[0] < 2
            or np.unique(classes_).shape[0] != classes_.shape[0]):
        raise ValueError("classes_ must be an array of at least two distinct labels")
    if classes is not None:
        if not np.array_equal(classes_, _label_values(np.asarray(classes))):
            raise ValueError("classes_ must be the classes parameter")
    elif not np.array_equal(np.unique(classes_), classes_):
        raise ValueError("classes_ must be sorted (no classes parameter was given)")
    return classes_
