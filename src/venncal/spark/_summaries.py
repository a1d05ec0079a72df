"""Exact per-partition score summaries of a Spark data frame, merged exactly (issue 22).

Spark's ``sum`` adds the weights of tied scores in the order of the
partitions and of the shuffle, so ``2**53 + 1 + 1`` could come out as
``2**53`` or ``2**53 + 2``, and fractional weights an ulp off the local fit.
Instead, ``mapInPandas`` reduces every partition to one
:class:`~venncal.ScoreSummary` per (group, label), as the Dask engine does;
``applyInPandas`` grouped by (group, label) merges them exactly
(:meth:`ScoreSummary.merge` does not depend on the order), and one last
``applyInPandas`` gathers the merged pieces with the partitions' problem
counts into one row, or into a note of their size when they hold more than
``max_distinct`` distinct scores, so that the driver never receives more.
Only DataFrame operations and closures: it runs under Spark Connect too.
"""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
from pyspark.sql import functions as F

from .. import _engine

__all__ = ["collect_pieces"]

_PARTS = "key binary, blob binary"
_ALL = "blob binary"
#: The key of the rows that carry a partition's problems (pickle never gives empty bytes).
_PROBLEMS = b""


def _pickled(value) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def _problems(pdf: pd.DataFrame, s, w, by) -> _engine.Problems:
    """The input problems of one batch (the counts the local fit checks)."""
    return _engine.frame_problems(s, w, pdf["label"], pdf["g"] if by is not None else None)


def batch_pieces(pdf: pd.DataFrame, by) -> tuple[dict, _engine.Problems, int]:
    """Reduce one batch (columns ``s``, ``label``, maybe ``w``, ``g``, ``lost``).

    Returns ``(pieces, problems, lost)``: ``(group, label) -> ScoreSummary``
    of the valid rows of positive weight (all labelled 0, as in the Dask
    engine), the problem counts, and how many finite scores the rounding made
    infinite.  Raises ``ValueError`` when tied weights sum past float64.
    """
    s = pdf["s"].to_numpy(dtype=np.float64, na_value=np.nan)
    w = pdf["w"].to_numpy(dtype=np.float64, na_value=np.nan) if "w" in pdf.columns else None
    problems = _problems(pdf, s, w, by)
    lost = int(pdf["lost"].sum()) if "lost" in pdf.columns else 0
    groups = pdf["g"] if by is not None else None
    return _engine.frame_pieces(s, w, pdf["label"], groups), problems, lost


def _summarise(batches, by):
    """mapInPandas: a row of problems, and a row per (group, label), for one partition."""
    pieces: dict = {}
    problems, lost, error = _engine.Problems(), 0, None
    for pdf in batches:
        try:
            part, part_problems, part_lost = batch_pieces(pdf, by)
            if error is None:
                _engine.merge_pieces(pieces, part)
        except ValueError as exc:  # tied weights past float64: raised on the driver
            error = str(exc)
            part_problems, part_lost = _problems_only(pdf, by)
        problems, lost = problems.merge(part_problems), lost + part_lost
    if error is not None:
        pieces = {}
    keys = [_PROBLEMS, *(_pickled(k) for k in pieces)]
    blobs = [_pickled((problems, lost, error)), *(_pickled(p) for p in pieces.values())]
    yield pd.DataFrame({"key": keys, "blob": blobs})


def _problems_only(pdf, by):
    s = pdf["s"].to_numpy(dtype=np.float64, na_value=np.nan)
    w = pdf["w"].to_numpy(dtype=np.float64, na_value=np.nan) if "w" in pdf.columns else None
    lost = int(pdf["lost"].sum()) if "lost" in pdf.columns else 0
    return _problems(pdf, s, w, by), lost


def _merge_key(pdf: pd.DataFrame) -> pd.DataFrame:
    """applyInPandas: merge the rows of one key (or of the problems) exactly into one."""
    key = pdf["key"].iloc[0]
    values = [pickle.loads(b) for b in pdf["blob"]]
    if key == _PROBLEMS:
        problems, lost, error = _engine.Problems(), 0, None
        for p, n, e in values:
            problems, lost, error = problems.merge(p), lost + n, error or e
        merged = (problems, lost, error)
    else:
        merged = values[0]
        try:
            for value in values[1:]:
                merged = merged.merge(value)
        except ValueError as exc:
            merged = str(exc)
    return pd.DataFrame({"key": [key], "blob": [_pickled(merged)]})


def _gather(pdf: pd.DataFrame, max_distinct: int) -> pd.DataFrame:
    """applyInPandas over all rows: ``(pieces | n_distinct, problems, lost, error)`` as one row."""
    pieces: dict = {}
    problems, lost, error = _engine.Problems(), 0, None
    for key, blob in zip(pdf["key"], pdf["blob"], strict=True):
        value = pickle.loads(blob)
        if key == _PROBLEMS:
            problems, lost, error = problems.merge(value[0]), lost + value[1], error or value[2]
        elif isinstance(value, str):
            error = error or value
        else:
            _engine.merge_pieces(pieces, {pickle.loads(key): value})
    n = _engine.n_distinct(pieces)
    kept = pieces if n <= max_distinct and error is None else n
    return pd.DataFrame({"blob": [_pickled((kept, problems, lost, error))]})


def collect_pieces(frame, by, max_distinct: int):
    """Return ``(pieces, problems, lost, error)`` of ``frame`` (columns as :func:`batch_pieces`).

    ``pieces`` is the number of distinct scores instead when it exceeds
    ``max_distinct`` (or when ``error``, the message of tied weights past
    float64, is set); ``lost`` counts the scores the rounding made infinite.
    """

    def summarise(batches):
        return _summarise(batches, by)

    def gather(pdf):
        return _gather(pdf, max_distinct)

    rows = (frame.mapInPandas(summarise, _PARTS)
            .groupBy("key").applyInPandas(_merge_key, _PARTS)
            .withColumn("all", F.lit(0)).groupBy("all").applyInPandas(gather, _ALL)
            .toArrow().to_pydict()["blob"])
    if not rows:  # no partition at all
        return {}, _engine.Problems(), 0, None
    return pickle.loads(rows[0])
