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

__all__ = ["add_fit_options", "check_fit_options", "classes_of", "fit", "names"]

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
                       "proba (rows summing to 1), logit (softmax logits) or margin")
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


def classes_of(labels, n_columns: int, given, option: str) -> list:
    """The class of each of ``n_columns`` columns (``given`` texts, else the labels sorted)."""
    from ..tables._classes import column_classes
    from ..tables import ParameterError

    try:
        return column_classes(labels, n_columns, given, columns=option[2:].replace("-", "_"))
    except ParameterError as exc:
        raise CLIError(_flags.message(exc, classes="--classes")) from None


def _calibrator(base, args: argparse.Namespace, classes):
    from ..multiclass import OneVsOneCalibrator, OneVsRestCalibrator

    if args.multiclass == "ovo":
        return OneVsOneCalibrator(base, score=args.score_kind, coupling=args.coupling or "price",
                                  classes=classes)
    return OneVsRestCalibrator(base, score=args.score_kind, classes=classes)


def _fit_error(args, source: str, exc: Exception) -> CLIError:
    text = _flags.message(exc, classes="--classes")
    hint = " (classes= is --classes here, score= --score-kind)" if "=" in text else ""
    return CLIError(f"cannot fit {args.method} on {source}: {text}{hint}")


def fit(args: argparse.Namespace, report, base, group):
    """Fit on ``--score-cols``; return ``(model, what was read, a line per class or pair)``."""
    import numpy as np

    from ..tables import open_table, read_columns
    from ._common import weight_column

    kind = "ovo" if args.multiclass == "ovo" else "ovr"
    if args.engine == "dask":
        return _fit_dask(args, report, base, kind), f"the files of {args.data}", []
    with open_table(args.data, sep=args.sep) as table:
        for option, cols in (("score_cols", args.score_cols), ("label_col", [args.label_col]),
                             ("weight_col", [args.weight_col]), ("by", [args.fold_col])):
            if cols != [None]:
                table.check_columns(cols, option)
        numeric = args.score_cols + ([args.weight_col] if args.weight_col else [])
        labels = [c for c in (args.label_col, args.fold_col) if c]
        with report.progress(f"reading {table.source}") as progress:
            columns = read_columns(table, numeric, labels, progress)
    y = columns[args.label_col]
    classes = classes_of(y, len(args.score_cols), args.classes, "--score-cols")
    model = _calibrator(base, args, classes if args.classes else None)
    weights = None
    if args.weight_col:
        weights = weight_column(columns[args.weight_col], table.source, args.weight_col)
    scores = np.column_stack([columns[c] for c in args.score_cols])
    folds = {} if group is None else {"folds": columns[args.fold_col]}
    with report.stage(f"fitting {kind} {args.method} on {scores.shape[0]:,} rows"):
        try:
            model.fit(scores, y, sample_weight=weights, **folds)
        except (ValueError, TypeError) as exc:
            raise _fit_error(args, table.source, exc) from None
    counts = dict(zip(*np.unique(y, return_counts=True), strict=True))
    units = model.classes_.tolist()
    if kind == "ovo":
        rows = [(f"{units[j]!r} vs {units[i]!r}", counts[units[i]] + counts[units[j]])
                for i, j in model.pairs_.tolist()]
    else:
        rows = [(f"{c!r} against the rest", counts[c]) for c in units]
    lines = [f"  {unit}: {n:,} {'rows' if kind == 'ovo' else 'rows of the class'}"
             for unit, n in rows]
    return model, f"{y.shape[0]:,} rows of {table.source}", lines


def _fit_dask(args, report, base, kind):
    import venncal.dask as vd

    from ..tables import TableError
    from ._dask import cluster
    from ._fit import parse_param

    classes = None if args.classes is None else [parse_param(f"c={c}")[1] for c in args.classes]
    model = _calibrator(base, args, classes)
    options = {"max_distinct": args.max_distinct} if args.max_distinct else {}
    with report.stage(f"fitting {kind} {args.method} on the files of {args.data} with dask"), \
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
            raise _fit_error(args, args.data, exc) from None
    return model
