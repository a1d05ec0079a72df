"""Input checks shared by every metric, and the (weighted) mean they average with.

Every metric is a function of ``(y, p)``: labels in {0, 1} (or booleans) and
the predicted probability of the positive class.  NumPy only.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import check_sample_weight


def _check_probabilities(p, name: str = "p") -> np.ndarray:
    arr = np.asarray(p)
    if arr.dtype.kind in "OUS":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must hold real numbers; got dtype {arr.dtype}") from None
    elif arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers; got dtype {arr.dtype}")
    if arr.ndim != 1:
        hint = ""
        if arr.ndim == 2 and arr.shape[1] == 2:
            hint = f" (for the output of predict_proba, pass {name}[:, 1])"
        raise ValueError(f"{name} must be 1-D of shape (n_samples,); got shape {arr.shape}{hint}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty: at least one prediction is needed")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    nan = np.isnan(arr)
    if nan.any():
        i = int(np.flatnonzero(nan)[0])
        raise ValueError(f"{name} contains {int(nan.sum())} NaN value(s), the first at index {i}")
    out = (arr < 0.0) | (arr > 1.0)
    if out.any():
        i = int(np.flatnonzero(out)[0])
        raise ValueError(f"{name} must lie in [0, 1]; got {arr[i]!r} at index {i}")
    return arr


def _check_binary_labels(y, n: int, pos_label) -> np.ndarray:
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"y must be 1-D of shape (n_samples,); got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"y and p have different lengths: {arr.shape[0]} and {n}")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError("y contains NaN; labels must be 0 and 1")
    if pos_label is None:
        if arr.dtype.kind == "b":
            return arr
        if arr.dtype.kind in "iuf" and ((arr == 0) | (arr == 1)).all():
            return arr == 1
        shown = ", ".join(repr(v) for v in np.unique(arr)[:4].tolist())
        raise ValueError(
            f"y must hold the labels 0 and 1 (or booleans); got {shown}. "
            "For other labels name the positive class with pos_label="
        )
    try:
        labels = np.unique(arr)
    except TypeError:
        raise TypeError("y mixes labels of types that cannot be compared") from None
    if labels.shape[0] > 2:
        raise ValueError(f"y must hold two classes; got {labels.shape[0]}")
    if labels.shape[0] == 2 and pos_label not in labels.tolist():
        raise ValueError(f"pos_label={pos_label!r} is not one of the labels {labels.tolist()!r}")
    return arr == pos_label


def _check_inputs(y, p, pos_label=None, sample_weight=None):
    """Return ``(y01, p, w)``: boolean labels, float64 ``p``, weights or None."""
    p = _check_probabilities(p)
    y01 = _check_binary_labels(y, p.shape[0], pos_label)
    return y01, p, check_sample_weight(sample_weight, p.shape[0])


def _mean(values: np.ndarray, w: np.ndarray | None) -> float:
    return float(np.mean(values) if w is None else np.average(values, weights=w))


def _check_real(value, name: str, low: float, high: float, *, low_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {value!r}")
    v = float(value)
    if not (low < v if low_open else low <= v) or not v <= high:
        left = "(" if low_open else "["
        raise ValueError(f"{name} must lie in {left}{low}, {high}]; got {value!r}")
    return v
