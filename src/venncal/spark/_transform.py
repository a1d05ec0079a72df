"""Score a Spark data frame where it lives: a look-up on the JVM, or a pandas UDF.

The look-up serves the calibrators that tell their knots (the points where
their prediction may change, :func:`venncal.spark._lookup.knots_of`): the
exact table of their outputs reaches the executors as constant arrays and
no Python runs there.  Every other calibrator is scored by its own
``predict`` in a pandas UDF closing over the small fitted model.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T
from sklearn.utils.validation import check_is_fitted

from .. import _engine
from .. import _score_names as score_names
from . import _lookup
from .._docs import fill
from ._exact import exact_double
from ._fit import finite

__all__ = ["TRANSFORM_METHODS", "transform"]

TRANSFORM_METHODS = ("auto", "lookup", "udf")


def _invalid(x, nan_scores: str):
    """Return the value of the outputs for a non-finite score: an error, or null if missing."""
    error = F.raise_error(F.concat(
        F.lit("scores must be finite; found a NaN, infinite or null value ("),
        F.coalesce(x.cast("string"), F.lit("null")), F.lit(")"),
    ))
    if nan_scores == "error":
        return error
    return F.when(x.isNull() | F.isnan(x), F.lit(None).cast("double")).otherwise(error)


def _transform_lookup(df, table: _lookup.JumpTable, score_col, names, nan_scores):
    """Score on the JVM: the cell of each score, a short binary search, one look-up per output.

    The arrays of the run table (:mod:`venncal.spark._lookup`) come as
    scalar subqueries of a one-row data frame (Spark computes them once, on
    the driver, and puts them in the generated code as constants); the
    search is ``table.depth`` projections, so no Python runs on the executors.
    """
    n_out = len(names)
    tmp = [f"__venncal_{name}__" for name in ("x", "at", "t", "f", "v")]
    x, at = F.col(tmp[0]), F.col(tmp[1])
    arrays = {tmp[2]: (table.thresholds, pa.float64()), tmp[3]: (table.first, pa.int32()),
              tmp[4]: (table.outputs.ravel(), pa.float64())}  # run i's outputs at n_out * i
    one = df.sparkSession.createDataFrame(
        pa.table({c: pa.array([v], pa.list_(kind)) for c, (v, kind) in arrays.items()})
    )
    thresholds, first, outputs = (one.select(c).scalar() for c in arrays)
    out = df.withColumn(tmp[0], exact_double(df, score_col, "scores") + F.lit(0.0))  # -0.0: 0.0
    if table.m > 1:  # the same float operations as _lookup.cell_of
        cell = (x - F.lit(table.lo)) * F.lit(table.scale)
        cell = F.least(F.greatest(cell, F.lit(0.0)), F.lit(table.m - 0.5)).cast("int")
        out = out.withColumn(tmp[1], F.get(first, cell))
    else:
        out = out.withColumn(tmp[1], F.lit(0))
    for level in reversed(range(table.depth)):  # at = the number of thresholds <= x
        step = 1 << level
        below = F.get(thresholds, at + (step - 1)) <= x
        out = out.withColumn(tmp[1], F.when(below, at + step).otherwise(at))
    out = out.withColumn(tmp[1], at * n_out)
    ok, invalid = finite(x), _invalid(x, nan_scores)  # built once: py4j calls cost
    out = out.withColumns({
        name: F.when(ok, F.get(outputs, at + i)).otherwise(invalid)
        for i, name in enumerate(names)
    })
    return out.drop(*tmp[:2])


def _transform_udf(df, calibrator, score_cols, names, nan_scores):
    """Score in Python: a pandas UDF closing over the fitted calibrator."""
    model, n_out = calibrator, len(names)

    def score(scores: pd.DataFrame) -> pd.DataFrame:
        values = scores.to_numpy(dtype=np.float64, na_value=np.nan)
        columns, missing = _engine.score_rows(model, values, n_out, nan_scores)
        if missing is not None:  # nullable columns: the missing rows are null, not NaN
            columns = [pd.arrays.FloatingArray(c, missing.copy()) for c in columns]
        return pd.DataFrame(dict(zip(names, columns, strict=True)))

    out_type = T.StructType([T.StructField(name, T.DoubleType()) for name in names])
    udf = F.pandas_udf(score, out_type)
    tmp = "__venncal_scored__"
    scored = df.withColumn(tmp, udf(F.struct(*[exact_double(df, c, "scores").alias(f"_{k}")
                                               for k, c in enumerate(score_cols)])))
    return scored.withColumns({name: F.col(tmp)[name] for name in names}).drop(tmp)


@fill
def transform(
    df: DataFrame,
    calibrator,
    score_col: str | Sequence[str],
    output_cols: str | Sequence[str] = ("p", "p0", "p1"),
    *,
    method: str = "auto",
    nan_scores: str = "error",
) -> DataFrame:
    """Add calibrated probabilities to a Spark data frame, scored on the executors.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
    {transform_columns}
    method : {"auto", "lookup", "udf"}, default="auto"
        How the rows are scored.  ``"lookup"`` stays on the JVM, for the
        calibrators whose prediction is a table look-up (IVAP, isotonic with
        ``interpolation="nearest"``, quantized isotonic, histogram binning,
        BBQ, and these wrapped in :class:`~venncal.NegatedScoreCalibrator`;
        not a subclass, unless it says its knots): the table of their
        outputs between and at their breakpoints (the calibration scores
        for IVAP), with equal neighbours merged, is sent as constant arrays
        (scalar subqueries of a one-row data frame); each score finds its
        entry by an evenly spaced cell and a short binary search
        (:mod:`venncal.spark._lookup`).  ``"udf"`` runs the calibrator's own
        ``predict`` in a pandas UDF (every calibrator).  ``"auto"`` takes
        the look-up where it applies, else the UDF.  Both give the same
        values, bit for bit.
    nan_scores : {"error", "propagate"}, default="error"
        A missing score (null or NaN): the job fails (``"error"``), or that
        row gets null outputs and the others are scored as usual
        (``"propagate"``, as ``venncal predict --nan-scores propagate``).
        An infinite score is always an error.

    Returns
    -------
    pyspark.sql.DataFrame
        ``df`` with the new double columns (lazy); for a multiclass
        calibrator (scored by the UDF), ``p_<class>`` per class and, with
        three prefixes and a Venn-Abers base, ``p0_<unit>``, ``p1_<unit>``
        per class or pair (``b_vs_a``), from its K score columns (or F*K,
        fold by fold, with a cross Venn-Abers base).  A score that is not
        allowed fails the job (the UDF raises the calibrator's
        ``ValueError``, the look-up Spark's ``raise_error`` with the same
        words).

    Examples
    --------
    >>> from venncal import IsotonicCalibrator
    >>> from venncal.spark import transform
    >>> iso = IsotonicCalibrator().fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    >>> df = spark.createDataFrame([(0.15,), (0.35,)], ["s"])
    >>> [tuple(row) for row in transform(df, iso, "s").collect()]
    [(0.15, 0.0), (0.35, 0.5)]
    >>> [tuple(row) for row in transform(df, iso, "s", method="udf").collect()]
    [(0.15, 0.0), (0.35, 0.5)]
    >>> holes = spark.createDataFrame([(0.15,), (None,), (float("nan"),)], "s double")
    >>> [tuple(row) for row in transform(holes, iso, "s", nan_scores="propagate").collect()]
    [(0.15, 0.0), (None, None), (nan, None)]
    """
    if method not in TRANSFORM_METHODS:
        raise ValueError(f"method must be one of {TRANSFORM_METHODS}; got {method!r}")
    _engine.check_nan_scores(nan_scores)
    check_is_fitted(calibrator)
    names = _engine.output_names(calibrator, output_cols)
    score_cols = _engine.names(score_col)
    score_names.check(calibrator, score_cols)
    _engine.check_columns(score_cols, df.columns)
    knots = _lookup.knots_of(calibrator) if method != "udf" and len(score_cols) == 1 else None
    if method == "lookup" and knots is None:
        raise ValueError(
            f"method='lookup' needs a calibrator whose prediction is a table look-up on one "
            f"score column (IVAP, nearest isotonic, quantized isotonic, histogram, BBQ); "
            f"{type(calibrator).__name__} is scored with method='udf'"
        )
    if knots is not None:
        table = _lookup.jump_table(calibrator, knots, len(names))
        return _transform_lookup(df, table, score_cols[0], names, nan_scores)
    return _transform_udf(df, calibrator, score_cols, names, nan_scores)
