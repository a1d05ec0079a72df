"""The positive class on the command line: ``--positive-label``, and labels for the metrics.

What ``--positive-label`` means for ``fit`` is the library's
:func:`venncal.tables.classes_for`; text names a label as read
(:func:`venncal.tables.matches_label`: ``1`` names the number 1).
"""

from __future__ import annotations

import argparse

import numpy as np

from ._common import CLIError

__all__ = [
    "FIT_ADVICE",
    "add_positive_label_option",
    "binary_labels",
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
    from .._validation import check_binary_labels, check_labels
    from ..tables import matches_label

    try:
        if pos_label is None:
            classes, y01 = check_labels(
                y, advice=f"name the positive class with {option}", single_01=False
            )
            return y01, classes[1].item()
        values = np.unique(y).tolist()
        found = [v for v in values if matches_label(v, pos_label)]
        if not found and len(values) == 2:
            raise ValueError(f"{option} {pos_label!r} is not one of the labels {values!r}")
        # A single observed label that is not --pos-label is the negative class.
        positive = found[0] if found else pos_label
        return check_binary_labels(y, y.shape[0], pos_label=positive), positive
    except (TypeError, ValueError) as exc:
        raise CLIError(f"{source}: column {column!r}: {exc}") from None
