"""The labels of K classes: their values, and each row's index among the classes.

:func:`class_codes` is the one rule for the multiclass calibrators (here)
and the parametric ones (:mod:`venncal.parametric`): labels are numbers,
booleans or text of one type, never NaN; the classes are those given, in
their order, or else the observed labels sorted.
"""

from __future__ import annotations

import numpy as np

from .._validation import classes_array
from .._validation import label_values as _label_values

__all__ = ["class_codes", "observed_codes", "recoded"]


def observed_codes(y, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(observed, codes)``: the distinct labels of ``y`` sorted and each row's index.

    Raises
    ------
    ValueError
        For ``y`` that is not 1-D of length ``n``, or holds NaN.
    TypeError
        For labels that are not numbers, booleans or text of one type.
    """
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"y must be a 1-D array of shape (n_samples,); got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"scores and y have different lengths: {n} and {arr.shape[0]}")
    arr = _label_values(arr)
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError("y contains NaN; labels must be class labels")
    try:
        observed, codes = np.unique(arr, return_inverse=True)
    except TypeError:
        raise TypeError("y mixes labels of types that cannot be compared") from None
    return observed, codes.astype(np.intp)


def recoded(observed: np.ndarray, codes: np.ndarray, given: np.ndarray) -> np.ndarray:
    """Each row's index among the ``given`` classes (``codes`` index ``observed``).

    Raises
    ------
    ValueError
        For an observed label that is not among ``given``.
    """
    known = given.tolist()
    unknown = [v for v in observed.tolist() if v not in known]
    if unknown:
        raise ValueError(f"y holds label(s) {unknown!r} that are not in classes={known!r}")
    where = {v: i for i, v in enumerate(known)}
    return np.array([where[v] for v in observed.tolist()], dtype=np.intp)[codes]


def class_codes(y, n: int, classes, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(classes_, codes)``: the K classes and each row's index among them.

    ``classes`` (distinct labels) when given, else the labels of ``y``
    sorted, which must then be K.

    Examples
    --------
    >>> class_codes(["b", "a", "b"], 3, None, 2)
    (array(['a', 'b'], dtype='<U1'), array([1, 0, 1]))
    >>> class_codes([2, 1, 2], 3, [2, 1, 0], 3)
    (array([2, 1, 0]), array([0, 1, 0]))
    """
    observed, codes = observed_codes(y, n)
    if classes is None:
        if observed.shape[0] != K:
            raise ValueError(
                f"y holds {observed.shape[0]} classes ({observed.tolist()[:10]!r}) but the "
                f"scores have {K} columns; pass classes= (the label of each column, in order)"
            )
        return observed, codes
    given = classes_array(classes)
    if np.unique(given).shape[0] != given.shape[0]:
        raise ValueError(f"classes must be distinct labels; got {classes!r}")
    return given, recoded(observed, codes, given)
