"""The positive class on the command line: ``--positive-label`` and what it means for ``fit``."""

from __future__ import annotations

import argparse

import numpy as np

from .._validation import check_binary_labels, check_labels, observed_labels
from ._io import CLIError

__all__ = [
    "FIT_ADVICE",
    "add_positive_label_option",
    "binary_labels",
    "fit_classes",
    "positive_label_option",
]

#: How ``fit`` tells a user to name the classes when the labels cannot say.
FIT_ADVICE = (
    "name the positive class with --positive-label, or both classes with "
    "--param classes=NEGATIVE,POSITIVE"
)


#: The option's old spelling (``evaluate`` and ``monitor`` had it), still accepted.
OLD_SPELLING = "--pos-label"


class _PositiveLabel(argparse.Action):
    """Store the label and the spelling it came with; the positive class is named once."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, "pos_label_option", None) is not None:
            parser.error(
                f"give the positive class once: --positive-label ({OLD_SPELLING} is its "
                "deprecated spelling)"
            )
        namespace.pos_label = values
        namespace.pos_label_option = option_string


def add_positive_label_option(parser: argparse.ArgumentParser, text: str) -> None:
    """Add ``--positive-label LABEL`` (``args.pos_label``) with help ``text``.

    The old spelling ``--pos-label`` still works, left out of the usage and
    named in the help; :func:`positive_label_option` warns when it is used.
    """
    parser.add_argument(
        "--positive-label",
        OLD_SPELLING,
        dest="pos_label",
        metavar="LABEL",
        action=_PositiveLabel,
        help=f"{text}; {OLD_SPELLING} is its deprecated spelling",
    )
    parser.set_defaults(pos_label_option=None)


def positive_label_option(args: argparse.Namespace, report=None) -> str:
    """Return the option's spelling as given, for messages; with ``report``, warn if it is the old one."""
    if args.pos_label_option == OLD_SPELLING:
        if report is not None:
            report.warn(f"{OLD_SPELLING} is deprecated; use --positive-label")
        return OLD_SPELLING
    return "--positive-label"


def _other_binary(label):
    """Return the other of 0/1 or False/True, or None when ``label`` is not one of them."""
    if isinstance(label, bool):
        return not label
    if isinstance(label, (int, float)) and label in (0, 1):
        return type(label)(1 - label)
    return None


def _typed_like(text: str, label, option: str):
    """``text`` as a label of the type of ``label`` (a positive class absent from the data)."""
    if isinstance(label, bool):
        lowered = text.strip().lower()
        if lowered in ("true", "false"):
            return lowered == "true"
        raise ValueError(f"{option} {text!r} is not true or false, but the labels are")
    if isinstance(label, (int, float)):
        for convert in (int, float):
            try:
                value = convert(text)
            except ValueError:
                continue
            if np.isfinite(value):
                return value
        raise ValueError(f"{option} {text!r} is not a number, but the labels are numbers")
    return text


def fit_classes(
    y: np.ndarray, pos_label: str | None, source: str, column: str, *, option: str = "--positive-label"
) -> list | None:
    """Return ``[negative, positive]`` for ``venncal fit``, or None for the default order.

    ``pos_label`` is the text given on the command line by ``option``,
    matched against the labels as read (so ``"1"`` names the number 1).  With two labels it must
    be one of them.  With a single observed label (every row of one class),
    a ``pos_label`` that is not that label names the positive class, absent
    from the data, and the observed one is the negative; a ``pos_label`` that
    is the observed label leaves the negative class unknown unless the labels
    are 0/1 or booleans.  Without ``pos_label``: None (the calibrator sorts
    the labels; :data:`FIT_ADVICE` completes its error when they cannot
    place themselves).  Every error is a :class:`CLIError` naming the table
    and column.

    Examples
    --------
    >>> import numpy as np
    >>> fit_classes(np.array(["good", "bad", "good"]), "good", "t.csv", "y")
    ['bad', 'good']
    >>> fit_classes(np.array([1, 1]), "0", "t.csv", "y")
    [1, 0]
    >>> fit_classes(np.array(["no", "no"]), "yes", "t.csv", "y")
    ['no', 'yes']
    >>> fit_classes(np.array(["no", "yes"]), None, "t.csv", "y") is None
    True
    """
    try:
        if pos_label is None:
            return None
        values = observed_labels(y).tolist()
        found = [v for v in values if _matches(v, pos_label)]
        if len(values) == 2:
            if not found:
                raise ValueError(f"{option} {pos_label!r} is not one of the labels {values!r}")
            positive = found[0]
            return [next(v for v in values if v != positive), positive]
        (only,) = values
        if not found:
            return [only, _typed_like(pos_label, only, option)]
        negative = _other_binary(only)
        if negative is None:
            raise ValueError(
                f"every label is {only!r}, the positive class by {option}, so the "
                f"negative class is unknown; name both with --param classes=NEGATIVE,{pos_label} "
                "instead"
            )
        return [negative, only]
    except (TypeError, ValueError) as exc:
        raise CLIError(f"{source}: column {column!r}: {exc}") from None


def _matches(label, text: str) -> bool:
    if isinstance(label, (bool, np.bool_)):
        return text.strip().lower() == str(bool(label)).lower()
    if isinstance(label, (int, float, np.number)):
        try:
            return float(text) == label
        except ValueError:
            return False
    return str(label) == text


def binary_labels(
    y: np.ndarray, pos_label: str | None, source: str, column: str, *, option: str = "--positive-label"
) -> tuple:
    """Map labels to booleans (True = positive); return ``(y01, positive_label)``.

    ``pos_label`` is the text given on the command line by ``option``,
    matched against the labels as read (so ``"1"`` names the number 1); the
    checks are those of every other venncal entry point.

    Examples
    --------
    >>> import numpy as np
    >>> binary_labels(np.array(["no", "yes", "no"]), None, "t.csv", "y")
    (array([False,  True, False]), 'yes')
    >>> binary_labels(np.array([2, 10, 2]), "2", "t.csv", "y")
    (array([ True, False,  True]), 2)
    """
    try:
        if pos_label is None:
            classes, y01 = check_labels(y, advice=f"name the positive class with {option}")
            return y01, classes[1].item()
        values = np.unique(y).tolist()
        found = [v for v in values if _matches(v, pos_label)]
        if not found and len(values) == 2:
            raise ValueError(f"{option} {pos_label!r} is not one of the labels {values!r}")
        # A single observed label that is not --pos-label is the negative class.
        positive = found[0] if found else pos_label
        return check_binary_labels(y, y.shape[0], pos_label=positive), positive
    except (TypeError, ValueError) as exc:
        raise CLIError(f"{source}: column {column!r}: {exc}") from None
