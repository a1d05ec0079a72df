"""Every input check of venncal: scores, probabilities, labels, weights, parameters.

One rule each, used by the calibrators, the score summary, the metrics, the
estimator wrappers, :func:`~venncal.baselines.isotonic_regression` and the
command line, so that the same bad input gets the same clear ``ValueError``
or ``TypeError`` everywhere, never a silently wrong answer.

- Scores: finite reals, 1-D, non-empty (:func:`check_scores`).
- Probabilities: reals in ``[0, 1]``, 1-D, non-empty (:func:`check_probabilities`).
- Weights: frequency weights, finite and non-negative, not all zero;
  **a zero weight drops its row**, wherever weights are taken
  (:func:`check_sample_weight`, :func:`nonzero_rows`); clearly relative ones
  get a :class:`WeightScaleWarning` (:func:`warn_if_relative_weights`).
- Labels: any two values at the score level (:func:`check_labels`), 0/1 or a
  named positive label for metrics (:func:`check_binary_labels`), and
  scikit-learn's conventions for classifiers (:func:`check_classifier_targets`).
- Parameters: a small table of constraints per class or function, checked by
  :func:`validate_params` (in the spirit of scikit-learn's
  ``_parameter_constraints``, which is private there); the rules live in
  :mod:`venncal._params`, re-exported here.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._input_scales import (  # re-exported: their users import them from here
    WeightScaleWarning,
    as_array,
    as_float64,
    warn_if_relative_weights,
)
from ._params import (  # re-exported: their users import them from here
    DICT,
    N_JOBS,
    NONE,
    RANDOM_STATE,
    Check,
    Interval,
    Options,
    ParamsMixin,
    validate_params,
)
from ._rows import RowError

__all__ = [
    "DICT",
    "N_JOBS",
    "NONE",
    "RANDOM_STATE",
    "Check",
    "Interval",
    "Options",
    "ParamsMixin",
    "WeightScaleWarning",
    "check_binary_labels",
    "check_classifier_targets",
    "classes_array",
    "check_labels",
    "check_probabilities",
    "check_sample_weight",
    "check_scores",
    "check_weighted_classes",
    "nonzero_rows",
    "observed_labels",
    "validate_params",
    "warn_if_relative_weights",
]


# -- real arrays ----------------------------------------------------------------


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _at(i: int, row_base: int | None) -> str:
    # Arrays count from index 0; tables, for their readers, from row 1.
    return f"at index {i}" if row_base is None else f"in row {i + row_base:,}"


def _bad_value(before: str, i: int, after: str, row_base: int | None,
               count: int | None = None) -> ValueError:
    """The error for the value at index ``i``: a :class:`RowError` that a caller holding a part
    of the rows (or a table's reader) can renumber, or, with ``row_base``, the row named.
    ``count``: the number of bad values when ``before`` says ``"found {count} "``."""
    err = RowError(before, i, after, at_index=True, count=count)
    return err if row_base is None else ValueError(err.renumbered(row_base))


def _real_1d(values, name: str, what: str) -> np.ndarray:
    """``values`` as a contiguous, non-empty 1-D float64 array (not yet checked for NaN)."""
    arr = as_array(values, name)  # (a list of floats and ints past 2**53: 56 F6)
    if arr.dtype.kind == "c":
        raise TypeError(f"{name} must be real numbers; got complex values")
    if arr.ndim == 1:  # (texts too: "9007199254740993", "1e-400": attack 52 F6, 54 F1-F3)
        arr = as_float64(arr, name)
    elif arr.dtype.kind not in "biufOUS":
        raise TypeError(f"{name} must be real numbers; got an array of dtype {arr.dtype}")
    if arr.ndim != 1:
        hint = ""
        if arr.ndim == 2 and arr.shape[1] == 2:
            hint = f" (for the output of predict_proba, pass {name}[:, 1], the positive class)"
        raise ValueError(
            f"{name} must be a 1-D array of shape (n_samples,); got shape {arr.shape}{hint}"
        )
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty: at least one {what} is needed")
    return np.ascontiguousarray(arr, dtype=np.float64)


def check_scores(scores, *, name: str = "scores", row_base: int | None = None) -> np.ndarray:
    """Return ``scores`` as a finite, contiguous 1-D float64 array.

    Raises
    ------
    TypeError
        If the values are not real numbers.
    ValueError
        If not 1-D, empty, or with a NaN or infinite value (named as check_probabilities).
        A bad value is a :class:`~venncal._rows.RowError` naming its index, which a caller
        that passed a part of its rows (or a table's reader) renumbers.

    Examples
    --------
    >>> check_scores([1, 2.5])
    array([1. , 2.5])
    >>> check_scores([0.1, float("nan")])
    Traceback (most recent call last):
    ...
    venncal._rows.RowError: scores must be finite; found 1 NaN or infinite value(s), the first at index 1 (nan)
    """
    arr = _real_1d(scores, name, "value")
    finite = np.isfinite(arr)
    if not finite.all():
        i = _first(~finite)
        raise _bad_value(
            f"{name} must be finite; found {int((~finite).sum())} NaN or infinite value(s), "
            "the first ", i, f" ({float(arr[i])!r})", row_base, int((~finite).sum()),
        )
    return arr


def check_probabilities(p, *, name: str = "p", row_base: int | None = None) -> np.ndarray:
    """Return ``p`` as a contiguous 1-D float64 array of probabilities in ``[0, 1]``.

    Errors name the first bad value by its index, or by its row counted from
    ``row_base`` when given (1 for a table read by the command line).

    Raises
    ------
    TypeError
        If the values are not real numbers.
    ValueError
        If the array is not 1-D, is empty, holds NaN, or a value outside ``[0, 1]``.

    Examples
    --------
    >>> check_probabilities([0, 0.25, 1])
    array([0.  , 0.25, 1.  ])
    """
    arr = _real_1d(p, name, "prediction")
    nan = np.isnan(arr)
    if nan.any():
        raise _bad_value(f"{name} contains {int(nan.sum())} NaN value(s), the first ",
                         _first(nan), "", row_base)
    out = (arr < 0.0) | (arr > 1.0)
    if out.any():
        i = _first(out)
        raise _bad_value(f"{name} must lie in [0, 1]; got {float(arr[i])!r} ", i, "", row_base)
    return arr


def check_sample_weight(
    sample_weight, n: int, *, name: str = "sample_weight", row_base: int | None = None,
    zero_total: bool = False,
) -> np.ndarray | None:
    """Return frequency weights as a float64 array, or None for unit weights.

    Weights are frequency weights: 2 is the same as the row repeated, and a
    row of weight 0 is dropped (:func:`nonzero_rows`).  Errors name the first
    bad weight as :func:`check_probabilities` does.

    Raises
    ------
    TypeError
        For a scalar or non-real weights.
    ValueError
        For a wrong shape or length, NaN, infinite or negative weights, or a
        zero total (allowed with ``zero_total=True``: a batch of a stream,
        whose rows of weight 0 change nothing).
    """
    if sample_weight is None:
        return None
    if isinstance(sample_weight, numbers.Number):
        raise TypeError(f"{name} must be an array of shape (n_samples,) or None")
    w = check_scores(sample_weight, name=name, row_base=row_base)
    if w.shape[0] != n:
        raise ValueError(f"{name} has length {w.shape[0]}, but there are {n} scores")
    negative = w < 0
    if negative.any():
        i = _first(negative)
        raise _bad_value(f"{name} must be non-negative; got {float(w[i])!r} ", i, "", row_base)
    if not zero_total and not (w > 0).any():
        raise ValueError(f"{name} sums to zero: at least one positive weight is needed")
    return w


def nonzero_rows(sample_weight: np.ndarray | None) -> np.ndarray | None:
    """Return the indices of the rows that count (positive weight), or None when all do.

    The one rule for zero weights: such a row is dropped, exactly as if it
    were absent from the data.
    """
    if sample_weight is None or (sample_weight > 0).all():
        return None
    return np.flatnonzero(sample_weight > 0)


# -- labels -----------------------------------------------------------------------


def _label_array(y, n: int | None, other: str = "scores") -> np.ndarray:
    arr = np.asarray(y)
    if isinstance(y, (list, tuple)) and arr.ndim == 1:
        kinds = set(map(type, y))
        if len(kinds) > 1 or (arr.dtype.kind == "f" and any(
                issubclass(t, (int, np.integer)) and t is not bool for t in kinds)):
            # by the label rule, as an object array is: np.asarray([9, "10"]) is text and
            # [True, 2] integers (attack 24 F1); np.asarray([2**64 - 1, 5]) is float64 (23 F3)
            arr = classes_array(y)
    if arr.ndim != 1:
        raise ValueError(f"y must be a 1-D array of shape (n_samples,); got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{other} and y have different lengths: {n} and {arr.shape[0]}")
    if arr.shape[0] == 0:
        raise ValueError("y is empty: at least one label is needed")
    if arr.dtype.kind == "c":
        raise TypeError("y must hold class labels; got complex values")
    arr = label_values(arr)
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError("y contains NaN; labels must be two distinct classes")
    return arr


def label_values(arr: np.ndarray) -> np.ndarray:
    """Labels as an array of numbers, booleans or text (an object array of str becomes text).

    pandas gives text columns as object arrays; classes kept as objects could
    not be saved (``venncal.save`` stores bool, integer, float and str arrays).

    Examples
    --------
    >>> label_values(np.array(["no", "yes"], dtype=object)).dtype
    dtype('<U3')
    """
    if arr.dtype.kind == "O":
        values = arr.tolist()
        if all(isinstance(v, str) for v in values):
            return np.array(values, dtype=str)
        if all(isinstance(v, (bool, np.bool_)) for v in values):
            return np.array(values)
        if all(
            isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
            for v in values
        ):
            return _numbers_exactly(values)
        kinds = sorted({type(v).__name__ for v in values})
        raise TypeError(
            "labels must be numbers (int or float), booleans or text, of one type; got "
            f"{', '.join(kinds)}" + (" (convert them to int, float or str)" if len(kinds) == 1
                                     else "")
        )
    if arr.dtype.kind not in "biufU":
        raise TypeError(f"labels must be numbers, booleans or text; got dtype {arr.dtype}")
    # -0.0 and 0.0 are one label: +0.0, whatever the row order (attack 52 F5: the sign of
    # a saved classes_ followed the first zero met)
    return arr + arr.dtype.type(0) if arr.dtype.kind == "f" else arr


def _numbers_exactly(values: list) -> np.ndarray:
    """Number labels as one array that holds each of them exactly.

    ``np.array([2**60 + 1, 1.5])`` is float64, where ``2**60 + 1`` becomes
    another integer, and ``np.array([2**64 - 1, 5])`` is float64 too: integer
    labels stay int64, or uint64 past it; integers that float64 cannot hold
    beside float labels are refused.
    """
    ints = [int(v) for v in values if isinstance(v, (int, np.integer))]
    if len(ints) == len(values):
        if all(-(2**63) <= v < 2**63 for v in ints):
            return np.array(ints, dtype=np.int64)
        if all(0 <= v < 2**64 for v in ints):
            return np.array(ints, dtype=np.uint64)
        raise ValueError(
            f"labels {_listed(values)} hold integers that no one 64-bit integer type holds "
            "(int64, or uint64 when none is negative)"
        )
    inexact = [v for v in ints if int(float(v)) != v]
    if inexact:
        raise ValueError(
            f"labels {_listed(values)} mix floats with integers that float64 cannot hold "
            f"exactly ({inexact[0]} is not {float(inexact[0])!r}): name integer labels only"
        )
    return np.array([float(v) + 0.0 for v in values], dtype=np.float64)  # (-0.0: 0.0)


def _listed(values: list, most: int = 6) -> str:
    shown = ", ".join(repr(v.item() if isinstance(v, np.generic) else v) for v in values[:most])
    return "[" + shown + (", ...]" if len(values) > most else "]")


def classes_array(classes) -> np.ndarray:
    """``classes`` (a list or an array of labels) as an array that holds every label exactly.

    A list's numbers keep their values (:func:`label_values`): integers past
    2**53 stay integers (int64, or uint64 past it).  A non-1-D ``classes`` is
    returned as ``np.asarray`` gives it, for the caller's own message.

    Examples
    --------
    >>> classes_array([2**60 + 1, 5])
    array([1152921504606846977,                   5])
    >>> classes_array(["no", "yes"])
    array(['no', 'yes'], dtype='<U3')
    """
    if isinstance(classes, np.ndarray):
        return label_values(classes) if classes.ndim == 1 else classes
    if isinstance(classes, (str, bytes)):  # one label, not its characters
        return np.asarray(classes)
    try:
        arr = np.empty(len(classes), dtype=object)
        arr[:] = list(classes)
    except (TypeError, ValueError):  # not a sequence, or nested: np.asarray tells the caller
        return np.asarray(classes)
    if any(isinstance(v, (list, tuple, np.ndarray)) for v in arr.tolist()):
        return np.asarray(classes)
    return label_values(arr)


def _distinct(arr: np.ndarray) -> np.ndarray:
    if arr.dtype.kind in "biuf":
        # Numeric labels: two passes instead of a sort of the whole array.
        lo, hi = arr.min(), arr.max()
        if lo == hi:
            return np.array([lo], dtype=arr.dtype)
        if ((arr == lo) | (arr == hi)).all():
            return np.array([lo, hi], dtype=arr.dtype)
    try:
        return np.unique(arr)
    except TypeError:
        raise TypeError(
            "y mixes labels of types that cannot be compared; use labels of one type"
        ) from None


def _shown(values: np.ndarray, most: int = 5) -> str:
    more = ", ..." if values.shape[0] > most else ""
    return ", ".join(repr(v) for v in values[:most].tolist()) + more


def _two_classes(observed: np.ndarray) -> None:
    if observed.shape[0] > 2:
        raise ValueError(
            f"y has {observed.shape[0]} classes ({_shown(observed)}); venncal calibrates "
            "binary classifiers and needs exactly two classes"
        )


def observed_labels(y, n: int | None = None) -> np.ndarray:
    """Return the distinct labels of ``y``, sorted: one or two of them.

    Raises
    ------
    ValueError
        For more than two classes, NaN labels, or empty or mismatched input.
    TypeError
        For labels of types that cannot be compared, or complex values.

    Examples
    --------
    >>> observed_labels(["no", "yes", "no"])
    array(['no', 'yes'], dtype='<U3')
    """
    observed = _distinct(_label_array(y, n))
    _two_classes(observed)
    return observed


def check_labels(
    y,
    n: int | None = None,
    classes=None,
    *,
    advice: str = "pass classes=[negative, positive]",
    single_01: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(classes_, y01)`` for the labels of a calibration set.

    ``classes_`` holds the two labels: ``classes`` in the order given when
    it is given (``[negative, positive]``), else the two observed labels
    sorted (numbers as numbers, text as text), so that the larger is the
    positive class.  ``y01`` is a boolean array, True where the label is
    ``classes_[1]`` (the positive class).  A single observed class is
    accepted when ``classes`` names the two labels, when it is a bool, or,
    with ``single_01`` (streams), when it is the number 0 or 1; otherwise the
    error ends with ``advice``.  Batch calibrators pass ``single_01=False``:
    one class coded 1 may be the negative class of labels 1/2 (German credit).

    Raises
    ------
    ValueError
        For more than two classes, labels outside ``classes``, NaN labels,
        empty or mismatched input, or one class that cannot be placed.

    Examples
    --------
    >>> classes, y01 = check_labels(["no", "yes", "yes"])
    >>> classes, y01
    (array(['no', 'yes'], dtype='<U3'), array([False,  True,  True]))
    >>> check_labels(["good", "bad", "good"], classes=["good", "bad"])
    (array(['good', 'bad'], dtype='<U4'), array([False,  True, False]))
    >>> check_labels([1, 1, 1], single_01=False)
    Traceback (most recent call last):
    ...
    ValueError: y holds a single class (1), so it is unknown whether it is the positive class; pass classes=[negative, positive]
    """
    arr = _label_array(y, n)
    observed = _distinct(arr)
    _two_classes(observed)
    if classes is not None:
        cls = classes_array(classes)
        if cls.ndim != 1 or cls.shape[0] != 2 or cls[0] == cls[1]:
            raise ValueError(f"classes must name exactly two distinct labels; got {classes!r}")
        unknown = [v for v in observed.tolist() if v not in cls.tolist()]
        if unknown:
            shown = cls.tolist()  # the labels, not numpy's repr of them
            raise ValueError(f"y holds label(s) {unknown!r} that are not in classes={shown!r}")
    elif observed.shape[0] == 2:
        cls = observed
    elif arr.dtype.kind == "b":
        cls = np.array([False, True])
    elif single_01 and arr.dtype.kind in "iuf" and observed[0].item() in (0, 1):
        cls = np.array([0, 1], dtype=arr.dtype)
    else:
        why = ", and it is not 0 or 1," if single_01 else ","
        only = observed[0].item() if isinstance(observed[0], np.generic) else observed[0]
        raise ValueError(
            f"y holds a single class ({only!r}){why} so it is unknown whether it "
            f"is the positive class; {advice}"
        )
    return cls, arr == cls[1]


def check_binary_labels(y, n: int, pos_label=None) -> np.ndarray:
    """Return labels as a boolean array (True: positive) for a metric.

    Without ``pos_label`` the labels must be 0 and 1 (or booleans); with it,
    any two labels, ``pos_label`` being the positive one.

    Raises
    ------
    ValueError
        For other labels, more than two classes, NaN, a wrong shape or a
        length other than ``n``.

    Examples
    --------
    >>> check_binary_labels([0, 1, 1], 3)
    array([False,  True,  True])
    >>> check_binary_labels(["a", "b"], 2, pos_label="a")
    array([ True, False])
    """
    arr = _label_array(y, n, other="p")
    if pos_label is None:
        if arr.dtype.kind == "b":
            return arr
        if arr.dtype.kind in "iuf" and ((arr == 0) | (arr == 1)).all():
            return arr == 1
        raise ValueError(
            f"y must hold the labels 0 and 1 (or booleans); got {_shown(_distinct(arr), 4)}. "
            "For other labels name the positive class with pos_label="
        )
    observed = _distinct(arr)
    _two_classes(observed)
    if observed.shape[0] == 2 and pos_label not in observed.tolist():
        raise ValueError(
            f"pos_label={pos_label!r} is not one of the labels {observed.tolist()!r}"
        )
    return arr == pos_label


def check_classifier_targets(estimator_name: str, y, *, multiclass: bool = False):
    """Validate a classifier's targets; return ``(y, classes_, y01)``.

    Raises scikit-learn's errors (its estimator checks test them): continuous targets,
    one class, more than two unless ``multiclass`` (then ``y01`` indexes ``classes_``).
    """
    from sklearn.utils.multiclass import check_classification_targets, type_of_target
    from sklearn.utils.validation import column_or_1d

    y = column_or_1d(y, warn=True)
    if y.shape[0] == 0:
        raise ValueError(f"{estimator_name} needs at least one sample; got 0 samples")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError("Input y contains NaN or infinity; labels must be two classes")
    check_classification_targets(y)
    classes, codes = np.unique(y, return_inverse=True)
    if classes.shape[0] < 2:
        raise ValueError(
            f"{estimator_name} needs samples of at least 2 classes in the data, but the data "
            f"contains only one class: {classes[:1].tolist()[0]!r}"
        )
    if not multiclass and (classes.shape[0] > 2 or type_of_target(y) != "binary"):
        raise ValueError(
            f"Only binary classification is supported. The type of the target is "
            f"{type_of_target(y)} ({classes.shape[0]} classes); {estimator_name} needs two. "
            "Wrap it in sklearn.multiclass.OneVsRestClassifier for more classes."
        )
    return y, classes, codes.astype(np.intp) if multiclass else y == classes[1]


def check_weighted_classes(estimator_name: str, classes, y01, sample_weight) -> None:
    """Raise if a class has zero total weight (``y01``: 0/1, or indices into ``classes``)."""
    if sample_weight is None:
        return
    for k, label in enumerate(np.asarray(classes).tolist()):  # 1, not np.int64(1), in messages
        if not (sample_weight[np.asarray(y01) == k] > 0).any():
            raise ValueError(
                f"{estimator_name} needs samples of at least 2 classes with positive weight; "
                f"class {label!r} has zero total sample_weight"
            )
