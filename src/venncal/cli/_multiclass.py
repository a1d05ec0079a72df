"""Many classes on the command line: ``--score-cols`` of ``fit`` and ``predict``, ``--prob-cols``.

The work is :class:`venncal.OneVsRestCalibrator` and
:class:`venncal.OneVsOneCalibrator` (fit, and the columns of
:func:`venncal._engine.output_names`), :func:`venncal.tables._classes.column_classes`
(the class of each column) and :func:`venncal.metrics.evaluate_multiclass`.
"""

from __future__ import annotations

import argparse

from . import _flags
from ._common import CLIError

__all__ = [
    "add_fit_options", "check_fit_options", "classes_of", "fit_dask", "hint",
    "names", "unit_lines",
]

#: Kinds of class scores and one-vs-one couplings (venncal.multiclass.SCORE_KINDS and
#: COUPLINGS, written here so that ``--help`` imports no kernel; a test checks they agree).
SCORE_KINDS = ("proba", "logit", "margin")
COUPLINGS = ("price", "normalize", "wu-lin-weng")
#: Options that only go with --score-cols, and the options that do not.
_ONLY = ("--score-kind", "--multiclass", "--coupling", "--classes")
_NOT = {"pos_label": "--positive-label", "decreasing": "--decreasing"}


def names(text: str) -> list[str]:
    """Parse a comma-separated list of names (an ``argparse`` type).

    Examples
    --------
    >>> names("a, b,c")
    ['a', 'b', 'c']
    """
    out = [n.strip() for n in text.split(",")]
    if not all(out):
        raise argparse.ArgumentTypeError(f"expected comma-separated names, got {text!r}")
    return out


def add_fit_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--score-cols``, ``--score-kind``, ``--multiclass``, ``--coupling``, ``--classes``."""
    group = parser.add_argument_group(
        "many classes",
        "--score-cols A,B,C gives the model's score of each class, one column per class, in "
        "the order of the classes: --classes, else the labels sorted (numbers as numbers, "
        "text as text); the model is one calibrator of --method per class (ovr) or per "
        "pair of classes (ovo)",
    )
    group.add_argument("--score-cols", type=names, metavar="A,B,...",
                       help="columns of class scores, one per class (instead of --score-col)")
    group.add_argument("--score-kind", choices=SCORE_KINDS,
                       help="what --score-cols hold (required with them, never guessed): "
                       "proba (rows summing to 1), logit (softmax logits) or margin; also what "
                       "--score-col holds for a binary chain (--method beta+ivap-clip, "
                       "platt+ivap-clip)")
    group.add_argument("--multiclass", choices=("ovr", "ovo"),
                       help="one-vs-rest (default) or one-vs-one")
    group.add_argument("--coupling", choices=COUPLINGS,
                       help="how ovo combines the pairs' probabilities (default: price)")
    group.add_argument("--classes", type=names, metavar="X,Y,...",
                       help="the class of each --score-cols column, in order (matched "
                       "against the labels as read; default: the labels sorted)")


def check_fit_options(args: argparse.Namespace) -> None:
    """Refuse options that do not go together, before anything is read."""
    if args.score_cols is None:
        given = [f for f in _ONLY if getattr(args, f[2:].replace("-", "_")) is not None]
        if "+" in args.method:  # a binary chain (beta+ivap-clip): its first stage's score kind
            if args.score_kind is None:
                raise CLIError(f"--method {args.method} needs --score-kind proba or logit: the "
                               "kind of --score-col its first stage reads is never guessed")
            given.remove("--score-kind")
        if given:
            raise CLIError(f"{given[0]} goes with --score-cols (one score column per class)")
        return
    if args.score_kind is None:
        raise CLIError("--score-cols needs --score-kind proba, logit or margin: the kind of "
                       "the class scores is never guessed")
    for dest, option in _NOT.items():
        if getattr(args, dest):
            raise CLIError(f"{option} is for one --score-col (two classes), not --score-cols")
    if any(key == "classes" for key, _ in args.param):
        raise CLIError("with --score-cols the classes are --classes X,Y,..., not --param classes=")
    if args.coupling is not None and args.multiclass != "ovo":
        raise CLIError("--coupling combines the pairs of --multiclass ovo")


def classes_of(labels, n_columns: int, given) -> list:
    """The class of each of ``n_columns`` --prob-cols (``given`` texts, else the labels sorted)."""
    from ..tables import ParameterError
    from ..tables._classes import column_classes

    try:
        return column_classes(labels, n_columns, given, columns="prob_cols")
    except ParameterError as exc:
        raise CLIError(_flags.message(exc, classes="--classes")) from None


def hint(text: str) -> str:
    """What a library message's parameters are on the command line, for a multiclass fit."""
    if "classes=" in text or "score=" in text:
        return " (classes= is --classes here, score= --score-kind)"
    return ""


def unit_lines(args: argparse.Namespace, summaries: dict) -> list[str]:
    """One line per class (ovr) or pair (ovo): its calibration rows (weight), from the summaries."""
    from ..summary import weight_texts

    units: dict = {}
    for key, summary in summaries.items():
        units.setdefault(key[0] if args.fold_col else key, []).append(summary)
    what = "weight" if args.weight_col else "rows"
    ovo = args.multiclass == "ovo" or args.method.startswith("ovo-")  # --method ovo-ivap too
    return [
        f"  {unit!r} against the rest: {what} {pos} of {total}" if not ovo
        else f"  {unit[1]!r} vs {unit[0]!r}: {what} {total}, {pos} of them {unit[1]!r}"
        for unit, (total, pos) in ((u, weight_texts(s)) for u, s in units.items())
    ]


def fit_dask(args, report, model, fit_error):
    """Fit ``model`` on ``--score-cols`` with :func:`venncal.dask.fit_files`; return it fitted."""
    import venncal.dask as vd

    from ..multiclass._outputs import is_multiclass
    from ..tables import TableError
    from ._dask import cluster

    if not is_multiclass(model):
        raise CLIError(f"--method {args.method} cannot be fitted by --engine dask (it fits on "
                       "the rows, not on score summaries): use --engine local")
    options = {"max_distinct": args.max_distinct} if args.max_distinct else {}
    with report.stage(f"fitting {args.method} on the files of {args.data} with dask"), \
            cluster(args) as client:
        try:
            model = vd.fit_files(
                args.data, model, score_col=args.score_cols, label_col=args.label_col,
                weight_col=args.weight_col, by=args.fold_col, round_scores=args.round_scores,
                blocksize=args.blocksize, sep=args.sep, client=client, **options,
            )
        except TableError:
            raise
        except (ValueError, TypeError) as exc:
            raise fit_error(args, args.data, exc) from None
    return model
