"""Multiclass fits on Spark: the labels first, then one summary per binary problem, merged exactly.

See :mod:`venncal._engine_multiclass`.  A first query brings the distinct
labels to the driver (the classes, and which score column is which class);
then ``mapInPandas`` reduces every partition to one
:class:`~venncal.ScoreSummary` per class (one-vs-rest) or pair (one-vs-one),
and per fold with a cross Venn-Abers base, and ``applyInPandas`` grouped by
the binary problem merges them exactly on the executors (the merge adds
tied weights exactly, so the order of the batches does not matter).  The
driver receives one merged summary per problem and fits by
``fit_summary``.  Only DataFrame operations and closures: it runs under
Spark Connect too.
"""

from __future__ import annotations

import pickle

import pandas as pd
from pyspark.sql import functions as F

from .. import _engine
from .. import _engine_multiclass as mc
from ..tables import label_value
from ._exact import check_exact

__all__ = ["fit_multiclass"]

_SCHEMA = "unit int, blob binary"
#: The unit number of the row that carries a partition's problems.
_PROBLEMS = -1


def _pickled(value) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def _summarise(batches, calibrator, classes, codes, n_scores, by, round_scores):
    """mapInPandas: one row of problems, and a row per unit present, for a partition."""
    cols = [f"s{k}" for k in range(n_scores)]
    parts = [
        mc.frame_summaries(pdf, calibrator, classes, codes, cols, "label",
                           "w" if "w" in pdf.columns else None, "g" if by else None, round_scores)
        for pdf in batches
    ]
    pieces, problems = mc.merge_parts(*parts)
    names = classes.tolist()
    index = {calibrator._unit_key(u, names): i for i, u in enumerate(calibrator._units(len(names)))}
    per_unit: dict = {}
    for key, piece in pieces.items():
        per_unit.setdefault(index[key[0] if by else key], {})[key] = piece
    yield pd.DataFrame({
        "unit": [_PROBLEMS, *per_unit],
        "blob": [_pickled(problems), *(_pickled(p) for p in per_unit.values())],
    })


def _merge(pdf: pd.DataFrame) -> pd.DataFrame:
    """applyInPandas: merge the rows of one unit (or of the problems) into one."""
    unit = int(pdf["unit"].iloc[0])
    values = [pickle.loads(b) for b in pdf["blob"]]
    if unit == _PROBLEMS:
        merged = values[0]
        for value in values[1:]:
            merged = merged.merge(value)
    else:
        merged = mc.merge_parts(*((v, mc.ClassProblems()) for v in values))
    return pd.DataFrame({"unit": [unit], "blob": [_pickled(merged)]})


def fit_multiclass(df, calibrator, *, score_col, label_col, weight_col, by, round_scores,
                   max_distinct):
    """Fit a multiclass ``calibrator`` (checked by ``engine_calibrator``) on a Spark data frame."""
    round_scores = _engine.check_round_scores(round_scores)
    if not isinstance(max_distinct, int) or max_distinct < 1:
        raise ValueError(f"max_distinct must be a positive integer; got {max_distinct!r}")
    score_cols = list(_engine.names(score_col))
    _engine.check_columns([*score_cols, *_engine.input_columns(label_col, weight_col, by, None)],
                          df.columns)
    found = (df.select(F.col(label_col).alias("label")).where(F.col("label").isNotNull())
             .distinct().limit(mc.MAX_CLASSES + 1).collect())
    raw = [row["label"] for row in found if row["label"] == row["label"]]  # not NaN
    mc.check_label_count(len(raw))
    classes = mc.classes_of(calibrator, [label_value(v) for v in raw])
    mc.check_width(classes, score_cols)
    check_exact(df, {**{f"scores ({c})": c for c in score_cols}, "sample_weight": weight_col})
    codes = mc.label_codes(classes, raw)
    columns = [F.col(c).cast("double").alias(f"s{k}") for k, c in enumerate(score_cols)]
    columns.append(F.col(label_col).alias("label"))
    if weight_col is not None:
        columns.append(F.col(weight_col).cast("double").alias("w"))
    if by is not None:
        columns.append(F.col(by).alias("g"))
    model, n = calibrator, len(score_cols)

    def summarise(batches):
        return _summarise(batches, model, classes, codes, n, by, round_scores)

    merged = (df.select(*columns).mapInPandas(summarise, _SCHEMA)
              .groupBy("unit").applyInPandas(_merge, _SCHEMA).toArrow().to_pydict())
    pieces, problems = {}, mc.ClassProblems()
    for unit, blob in zip(merged["unit"], merged["blob"], strict=True):
        value = pickle.loads(blob)
        if unit == _PROBLEMS:
            problems = value
        else:
            pieces.update(value[0])
            problems = problems.merge(value[1])
    _engine.check_distinct(mc.n_distinct(pieces), max_distinct)
    return mc.fit_parts(calibrator, classes, pieces, problems, by, score_cols=score_cols)
