"""Fit and calibrate tables in one process: the local counterparts of :mod:`venncal.dask`'s files.

:func:`fit_file` reads a calibration table (its columns by the rules of
:mod:`venncal.tables`) and fits a calibrator, binary or multiclass, on it:
``venncal fit``.  :func:`transform_file` streams a table (CSV, TSV or Parquet, or stdin)
through a fitted calibrator into an output table, block by block, so files
larger than memory pass through; every input column is kept (CSV cells as
their text) and the calibrator's columns (:func:`venncal._engine.output_names`)
are added.  This is ``venncal predict``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence

import numpy as np

from . import _engine
from . import _score_names as score_names
from ._engine import takes_class_scores
from ._validation import check_sample_weight
from .tables import Param, ParameterError, Retype, TableError, open_table, open_writer

__all__ = ["calibrator_for", "check_column_order", "fit_file", "method_calibrator",
           "takes_class_scores", "transform_file"]

#: Why ``uncalibrated`` (a comparison's reference row) is not fitted.
UNCALIBRATED = (
    "uncalibrated is the reference row of a comparison, the scores themselves read as "
    "probabilities (proba as given, logits through the logistic or softmax function): there is "
    "nothing to fit or save; use the scores as they are, or fit a calibrator"
)


def method_calibrator(method: str, params=None, *, merge: str | None = None, by=None):
    """Return the unfitted calibrator of a registered method, its parameters checked.

    Parameters
    ----------
    method : str
        A registered method name (``"ivap"``, ``"cvap"``, ``"platt"``, ...).
    params : mapping, default=None
        Parameters of its class; an unknown one is an error listing them.
    merge : {"log", "brier"}, default=None
        The merge of a Venn-Abers method (an error for the others).
    by : str, default=None
        The column of the folds: required by a method fitted per fold
        (``cvap``), refused by the others.

    Returns
    -------
    calibrator

    Raises
    ------
    ParameterError
        Naming ``merge``, ``method`` or ``by``.
    ValueError, ImportError
        For an unknown method or parameter, or a method whose extra is missing.

    Examples
    --------
    >>> from venncal.files import method_calibrator
    >>> method_calibrator("histogram", {"n_bins": 15})
    HistogramBinningCalibrator(n_bins=15)
    >>> method_calibrator("cvap")
    Traceback (most recent call last):
    ...
    venncal.tables._errors.ParameterError: method=cvap needs by (the fold of each calibration row)
    """
    from ._registry import method_class

    cls = method_class(method)
    names = sorted(cls._get_param_names())
    kwargs = dict(params or {})
    if merge is not None:
        if "merge" not in names:
            raise ParameterError(Param("merge"), f" applies to Venn-Abers methods (ivap, cvap), "
                                 f"not {method}")
        kwargs["merge"] = merge
    unknown = [k for k in kwargs if k not in names]
    if unknown:
        raise ValueError(f"{cls.__name__} ({method}) has no parameter {unknown[0]!r}; its "
                         "parameters: " + ", ".join(names))
    calibrator = cls(**kwargs)
    if calibrator._group_param is not None and not by:
        raise ParameterError(Param("method", method), " needs ", Param("by"),
                             " (the fold of each calibration row)")
    if calibrator._group_param is None and by:
        grouped = "/".join(_grouped_methods())
        raise ParameterError(Param("by"), " is used only by ", Param("method", grouped),
                             f", not {method}")
    return calibrator


def calibrator_for(method: str, problem: str, *, score=None, params=None, merge=None, by=None,
                   multiclass=None, coupling=None, classes=None):
    """Return the unfitted calibrator ``venncal fit --method`` names, for a problem and score kind.

    Parameters
    ----------
    method : str
        A name of :func:`venncal.comparison._candidates.fit_methods` for ``problem``.
    problem : {"binary", "multiclass"}
        One score column, or K class-score columns.
    score : {"proba", "logit", "margin"}, default=None
        The kind of the K class scores (``"multiclass"`` only).
    params, merge, by
        As for :func:`method_calibrator` (``params`` of a candidate of K class scores:
        :func:`~venncal.comparison._candidates.set_named_params`).
    multiclass : {"ovr", "ovo"}, default=None
        How a binary method is fitted on K classes: one per class (default) or pair.
    coupling : str, default=None
        How one-vs-one combines the pairs.
    classes : sequence, default=None
        The class of each score column, in order (default: the labels sorted).

    Raises
    ------
    ParameterError, ValueError, ImportError
        For a name, parameter or option that does not apply (saying why).

    Examples
    --------
    >>> calibrator_for("ovr-ivap", "multiclass", score="logit")
    OneVsRestCalibrator(base=VennAbersCalibrator(), score='logit')
    >>> calibrator_for("ivap", "multiclass", score="logit", multiclass="ovo")
    OneVsOneCalibrator(base=VennAbersCalibrator(), score='logit')
    """
    from .comparison._candidates import MULTICLASS, build_candidate, fit_methods

    if method == "uncalibrated":
        raise ValueError(UNCALIBRATED)
    if method not in fit_methods(problem):
        other = "one score column" if problem == MULTICLASS else "K class-score columns"
        raise ParameterError(Param("method", method), f" is for {other}, not for {problem} "
                             "scores; methods: " + ", ".join(fit_methods(problem)))
    from ._registry import CALIBRATORS

    if problem != MULTICLASS:
        if method in CALIBRATORS:
            return method_calibrator(method, params, merge=merge, by=by)
        for given, option in ((merge, "merge"), (by, "by")):  # a chain (beta+ivap-clip, ...)
            if given is not None:
                raise ParameterError(Param(option), f" does not go with {method}, a chain of "
                                     "two calibrators (it is for ivap or cvap alone)")
        return build_candidate(method, problem, score, classes, params)
    from .multiclass import OneVsOneCalibrator, OneVsRestCalibrator

    if method in CALIBRATORS:
        base = method_calibrator(method, params, merge=merge, by=by)
        if multiclass == "ovo":
            return OneVsOneCalibrator(base, score=score, coupling=coupling or "price",
                                      classes=classes)
        return OneVsRestCalibrator(base, score=score, classes=classes)
    for given, option in ((multiclass, "multiclass"), (by, "by")):
        if given is not None:
            raise ParameterError(Param(option), f" does not go with {method}, a calibrator of K "
                                 "class scores (it is for a binary method such as ivap)")
    extra = {"merge": merge, "coupling": coupling}
    named = {**dict(params or {}), **{k: v for k, v in extra.items() if v is not None}}
    return build_candidate(method, problem, score, classes, named)


def _grouped_methods() -> list[str]:
    """Return the methods whose calibrator is fitted per group of rows (folds)."""
    from ._registry import available_methods, method_class

    grouped = []
    for method in available_methods():
        try:
            if method_class(method)._group_param is not None:
                grouped.append(method)
        except ImportError:
            continue
    return grouped


def fit_file(
    data,
    method="ivap",
    *,
    score_col: str | Sequence[str],
    label_col: str,
    weight_col: str | None = None,
    by: str | None = None,
    positive_label=None,
    sep: str | None = None,
    progress: Callable | None = None,
    stage: Callable | None = None,
    return_summary: bool = False,
    **params,
):
    """Fit a calibrator on a table read in this process.

    Parameters
    ----------
    data : str or path-like
        A table (CSV, plain or compressed, TSV or Parquet), or ``"-"`` for stdin.
    method : str or calibrator, default="ivap"
        A registered method name or an unfitted calibrator (cloned), binary
        or multiclass (:class:`~venncal.OneVsRestCalibrator`,
        :class:`~venncal.OneVsOneCalibrator`).
    score_col : str or sequence of str
        The score column, or a multiclass calibrator's K class-score columns
        in the order of its classes: ``classes`` (names matched against the
        labels as read, :func:`venncal.tables._classes.column_classes`), else
        the labels sorted.
    label_col, weight_col, by
        The labels, the frequency weights and, for a calibrator fitted per
        fold (cross Venn-Abers), the fold of each row.
    positive_label : label or str, default=None
        A binary calibrator's positive class, matched against the labels as
        read (:func:`venncal.tables.classes_for`).
    sep : str, default=None
        The CSV field separator.
    progress : callable, default=None
        As for :func:`transform_file`, told the rows read.
    stage : callable, default=None
        ``stage(n_rows)`` returns a context manager the fit runs in (to time it).
    return_summary : bool, default=False
        Also return the summary of the rows (a binary calibrator: one
        :class:`~venncal.ScoreSummary` of the scores, label 1 the fitted
        ``classes_[1]``; a multiclass one: its ``summaries``) and their number.
    **params
        Parameters of the calibrator.

    Returns
    -------
    calibrator, or (calibrator, summary, int) with ``return_summary``

    Raises
    ------
    TableError
        For a table that cannot be read, a missing column, a bad cell, bad
        weights, a ``positive_label`` or ``classes`` that does not fit the labels.
    ValueError, TypeError
        When the calibrator cannot be fitted on the data.

    Examples
    --------
    >>> import os, tempfile
    >>> from venncal.files import fit_file
    >>> path = os.path.join(tempfile.mkdtemp(), "cal.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("score,label\\n0.1,no\\n0.4,yes\\n0.35,no\\n0.8,yes\\n")
    >>> iso = fit_file(path, "isotonic", score_col="score", label_col="label")
    >>> iso.classes_.tolist(), iso.predict_proba([0.2, 0.6])[:, 1].tolist()
    (['no', 'yes'], [0.0, 1.0])
    """
    from .multiclass._outputs import is_multiclass
    from .tables import classes_for, read_columns
    from ._engine_multiclass import name_classes

    calibrator = _engine.make_calibrator(method, params)
    multi, classy = is_multiclass(calibrator), takes_class_scores(calibrator)
    if classy and not multi and by is not None:
        raise ParameterError(Param("by"), f" is for calibrators fitted per fold; "
                             f"{type(calibrator).__name__} takes every row at once")
    if not classy:
        _engine.check_grouping(calibrator, by)
    score_cols = [score_col] if isinstance(score_col, str) else list(score_col)
    with open_table(data, sep=sep) as table:
        roles = {"score_col": score_cols, "label_col": [label_col], "weight_col": [weight_col],
                 "by": [by]}
        for role, cols in roles.items():
            if cols != [None]:
                table.check_columns(cols, role)
        numeric = score_cols + ([weight_col] if weight_col else [])
        labels = [c for c in (label_col, by) if c]
        with progress(f"reading {table.source}") if progress else contextlib.nullcontext() as bar:
            columns = read_columns(table, numeric, labels, bar)
    source, y = table.source, columns[label_col]
    try:
        if classy:  # every stage's classes= (a chain's two), named once, as the labels are read
            name_classes(calibrator, y, len(score_cols))
        elif positive_label is not None:
            _engine.check_positive_label(calibrator)
            key = _engine._classes_key(calibrator)
            calibrator.set_params(**{key: classes_for(y, positive_label)})
    except (TypeError, ValueError) as exc:
        parts = exc.parts if isinstance(exc, ParameterError) else (str(exc),)
        raise TableError(f"{source}: column {label_col!r}: ", *parts, source=source,
                         column=label_col) from None
    weights = None
    if weight_col:
        try:
            weights = check_sample_weight(columns[weight_col], y.shape[0],
                                          name=f"column {weight_col!r}", row_base=1)
        except (TypeError, ValueError) as exc:
            raise TableError(f"{source}: {exc}", source=source, column=weight_col) from None
    groups = {} if by is None else {"folds" if multi else calibrator._group_param: columns[by]}
    with stage(y.shape[0]) if stage else contextlib.nullcontext():
        kind = "units" if multi else "classes" if classy else "binary"
        from ._rows import RowError

        try:
            summary = _fit(calibrator, kind, columns, score_cols, y, weights, groups,
                           return_summary)
        except RowError as exc:  # named as the table counts its rows (from 1)
            raise ValueError(exc.renumbered(1)) from None
    if classy:  # checked by transform_file: the same columns in another order relabel
        score_names.record(calibrator, score_cols)
    return (calibrator, summary, y.shape[0]) if return_summary else calibrator


def _fit(calibrator, kind, columns, score_cols, y, weights, groups, return_summary):
    """Fit ``calibrator``; return the summary of the rows (None unless asked, for two classes).

    ``kind``: ``"binary"`` (one score column), ``"units"`` (one-vs-rest or one-vs-one: fitted
    from their summaries, returned) or ``"classes"`` (another calibrator of K class scores).
    """
    from .summary import ScoreSummary

    summary = None
    if kind != "binary":
        scores = np.column_stack([columns[c] for c in score_cols])
        if kind == "classes":
            calibrator.fit(scores, y, sample_weight=weights)
        else:
            summary = calibrator.summaries(scores, y, weights, **groups)
            calibrator.fit_summary(summary)  # what fit does, keeping the summaries
        check_column_order(scores, y, calibrator.classes_, weights, score_cols)
        return summary
    else:
        scores = columns[score_cols[0]]
        calibrator.fit(scores, y, sample_weight=weights, **groups)
        if return_summary:
            summary = ScoreSummary.from_arrays(scores, y == calibrator.classes_[1], weights)
    return summary


def check_column_order(scores, y, classes, weights, score_cols, option="--score-cols") -> None:
    """Warn when the class-score columns ``score_cols`` look out of the order of the
    ``classes`` (by :func:`venncal.multiclass._order.column_order_note`): ``fit_file`` and
    ``venncal evaluate --prob-cols`` call it."""
    import warnings

    from .multiclass._labels import class_codes
    from .multiclass._order import column_order_note

    # each row's index among the fitted classes, by the labels' one rule (the fit has
    # refused labels outside them already)
    codes = class_codes(y, y.shape[0], classes, len(classes))[1]
    note = column_order_note(scores, codes, classes, weights, names=score_cols,
                             option=option)
    if note:
        warnings.warn(note, UserWarning, stacklevel=3)


def transform_file(
    data,
    calibrator,
    output,
    *,
    score_col: str | Sequence[str],
    output_cols: str | Sequence[str] = ("p", "p0", "p1"),
    nan_scores: str = "error",
    sep: str | None = None,
    progress: Callable | None = None,
) -> int:
    """Add calibrated probabilities to a table, written atomically to ``output``.

    Parameters
    ----------
    data : str or path-like
        A table (CSV, plain or compressed, TSV or Parquet), or ``"-"`` for stdin.
    calibrator : fitted score-level calibrator
        Binary, or multiclass (:class:`~venncal.OneVsRestCalibrator`,
        :class:`~venncal.OneVsOneCalibrator`).
    output : str or path-like
        The output table (format by name, ``"-"`` for CSV on stdout).
    score_col : str or sequence of str
        The score columns: one, one per fold (a cross Venn-Abers model), or
        one per class (a multiclass model; K per fold for a cross Venn-Abers base).
    output_cols : str or sequence of str, default=("p", "p0", "p1")
        As for :func:`venncal.dask.transform`: the names of the added
        columns, or a multiclass model's prefixes.
    nan_scores : {"error", "propagate"}, default="error"
        A missing score: an error naming its row, or empty outputs in that row.
    sep : str, default=None
        The CSV field separator (default by name: a tab for ``.tsv``).
    progress : callable, default=None
        ``progress(label)`` returns a context manager whose value has
        ``update(rows, fraction)``, told the rows read.

    Returns
    -------
    int
        The number of rows written.

    Examples
    --------
    >>> import os, tempfile
    >>> from venncal import IsotonicCalibrator
    >>> from venncal.files import transform_file
    >>> iso = IsotonicCalibrator().fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "in.csv"), "w") as f:
    ...     _ = f.write("id,s\\n1,0.15\\n2,0.35\\n")
    >>> transform_file(os.path.join(folder, "in.csv"), iso, os.path.join(folder, "out.csv"),
    ...                score_col="s")
    2
    >>> with open(os.path.join(folder, "out.csv")) as f:
    ...     print(f.read().strip())
    id,s,p
    1,0.15,0
    2,0.35,0.5
    """
    _engine.check_nan_scores(nan_scores)
    score_cols = [score_col] if isinstance(score_col, str) else list(score_col)
    names = list(_engine.output_names(calibrator, output_cols))
    score_names.check(calibrator, score_cols)
    types: dict = {}  # columns whose type, inferred from the first rows, a later row widened
    while True:
        try:
            return _write(data, calibrator, output, score_cols, names, nan_scores, sep,
                          progress, types)
        except Retype as change:
            types[change.name] = change.type


def _write(data, calibrator, output, score_cols, names, nan_scores, sep, progress,
           types) -> int:
    import pyarrow as pa

    from ._rows import RowError

    with open_table(data, sep=sep) as table:
        table.check_columns(score_cols, "score_col")
        writer = open_writer(output, table, names, sep=sep)
        ok = False
        n = 0
        try:
            label = f"predicting {table.source}"
            with progress(label) if progress else contextlib.nullcontext() as bar:
                for batch in table.batches(bar, text=score_cols, typed=writer.typed, types=types):
                    scores = np.column_stack([
                        batch.numbers(col, missing=nan_scores, hint=_engine.NAN_SCORES_HINT)
                        for col in score_cols
                    ])
                    try:
                        values, missing = _engine.score_rows(calibrator, scores, len(names), nan_scores)
                    except RowError as exc:  # named as the table counts its rows
                        raise TableError(f"{table.source}: cannot predict: "
                                         f"{exc.renumbered(batch.first_row)}",
                                         source=table.source) from None
                    except (ValueError, TypeError) as exc:
                        raise TableError(f"cannot predict rows {batch.first_row:,}...: {exc}",
                                         source=table.source) from None
                    new = [pa.array(v, pa.float64(), mask=missing) for v in values]
                    writer.write([*table.columns, *names], [*batch.columns(writer.typed), *new])
                    n += batch.n_rows
                if n == 0:  # a header and no rows: so is the output
                    empty = [pa.array([], pa.float64())] * len(names)
                    writer.write([*table.columns, *names], [*table.empty_columns(), *empty])
            ok = True
        finally:
            writer.close(ok)
    return n
