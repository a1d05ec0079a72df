"""The label rule: what a label is, how text labels get their type, how text names one.

A label (or a group id, such as a fold) is a number, a boolean or text;
values of other types (dates, times, decimals, ...) become their text.
Labels read as text (CSV) are typed from all their distinct values at once
(:func:`typed_labels`), so that a column's type never depends on which
rows were seen first.  Every reader (the local one, the Dask files engine)
and every engine that fits from summaries (``venncal._engine``) applies
these rules, so one table gives one model whatever read it.
"""

from __future__ import annotations

import math
import numbers
import re
from fractions import Fraction

import numpy as np

from ._errors import Param, ParameterError
from ._formats import arrow

__all__ = ["classes_for", "label_value", "matches_label", "typed_labels"]


def label_value(value):
    """Return a label as a model keeps it: a number, a boolean or text (other types as text).

    Numpy scalars become the Python values they hold; ``None`` (a missing
    label) stays ``None``.

    Examples
    --------
    >>> import datetime, numpy as np
    >>> from venncal.tables import label_value
    >>> label_value(np.int64(3)), label_value("yes"), label_value(True)
    (3, 'yes', True)
    >>> label_value(datetime.date(2020, 1, 2))
    '2020-01-02'
    """
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


#: float labels of these sizes are read from text by rounding; outside, only exactly
_EXACT_BELOW, _EXACT_FROM = 2.0**-1022, 2.0**53


def typed_labels(texts: np.ndarray) -> np.ndarray:
    """Return labels read as text typed as numbers or booleans when they all are, else as text.

    Blanks around a label are not part of it (``' 1 '`` is ``'1'``, as for
    numbers).  The first type that takes every distinct label exactly: int64, uint64,
    booleans (``true``/``false`` in any case), float64; text otherwise.  As
    pyarrow's inference of a CSV column, with two differences: integers
    past int64 stay exact (uint64, or text), and labels are never made other
    numbers by rounding to float64: two different numbers that would be one
    double, or a number of magnitude 2**53 or more that is not a double nor
    its shortest form (``-9223372036854775809``), keep the labels text.
    Dates stay text.

    Parameters
    ----------
    texts : ndarray of str

    Returns
    -------
    ndarray
        Of int64, uint64, bool, float64, or ``texts`` itself.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.tables import typed_labels
    >>> typed_labels(np.array(["1", "01", "-1"]))
    array([ 1,  1, -1])
    >>> typed_labels(np.array(["TRUE", "false"]))
    array([ True, False])
    >>> typed_labels(np.array(["2020-01-01", "2020-01-02"]))
    array(['2020-01-01', '2020-01-02'], dtype='<U10')
    """
    pa = arrow()
    names, index = np.unique(texts, return_inverse=True)
    stripped = np.char.strip(names)
    if (stripped != names).any():  # blanks around a label are not part of it
        names, inverse = np.unique(stripped, return_inverse=True)
        index = inverse[index]
        texts = names[index]
    arr = pa.array(names.tolist(), pa.string())
    for t in (pa.int64(), pa.uint64()):
        try:
            return pa.compute.cast(arr, t).to_numpy()[index]
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    lower = np.char.lower(names)
    if np.isin(lower, ["true", "false"]).all():
        return (lower == "true")[index]
    try:
        values = pa.compute.cast(arr, pa.float64()).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return texts
    if np.unique(values).shape[0] < names.shape[0] and not _same_numbers(names, values):
        return texts
    # integers past 2**53 may round, texts past the range read as inf, below it as 0
    large = np.flatnonzero(~(np.abs(values) < _EXACT_FROM) | (np.abs(values) < _EXACT_BELOW))
    if not all(_read_exactly(names[i], values[i]) for i in large):
        return texts
    return values[index]


def _same_numbers(names: np.ndarray, values: np.ndarray) -> bool:
    """Whether texts that became the same float64 are the same number (``1`` and ``1.0``)."""
    seen: dict = {}
    for text, value in zip(names.tolist(), values.tolist(), strict=True):
        exact = _decimal(text)
        if exact is None:
            return False
        if seen.setdefault(value, exact) != exact:
            return False
    return True


def _read_exactly(text: str, value: float) -> bool:
    """Whether a number's text is the double (``2**60``) or its shortest form (``1.5e300``).

    ``1e400`` (read as inf) and ``1e-400`` (read as 0) are neither: such labels stay text.

    ``-9223372036854775809`` (past int64) is neither: as a float64 it would
    be another integer, so such labels stay text.
    """
    if not math.isfinite(value):  # inf, nan, and "1e400" read as inf: not a label of a model
        return False
    number = _decimal(text)
    if number is None:
        return False
    return number == Fraction(float(value)) or number == Fraction(repr(float(value)))


def labels_named(observed: np.ndarray, text) -> list:
    """Return the labels of ``observed`` (distinct, as read) that ``text`` names, as plain values.

    Each is matched by :func:`matches_label` as the array holds it, so a
    float32 label is named by its float32 text (``"0.1"``) and returned as
    the double it holds.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.tables._labels import labels_named
    >>> labels_named(np.array([5, 7]), "7"), labels_named(np.array([0.1, 0.2], np.float32), "0.1")
    ([7], [0.10000000149011612])
    """
    return [label_value(o) for o in observed if matches_label(o, text)]


def matches_label(label, text) -> bool:
    """Whether ``text`` names ``label`` as read: equal, or its text (``"1"`` names the number 1).

    Examples
    --------
    >>> from venncal.tables import matches_label
    >>> matches_label(1, "1.0"), matches_label(True, "true"), matches_label("yes", "yes")
    (True, True, True)
    >>> matches_label(1, "one")
    False

    A number or boolean names a text label that reads as it (``10`` names
    ``"10"``, ``True`` names ``"True"``: Dask holds a column of Python
    objects as text):

    >>> matches_label("10", 10), matches_label("10", 10.5), matches_label("True", 1)
    (True, False, False)
    >>> matches_label("True", True), matches_label("1", True)
    (True, False)
    """
    if isinstance(label, str) and isinstance(text, (numbers.Real, np.number, np.bool_)):
        return matches_label(text, label)
    if not isinstance(text, str):
        return label_value(label) == label_value(text)
    if isinstance(label, (bool, np.bool_)):
        return text.strip().lower() == str(bool(label)).lower()
    if isinstance(label, (int, np.integer)):  # exactly: 2**53 + 1 is not 2**53
        number = _decimal(text)
        return number is not None and number == int(label)
    if isinstance(label, (np.float32, np.float16)):  # as its type prints it ("0.1"), too
        if _decimal(text) == Fraction(str(label)):
            return True
    if isinstance(label, (float, np.floating)):  # as the reader reads it (typed_labels)
        value = float(label)
        if _EXACT_BELOW <= abs(value) < _EXACT_FROM:  # "0.20000000000000001" is 0.2, as read
            number = _decimal(text)
            return number is not None and _float(number) == value
        return _read_exactly(text, value)  # 2**53 + 1 is not the label 2**53, nor 1e-400 0
    return str(label) == text


_DECIMAL = re.compile(r"([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?", re.ASCII)
#: beyond 10**±_FAR a number is no float64 and no int64: kept as ±10**±_FAR, not built exactly
_FAR = 400


def _decimal(text: str) -> Fraction | None:
    """The number a label's text writes in decimal (``"1"``, ``"1.0"``, ``"1e0"``), exactly.

    ``None`` for other text, including ``"1/2"``, ``"1_000"``, ``"inf"`` and ``"nan"``
    (a table's reader does not read them as numbers either).  A number past
    ``10**400`` in size, or a nonzero one below ``10**-400``, is that bound
    (with its sign): no label is such a number, and ``1e-999999999`` is not
    built digit by digit (attack 21 F7).
    """
    match = _DECIMAL.fullmatch(text.strip())
    if match is None or not (match.group(2) or match.group(3)):
        return None
    sign, whole, frac, exponent = match.groups()
    digits = (whole + (frac or "")).lstrip("0")
    if not digits:
        return Fraction(0)
    exponent = exponent or "0"
    if len(exponent.lstrip("+-").lstrip("0")) > 6:  # |exponent| >= 10**6: far either way
        far = -_FAR if exponent.startswith("-") else _FAR
    else:
        far = int(exponent) - len(frac or "") + len(digits)  # the value is 0.digits * 10**far
    if abs(far) > _FAR:
        value = Fraction(10) ** (_FAR if far > 0 else -_FAR)
    else:
        try:
            value = Fraction(int(digits)) * Fraction(10) ** (far - len(digits))
        except ValueError:  # more digits than Python converts (4,300): not a label's text
            return None
    return -value if sign == "-" else value


def _float(number: Fraction) -> float:
    """``number`` rounded to a float64 (``inf`` past its range, where ``float`` raises)."""
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def _other_binary(label):
    """Return the other of 0/1 or False/True, or None when ``label`` is not one of them."""
    if isinstance(label, bool):
        return not label
    if isinstance(label, (int, float)) and label in (0, 1):
        return type(label)(1 - label)
    return None


def _shown(positive) -> Param:
    return Param("positive_label", repr(positive))


def _typed_like(positive, label):
    """``positive`` as a label of the type of ``label`` (a positive class absent from the data)."""
    if not isinstance(positive, str):
        return label_value(positive)
    if isinstance(label, bool):
        lowered = positive.strip().lower()
        if lowered in ("true", "false"):
            return lowered == "true"
        raise ParameterError(_shown(positive), " is not true or false, but the labels are")
    if isinstance(label, (int, float)):
        value, problem = number_like(positive, label)
        if problem:
            raise ParameterError(_shown(positive), problem)
        if value == label:  # "1e-400" beside 0: two names for one class (attack 21 F4)
            raise ParameterError(
                _shown(positive), f" is not the label {label!r}, yet it reads as {value!r} in "
                "float64, the same label: one class cannot be both"
            )
        return value
    return positive


def number_like(text: str, label) -> tuple:
    """``(value, None)``: ``text`` as a number label of the type of ``label`` (int or float);
    ``(None, problem)`` when it is none (the problem's words follow the text's name)."""
    number = _decimal(text)
    if number is None:
        return None, " is not a number, but the labels are numbers"
    integer_labels = isinstance(label, int) and not isinstance(label, bool)
    if number.denominator == 1 and integer_labels:
        # int64 labels, or uint64 ones (past int64, none negative): one array holds both
        if not (-(2**63) <= number < 2**63 and label < 2**63
                or 0 <= number < 2**64 and label >= 0):
            kind = "uint64" if label >= 2**63 else "int64" if label < 0 else "int64 or uint64"
            return None, f" is beyond the range of the labels' 64-bit integers ({kind})"
        return int(number), None
    if integer_labels and abs(label) > 2**53 and float(label) != label:
        return None, (f" is not an integer, but the label {label!r} is an integer that "
                      "float64 cannot hold: name an integer class")
    value = _float(number)  # "1.0" or "0.5" beside int labels, any number beside floats
    if not math.isfinite(value):
        return None, " is beyond the range of a float64 label (about 1.8e308)"
    return value, None


def classes_for(labels, positive_label) -> list:
    """Return ``[negative, positive]``: the classes when ``positive_label`` names the positive one.

    ``positive_label`` is matched against the labels as read
    (:func:`matches_label`: ``"1"`` names the number 1).  With two labels it
    must be one of them.  With a single observed label (every row of one
    class), a ``positive_label`` that is not that label names the positive
    class, absent from the data, and the observed one is the negative; one
    that is the observed label leaves the negative class unknown unless the
    labels are 0/1 or booleans.

    Parameters
    ----------
    labels : array-like
        The distinct labels observed (one or two of them).
    positive_label : label or str

    Returns
    -------
    list of two labels

    Raises
    ------
    ParameterError
        Naming ``positive_label`` (and ``classes``, the other way to name them).

    Examples
    --------
    >>> from venncal.tables import classes_for
    >>> classes_for(["bad", "good"], "good"), classes_for([1], "0"), classes_for(["no"], "yes")
    (['bad', 'good'], [1, 0], ['no', 'yes'])
    """
    from .._validation import observed_labels

    observed = observed_labels(labels)
    values = [label_value(v) for v in observed.tolist()]
    found = labels_named(observed, positive_label)
    if len(found) > 1:
        raise ParameterError(_shown(positive_label), f" names both labels {found!r}")
    if len(values) == 2:
        if not found:
            raise ParameterError(
                _shown(positive_label), f" is not one of the labels {values!r}"
            )
        positive = found[0]
        return [next(v for v in values if v != positive), positive]
    (only,) = values
    if not found:
        return [only, _typed_like(positive_label, only)]
    negative = _other_binary(only)
    if negative is None:
        raise ParameterError(
            f"every label is {only!r}, the positive class by ", Param("positive_label"),
            ", so the negative class is unknown; name both with ",
            Param("classes", f"NEGATIVE,{positive_label}",
                  python=f"classes=[negative, {positive_label!r}]"),
            " instead",
        )
    return [negative, only]
