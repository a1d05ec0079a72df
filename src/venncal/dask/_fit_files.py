"""Fit a calibrator on tables given as files, summarised by Dask where they are read."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from .. import _engine
from .._engine_multiclass import name_classes
from ..summary import ScoreSummary
from ..tables import ParameterError, TableError
from ..tables._labels import labels_named
from . import _files
from ..multiclass._outputs import is_multiclass
from ._frames import checked, reduction
from ._multiclass import fit_multiclass

__all__ = ["fit_files"]


def _typed(pieces: dict, problems: _engine.Problems, by):
    """Type the label (and group) texts of CSV from all their distinct values, as the local reader."""
    labels = _files.typed_texts([key[1] for key in pieces] + list(problems.labels))
    groups = _files.typed_texts([key[0] for key in pieces]) if by is not None else {}
    out: dict = {}
    for (group, label), piece in pieces.items():
        key = (groups.get(group, group), labels.get(label, label))
        _engine.merge_pieces(out, {key: piece})
    typed = tuple(dict.fromkeys(labels.get(v, v) for v in problems.labels))
    return out, dataclasses.replace(problems, labels=typed)


def _summarise(inputs, score_col, label_col, weight_col, by, round_scores, max_distinct,
               split_every, blocksize, client):
    """Read the files and reduce them to checked ``(pieces, problems)`` on the cluster."""
    roles = {"score_col": [score_col], "label_col": [label_col]}
    if weight_col is not None:
        roles["weight_col"] = [weight_col]
    if by is not None:
        roles["by"] = [by]
    header = _files.check_headers(inputs, roles, labels=[c for c in (label_col, by) if c])
    numeric = [score_col, *([weight_col] if weight_col is not None else [])]
    labels = [c for c in (label_col, by) if c is not None] if inputs.kind == "csv" else []
    columns = _engine.input_columns(score_col, label_col, weight_col, by)
    raw = _files.read_frame(inputs, columns, [*numeric, *labels], header, blocksize)
    df = _files.parsed(raw, numeric, labels=labels, source=inputs.source)
    delayed = reduction(df, score_col, label_col, weight_col, by, round_scores, split_every,
                        max_distinct)
    with _files.computing(raw, inputs.source, client):
        pieces, problems = delayed.compute()
        checked(problems, by, "sample_weight" if weight_col is None else f"column {weight_col!r}")
    if labels:
        pieces, problems = _typed(pieces, problems, by)
    return pieces, problems, raw[label_col].dtype


def _as_read(positive_label, labels: Sequence, dtype):
    """``positive_label`` as the double of the float32 label it names (attack 23 F6).

    The pieces hold a float32 column's labels as the doubles they are; its
    text (``"0.1"``) names a float32 label as the local reader's does
    (:func:`venncal.tables._labels.labels_named`).
    """
    if positive_label is None or dtype != np.float32:
        return positive_label
    found = labels_named(np.array([v for v in labels if v is not None], np.float32),
                         positive_label)
    return repr(found[0]) if found else positive_label


def _fit_multiclass(inputs, calibrator, score_col, label_col, weight_col, by, round_scores,
                    max_distinct, split_every, blocksize, client, return_summary):
    """Read the files and fit a multiclass calibrator (K score columns) on the cluster."""
    score_cols = list(_engine.names(score_col))
    roles = {"score_col": score_cols, "label_col": [label_col]}
    if weight_col is not None:
        roles["weight_col"] = [weight_col]
    if by is not None:
        roles["by"] = [by]
    header = _files.check_headers(inputs, roles, labels=[c for c in (label_col, by) if c])
    numeric = list(dict.fromkeys([*score_cols, *([weight_col] if weight_col is not None else [])]))
    csv = inputs.kind == "csv"
    labels = [c for c in (label_col, by) if c is not None] if csv else []
    columns = list(dict.fromkeys([*numeric, label_col, *([by] if by is not None else [])]))
    raw = _files.read_frame(inputs, columns, [*numeric, *labels], header, blocksize)
    df = _files.parsed(raw, numeric, labels=labels, source=inputs.source)
    dtype = np.float32 if raw[label_col].dtype == np.float32 else None

    def name(model, values):  # classes= named against the labels as read, as fit_file does
        try:
            name_classes(model, np.asarray([v for v in values if v is not None], dtype=dtype),
                         len(score_cols))
        except (TypeError, ValueError) as exc:
            parts = exc.parts if isinstance(exc, ParameterError) else (str(exc),)
            raise TableError(f"{inputs.source}: column {label_col!r}: ", *parts,
                             source=inputs.source, column=label_col) from None

    with _files.computing(raw, inputs.source, client):
        return fit_multiclass(
            df, calibrator, score_col=score_cols, label_col=label_col, weight_col=weight_col,
            by=by, round_scores=round_scores, max_distinct=max_distinct,
            split_every=split_every, typed=_files.typed_texts if csv else None,
            return_summary=return_summary, name=name,
            weight_name="sample_weight" if weight_col is None else f"column {weight_col!r}",
        )


def fit_files(
    data,
    method="ivap",
    *,
    score_col: str | Sequence[str],
    label_col: str,
    weight_col: str | None = None,
    by: str | None = None,
    positive_label=None,
    round_scores: int | None = None,
    max_distinct: int = _engine.DEFAULT_MAX_DISTINCT,
    split_every: int = 8,
    blocksize=None,
    sep: str | None = None,
    client=None,
    return_summary: bool = False,
    **params,
):
    """Fit a score-level calibrator on tables given as files, through their score summary.

    The files are read and reduced to the exact score summary on the Dask
    workers (as :func:`fit` does for a data frame), and the calibrator is
    fitted on the client.  Cells are read as :mod:`venncal.tables` reads
    them, so with integer weights (or none) the model is, bit for bit, the
    one ``venncal fit`` fits on the same rows in one process.

    Parameters
    ----------
    data : str or path-like
        A file, a directory (its files; names starting with ``.`` or ``_``
        are skipped) or a glob pattern, of Parquet files (``.parquet``,
        ``.pq``) or CSV files (``.csv``, ``.tsv``, optionally ``.gz``,
        ``.bz2``, ``.xz``, ``.zst``), all of one format (by name) and, for
        CSV, with one header.
    method : str or calibrator, default="ivap"
        A registered method name or an unfitted score-level calibrator; a
        multiclass calibrator takes K score columns (as for :func:`fit`),
        and its ``classes`` are names matched against the labels as read, as
        :func:`venncal.files.fit_file` matches them (``"0.1"`` names a
        float32 label 0.1).
    score_col, label_col, weight_col, by, round_scores, max_distinct, split_every
        As for :func:`fit`.  Labels (and ``by`` groups) of CSV are typed
        from all their distinct values (:func:`venncal.tables.typed_labels`);
        every label is a number, a boolean or text.
    positive_label : label or str, default=None
        The positive class, matched against the labels as read (``"1"``
        names the number 1; :func:`venncal.tables.classes_for`); not with
        ``classes``.
    blocksize : int or str, default=None
        Bytes per partition of a plain CSV file (dask's default: 64 MB); a
        compressed file is one partition.
    sep : str, default=None
        The CSV field separator (default by name: a tab for ``.tsv``).
    client : distributed.Client, default=None
        Where to compute; None: the current default scheduler.
    return_summary : bool, default=False
        Also return the summary of all the rows (groups pooled, label 1 the
        fitted ``classes_[1]``) and the number of rows read.  For a
        multiclass calibrator, the summaries it was fitted on instead: a
        dict keyed as its ``summaries`` method keys them.
    **params
        Parameters of the calibrator (``classes=[neg, pos]`` names the labels).

    Returns
    -------
    calibrator, or (calibrator, ScoreSummary, int) with ``return_summary``

    Raises
    ------
    TableError
        For files that cannot be read, a missing column (named by its
        parameter), a bad cell (at its row of its file), rows breaking the
        input rules, or more than ``max_distinct`` distinct scores.
    ValueError
        When the calibrator cannot be fitted on the data.

    Examples
    --------
    >>> import os, tempfile, dask
    >>> from venncal.dask import fit_files
    >>> folder = tempfile.mkdtemp()
    >>> for k, rows in enumerate(["0.1,no\\n0.4,yes\\n", "0.35,no\\n0.8,yes\\n"]):
    ...     with open(os.path.join(folder, f"part-{k}.csv"), "w") as f:
    ...         _ = f.write("score,label\\n" + rows)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     iso = fit_files(folder, "isotonic", score_col="score", label_col="label")
    >>> iso.classes_.tolist(), iso.predict_proba([0.2, 0.6])[:, 1].tolist()
    (['no', 'yes'], [0.0, 1.0])
    """
    calibrator = _engine.engine_calibrator(method, params, by, positive_label)
    inputs = _files.input_files(data, sep)
    if is_multiclass(calibrator):
        return _fit_multiclass(
            inputs, calibrator, score_col, label_col, weight_col, by, round_scores,
            max_distinct, split_every, blocksize, client, return_summary,
        )
    pieces, problems, dtype = _summarise(
        inputs, score_col, label_col, weight_col, by, round_scores, max_distinct, split_every,
        blocksize, client,
    )
    positive_label = _as_read(positive_label, problems.labels, dtype)
    try:
        model = _engine.fit_pieces(calibrator, pieces, problems, by, positive_label=positive_label)
    except ParameterError as exc:  # positive_label does not name a class: a problem of the data
        if "positive_label" not in exc.params:
            raise
        raise TableError(f"{inputs.source}: column {label_col!r}: ", *exc.parts,
                         source=inputs.source, column=label_col) from exc
    if not return_summary:
        return model
    return model, _pooled(pieces, problems, by, model), problems.rows


def _pooled(pieces, problems, by, model) -> ScoreSummary:
    """Return the summary of all the rows, groups pooled, label 1 the model's ``classes_[1]``."""
    pieces, _ = _engine.as_labels(pieces, problems)
    positive = _engine.plain(model.classes_[1])
    summaries = _engine.summaries_from_pieces(pieces, by=by, positive=positive)
    if not isinstance(summaries, dict):
        return summaries
    parts = list(summaries.values())
    summary = parts[0]
    for part in parts[1:]:
        summary = summary.merge(part)
    return summary
