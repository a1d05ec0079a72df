"""The positive class on the command line: ``--positive-label``.

What ``--positive-label`` means for ``fit`` is the library's
:func:`venncal.tables.classes_for`, and for the metrics
:func:`venncal._columns.binary_labels`; text names a label as read
(:func:`venncal.tables.matches_label`: ``1`` names the number 1).
"""

from __future__ import annotations

import argparse

__all__ = [
    "FIT_ADVICE",
    "add_positive_label_option",
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
