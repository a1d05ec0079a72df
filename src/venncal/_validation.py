"""Input checks shared by every calibrator: scores, labels and weights.

Bad input gets a clear ``ValueError`` or ``TypeError``, never a silently
wrong answer.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["check_labels", "check_sample_weight", "check_scores"]


def _first_bad(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def check_scores(scores, *, name: str = "scores") -> np.ndarray:
    """Return ``scores`` as a finite, contiguous 1-D float64 array.

    Raises
    ------
    TypeError
        If the values are not real numbers.
    ValueError
        If the array is not 1-D, is empty, or holds NaN or infinite values.
    """
    arr = np.asarray(scores)
    if arr.dtype.kind in "OUS":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{name} must be real numbers; got an array of dtype {arr.dtype}"
            ) from None
    elif arr.dtype.kind == "c":
        raise TypeError(f"{name} must be real numbers; got complex values")
    elif arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be real numbers; got an array of dtype {arr.dtype}")
    if arr.ndim != 1:
        hint = ""
        if arr.ndim == 2 and arr.shape[1] == 2:
            hint = " (for the output of predict_proba, pass its column of the positive class)"
        raise ValueError(
            f"{name} must be a 1-D array of shape (n_samples,); got shape {arr.shape}{hint}"
        )
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty: at least one value is needed")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    finite = np.isfinite(arr)
    if not finite.all():
        bad = ~finite
        i = _first_bad(bad)
        raise ValueError(
            f"{name} must be finite; found {int(bad.sum())} NaN or infinite value(s), "
            f"the first at index {i} ({arr[i]!r})"
        )
    return arr


def _as_label_array(y, n: int | None) -> np.ndarray:
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"y must be a 1-D array of shape (n_samples,); got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"scores and y have different lengths: {n} and {arr.shape[0]}")
    if arr.shape[0] == 0:
        raise ValueError("y is empty: at least one label is needed")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError("y contains NaN; labels must be two distinct classes")
    if arr.dtype.kind == "c":
        raise TypeError("y must hold class labels; got complex values")
    return arr


def _unique_labels(arr: np.ndarray) -> np.ndarray:
    if arr.dtype.kind in "biuf":
        # Fast path for numeric labels: no sort of the whole array.
        lo = arr.min()
        hi = arr.max()
        if lo == hi:
            return np.array([lo], dtype=arr.dtype)
        if ((arr == lo) | (arr == hi)).all():
            return np.array([lo, hi], dtype=arr.dtype)
        return np.unique(arr)
    try:
        return np.unique(arr)
    except TypeError:
        raise TypeError(
            "y mixes labels of types that cannot be compared; use labels of one type"
        ) from None


def check_labels(y, n: int | None = None, classes=None) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(classes_, y01)`` for binary labels.

    ``classes_`` holds the two labels, sorted; ``y01`` is a boolean array, True
    where the label is ``classes_[1]`` (the positive class).

    A single observed class is accepted when it is 0 or 1 (or a bool), or
    when ``classes`` names the two labels.

    Raises
    ------
    ValueError
        For more than two classes, labels outside ``classes``, NaN labels,
        empty or mismatched input, or one class that cannot be placed.
    """
    arr = _as_label_array(y, n)
    observed = _unique_labels(arr)
    if observed.shape[0] > 2:
        shown = ", ".join(repr(v) for v in observed[:5].tolist())  # plain Python values
        more = ", ..." if observed.shape[0] > 5 else ""
        raise ValueError(
            f"y has {observed.shape[0]} classes ({shown}{more}); venncal calibrates binary "
            "classifiers and needs exactly two classes"
        )
    if classes is not None:
        cls = np.asarray(classes)
        if cls.ndim != 1 or cls.shape[0] != 2 or cls[0] == cls[1]:
            raise ValueError(f"classes must name exactly two distinct labels; got {classes!r}")
        cls = np.sort(cls)
        unknown = [v for v in observed.tolist() if v not in cls.tolist()]
        if unknown:
            raise ValueError(f"y holds label(s) {unknown!r} that are not in classes={classes!r}")
    elif observed.shape[0] == 2:
        cls = observed
    else:
        only = observed[0].item()
        if arr.dtype.kind in "biuf" and only in (0, 1):
            cls = np.array([0, 1], dtype=arr.dtype)
        else:
            raise ValueError(
                f"y holds a single class ({only!r}), and it is not 0 or 1, so it is unknown "
                "whether it is the positive class; pass classes=[negative, positive]"
            )
    y01 = arr == cls[1]
    return cls, y01


def check_sample_weight(sample_weight, n: int) -> np.ndarray | None:
    """Return frequency weights as a float64 array, or None for unit weights.

    Raises
    ------
    ValueError
        For a wrong shape, NaN, infinite or negative weights, or a zero total.
    """
    if sample_weight is None:
        return None
    if isinstance(sample_weight, numbers.Number):
        raise TypeError("sample_weight must be an array of shape (n_samples,) or None")
    w = check_scores(sample_weight, name="sample_weight")
    if w.shape[0] != n:
        raise ValueError(f"sample_weight has length {w.shape[0]}, but there are {n} scores")
    if (w < 0).any():
        i = _first_bad(w < 0)
        raise ValueError(f"sample_weight must be non-negative; got {w[i]!r} at index {i}")
    if not (w > 0).any():
        raise ValueError("sample_weight sums to zero: at least one positive weight is needed")
    return w
