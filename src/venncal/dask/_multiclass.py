"""Multiclass fits on Dask: the labels first, then one summary per binary problem per partition.

See :mod:`venncal._engine_multiclass`: a first tree reduction gathers the
distinct labels (the classes, and which score column is which class), a
second reduces every partition to one :class:`~venncal.ScoreSummary` per
class (one-vs-rest) or pair (one-vs-one), and per fold with a cross
Venn-Abers base, merged exactly on the workers; the client fits by
``fit_summary``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import dask
import pandas as pd
from sklearn.base import clone

from .. import _engine
from .. import _engine_multiclass as mc
from ._files import located_rows

__all__ = ["fit_multiclass", "labels_reduction", "summaries_reduction"]


def _tree(parts: list, combine, split_every: int):
    """Merge delayed ``parts`` in a tree of fan-in ``split_every`` (at least one level)."""
    if not isinstance(split_every, int) or split_every < 2:
        raise ValueError(f"split_every must be an integer >= 2; got {split_every!r}")
    while True:
        parts = [combine(*parts[i:i + split_every]) for i in range(0, len(parts), split_every)]
        if len(parts) == 1:
            return parts[0]


def _partition_labels(pdf, label_col) -> tuple:
    labels = pdf[label_col]
    return tuple(_engine.plain(v) for v in pd.unique(labels[~labels.isna().to_numpy()]))


def _combine_labels(*parts) -> tuple:
    labels = tuple(dict.fromkeys(v for part in parts for v in part))
    mc.check_label_count(len(labels))  # fail early: not a label column
    return labels


def labels_reduction(df, label_col: str, split_every: int):
    """Return a delayed tuple of the distinct non-null labels of ``df`` (as read)."""
    part = dask.delayed(_partition_labels, pure=True)
    parts = [part(p, label_col) for p in df[[label_col]].to_delayed()]
    return _tree(parts, dask.delayed(_combine_labels, pure=True), split_every)


def _combine(*parts, max_distinct):
    merged = mc.merge_parts(*parts)
    _engine.check_distinct(mc.n_distinct(merged[0]), max_distinct)
    return merged


def summaries_reduction(df, calibrator, classes, codes, score_cols, label_col, weight_col, by,
                        round_scores, split_every, max_distinct):
    """Return the delayed, merged ``(pieces, problems)`` of every partition of ``df``."""
    columns = list(dict.fromkeys([*score_cols, label_col, *(c for c in (weight_col, by) if c)]))
    part = dask.delayed(mc.frame_summaries, pure=True)
    model = dask.delayed(calibrator, pure=True)
    parts = [
        part(p, model, classes, codes, score_cols, label_col, weight_col, by, round_scores, i)
        for i, p in enumerate(df[columns].to_delayed())
    ]
    combine = dask.delayed(_combine, pure=True)
    return _tree(parts, lambda *ps: combine(*ps, max_distinct=max_distinct), split_every)


def fit_multiclass(df, calibrator, *, score_col, label_col, weight_col, by, round_scores,
                   max_distinct, split_every, typed: Callable | None = None,
                   compute: Callable = dask.compute, return_summary: bool = False,
                   weight_name: str = "sample_weight", check_raw: Callable | None = None,
                   check_folds: Callable | None = None, name: Callable | None = None):
    """Fit a multiclass ``calibrator`` (checked by ``engine_calibrator``) on a Dask data frame.

    ``typed`` maps the distinct labels (and folds) as read to their values
    (default: :func:`venncal.tables.label_value`; for CSV text, typed from
    all of them); ``compute`` runs a delayed object (on the caller's client);
    ``check_raw``, when given, is called with the distinct labels as read
    when the calibrator's ``classes`` does not name them; ``check_folds``
    with the distinct folds as read; ``name``, when given and the
    calibrator's ``classes`` is, with a clone of the calibrator and the
    distinct labels typed, to name the classes against them (files).
    """
    round_scores = _engine.check_round_scores(round_scores)
    score_cols = list(_engine.names(score_col))
    _engine.check_columns(_engine.input_columns(label_col, weight_col, by, None) + score_cols,
                          df.columns)
    if not isinstance(max_distinct, int) or max_distinct < 1:
        raise ValueError(f"max_distinct must be a positive integer; got {max_distinct!r}")
    (raw,) = compute(labels_reduction(df, label_col, split_every))
    if check_raw is not None and not mc.given_classes(calibrator):
        check_raw(raw)
    to_value = _label_typer(raw, typed)
    values = [to_value(v) for v in raw]
    if name is not None and mc.given_classes(calibrator):
        calibrator = clone(calibrator)
        name(calibrator, values)
    classes = mc.classes_of(calibrator, values)
    mc.check_width(classes, score_cols)
    codes = mc.label_codes(classes, raw, to_value)
    (merged,) = compute(summaries_reduction(
        df, calibrator, classes, codes, score_cols, label_col, weight_col, by, round_scores,
        split_every, max_distinct,
    ))
    pieces, problems = merged
    if check_folds is not None and by is not None:
        check_folds(list(problems.folds))
    fold_value = _label_typer(list(problems.folds), typed) if by is not None else None
    with located_rows():  # a bad row of scores: at its row of its partition (of its file)
        model = mc.fit_parts(calibrator, classes, pieces, problems, by, score_cols=score_cols,
                             weight_name=weight_name,
                             **({} if fold_value is None else {"fold_value": fold_value}))
    if return_summary:
        return model, model_summaries(pieces, fold_value), problems.rows
    return model


def _label_typer(raw: Sequence, typed: Callable | None) -> Callable:
    """Return the function from a label as read to its value (the label rule)."""
    from ..tables import label_value

    if typed is None:
        return label_value
    mapping = typed(list(raw))
    return lambda v: mapping.get(v, label_value(v))


def model_summaries(pieces: dict, fold_value) -> dict:
    """The summaries the model was fitted on, keyed as ``fit_summary`` takes them."""
    if fold_value is None:
        return dict(pieces)
    out: dict = {}
    for (unit, fold), piece in pieces.items():
        key = (unit, fold_value(fold))
        out[key] = out[key].merge(piece) if key in out else piece
    return out
