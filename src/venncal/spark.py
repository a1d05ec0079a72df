"""Calibrate Spark data frames: summarise on the executors, fit on the driver, score in place.

The rows are reduced by one grouped aggregation on the executors (a hash
``groupBy`` of the score, the label and, with ``by``, the group: ties
spread over partitions are pooled by the aggregation, and no range
partitioning can skew), and only the distinct scores with their weights
come to the driver, which fits any registered calibrator by
``fit_summary``.  Scoring is a look-up on the JVM in the exact table of
the model's outputs (for the step calibrators: IVAP, histogram, ...) or a
pandas UDF closing over the small fitted model.  Only DataFrame operations
and closures are used (no RDDs, no broadcast variables), so everything
also works under Spark Connect (tested with a local Connect server).  With integer
weights (or none) the model is the one fitted on all the rows in one
array, bit for bit, whatever the partitioning.

:class:`SparkCalibrator` and :class:`SparkCalibratorModel` are the same as
a Spark ML ``Estimator``/``Model`` pair, for a ``pyspark.ml.Pipeline``;
the model saves the calibrator in venncal's JSON model format.

Needs the ``spark`` extra (``pip install "venncal[spark]"``) and Java 17+.

Examples
--------
In these examples ``spark`` is a :class:`pyspark.sql.SparkSession`.

>>> import numpy as np
>>> import venncal.spark as vs
>>> rng = np.random.default_rng(0)
>>> scores = rng.normal(size=1000).round(2)
>>> labels = (rng.random(1000) < 1 / (1 + np.exp(-2 * scores))).astype(int)
>>> df = spark.createDataFrame([(float(s), int(y)) for s, y in zip(scores, labels)],
...                            ["score", "y"])
>>> cal = vs.fit(df, "ivap", score_col="score", label_col="y")
>>> from venncal import VennAbersCalibrator
>>> same = VennAbersCalibrator().fit(scores, labels)
>>> bool((cal.predict_interval(scores) == same.predict_interval(scores)).all())
True
>>> vs.transform(df, cal, "score").columns
['score', 'y', 'p', 'p0', 'p1']
"""

from collections.abc import Hashable, Sequence

import numpy as np
from sklearn.utils.validation import check_is_fitted

from . import _engine, _lookup
from .summary import ScoreSummary

try:
    import pandas as pd
    import pyarrow as pa
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(
        'venncal.spark needs pyspark>=4, pandas and pyarrow: pip install "venncal[spark]"'
    ) from exc

__all__ = ["SparkCalibrator", "SparkCalibratorModel", "fit", "summarize", "transform"]

_INF = float("inf")


def _grouped(df, score_col, label_col, weight_col, by, round_scores):
    """Return the aggregation: one row per (group, label, score) with weights and problem counts."""
    columns = _engine.input_columns(score_col, label_col, weight_col, by)
    _engine.check_columns(columns, df.columns)
    s = F.col(score_col).cast("double")
    if round_scores is not None:
        if not isinstance(round_scores, int) or isinstance(round_scores, bool):
            raise ValueError(f"round_scores must be an integer or None; got {round_scores!r}")
        s = F.round(s, round_scores)
    s = s + F.lit(0.0)  # -0.0 becomes 0.0
    w = F.col(weight_col).cast("double") if weight_col is not None else F.lit(1.0)
    w_ok = w.isNotNull() & ~F.isnan(w) & (F.abs(w) != F.lit(_INF))
    keys = [F.col(by).alias("g")] if by is not None else []
    keys += [F.col(label_col).alias("label"), s.alias("s")]
    return df.groupBy(*keys).agg(
        F.count(F.lit(1)).alias("n"),
        F.sum(F.when(w_ok & (w > 0), w).otherwise(F.lit(0.0))).alias("w"),
        F.sum(F.when(w_ok, F.lit(0)).otherwise(F.lit(1))).alias("bad_w"),
        F.sum(F.when(w_ok & (w < 0), F.lit(1)).otherwise(F.lit(0))).alias("neg_w"),
        F.min(F.when(w_ok, w)).alias("min_w"),
    )


def _problems(table: "pd.DataFrame", by) -> _engine.Problems:
    s = table["s"].to_numpy(dtype=np.float64, na_value=np.nan)
    n = table["n"].to_numpy()
    bad_s = ~np.isfinite(s)
    label_null = table["label"].isna().to_numpy()
    negative = table["neg_w"].to_numpy() > 0
    return _engine.Problems(
        rows=int(n.sum()),
        bad_scores=int(n[bad_s].sum()),
        bad_score_examples=tuple(s[bad_s][:3].tolist()),
        bad_weights=int(table["bad_w"].sum()),
        negative_weights=int(table["neg_w"].sum()),
        min_weight=float(table["min_w"][negative].min()) if negative.any() else _INF,
        null_labels=int(n[label_null].sum()),
        null_groups=int(n[table["g"].isna().to_numpy()].sum()) if by is not None else 0,
        labels=tuple(pd.unique(table["label"][~label_null]).tolist()[: _engine.LABELS_KEPT]),
    )


def _pieces(table: "pd.DataFrame", by) -> dict:
    """Split the checked table into ``(group, label) -> ScoreSummary`` of positive weight."""
    table = table[table["w"].to_numpy() > 0]
    keys = ["g", "label"] if by is not None else ["label"]
    pieces = {}
    for key, rows in table.groupby(keys, sort=False):
        key = (None, key[0]) if by is None else key
        rows = rows.sort_values("s", kind="stable")
        w = rows["w"].to_numpy(dtype=np.float64)
        pieces[tuple(_engine.plain(k) for k in key)] = ScoreSummary(
            rows["s"].to_numpy(dtype=np.float64), w, np.zeros_like(w)
        )
    return pieces


def _collect(df, score_col, label_col, weight_col, by, round_scores, max_distinct):
    """Run the aggregation; bring at most ``max_distinct`` rows to the driver; check them."""
    if not isinstance(max_distinct, int) or max_distinct < 1:
        raise ValueError(f"max_distinct must be a positive integer; got {max_distinct!r}")
    grouped = _grouped(df, score_col, label_col, weight_col, by, round_scores)
    table = grouped.limit(max_distinct + 1).toArrow().to_pandas()
    _engine.check_distinct(len(table), max_distinct)
    problems = _problems(table, by)
    problems.check(by)
    return _pieces(table, by), problems


def summarize(
    df: DataFrame,
    score_col: str,
    label_col: str,
    weight_col: str | None = None,
    by: str | None = None,
    positive_label=None,
    *,
    round_scores: int | None = None,
    max_distinct: int = _engine.DEFAULT_MAX_DISTINCT,
) -> ScoreSummary | dict[Hashable, ScoreSummary]:
    """Reduce a Spark data frame to its exact score summary.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
    score_col, label_col : str
        Columns of the scores (finite reals) and of the labels.
    weight_col : str, default=None
        Column of non-negative frequency weights; rows of weight 0 are dropped.
    by : str, default=None
        A column of groups (folds, segments): one summary per value.
    positive_label : default=None
        The positive label; without it the labels must be 0 and 1 (or booleans).
    round_scores : int, default=None
        Round the scores to this many decimal places first (Spark's
        ``round``, half up), to bound the number of distinct scores.
    max_distinct : int, default=10_000_000
        The most rows of the aggregation (distinct scores per label and
        group, 24 bytes each in the summary) brought to the driver.

    Returns
    -------
    ScoreSummary, or dict of group -> ScoreSummary when ``by`` is given.

    Raises
    ------
    ValueError
        For NaN, infinite or null scores, NaN, infinite or negative weights,
        null or third labels, or more than ``max_distinct`` distinct scores.

    Examples
    --------
    >>> from venncal.spark import summarize
    >>> df = spark.createDataFrame([(0.3, 1), (0.1, 0), (0.3, 0), (0.9, 1)], ["s", "y"])
    >>> summarize(df, "s", "y").weights
    array([1., 2., 1.])
    """
    pieces, problems = _collect(
        df, score_col, label_col, weight_col, by, round_scores, max_distinct
    )
    return _engine.summary_of(pieces, problems, by, positive_label)


def fit(
    df: DataFrame,
    method="ivap",
    *,
    score_col: str,
    label_col: str,
    weight_col: str | None = None,
    by: str | None = None,
    round_scores: int | None = None,
    max_distinct: int = _engine.DEFAULT_MAX_DISTINCT,
    **params,
):
    """Fit a score-level calibrator on a Spark data frame through its score summary.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
    method : str or calibrator, default="ivap"
        A registered method name (``"ivap"``, ``"cvap"``, ``"isotonic"``,
        ``"platt"``, ...) or an unfitted score-level calibrator.
    score_col, label_col, weight_col, round_scores, max_distinct
        As for :func:`summarize`.
    by : str, default=None
        The fold column, for calibrators fitted per fold (``"cvap"``).
    **params
        Parameters of the calibrator (``classes=[neg, pos]`` names the labels).

    Returns
    -------
    The fitted calibrator; the labels are any two classes, as for its ``fit``.

    Examples
    --------
    >>> from venncal.spark import fit
    >>> rows = [(0.1, "n", 0), (0.4, "n", 0), (0.35, "p", 0), (0.8, "p", 0),
    ...         (0.2, "n", 1), (0.3, "p", 1), (0.6, "n", 1), (0.9, "p", 1)]
    >>> df = spark.createDataFrame(rows, ["s", "y", "fold"])
    >>> cvap = fit(df, "cvap", score_col="s", label_col="y", by="fold")
    >>> cvap.classes_.tolist(), cvap.predict_proba([[0.5, 0.55]]).round(4)
    (['n', 'p'], array([[0.4495, 0.5505]]))
    """
    calibrator = _engine.make_calibrator(method, params)
    _engine.check_grouping(calibrator, by)
    pieces, problems = _collect(
        df, score_col, label_col, weight_col, by, round_scores, max_distinct
    )
    return _engine.fit_pieces(calibrator, pieces, problems, by)


TRANSFORM_METHODS = ("auto", "lookup", "udf")


def _finite(x):
    """Return the condition that the double column ``x`` is a finite number (not null)."""
    return x.isNotNull() & ~F.isnan(x) & (F.abs(x) != F.lit(_INF))


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

    The arrays of the run table (:mod:`venncal._lookup`) come as scalar
    subqueries of a one-row data frame (Spark computes them once, on the
    driver, and puts them in the generated code as constants); the search
    is ``table.depth`` projections, so no Python runs on the executors.
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
    out = df.withColumn(tmp[0], F.col(score_col).cast("double") + F.lit(0.0))  # -0.0 is 0.0
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
    finite, invalid = _finite(x), _invalid(x, nan_scores)  # built once: py4j calls cost
    out = out.withColumns({
        name: F.when(finite, F.get(outputs, at + i)).otherwise(invalid)
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
    scored = df.withColumn(tmp, udf(F.struct(*[F.col(c).cast("double") for c in score_cols])))
    return scored.withColumns({name: F.col(tmp)[name] for name in names}).drop(tmp)


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
    calibrator : fitted score-level calibrator
    score_col : str or list of str
        The score column; for a cross Venn-Abers calibrator, one column per
        fold (in the order of ``folds_``) or one for all folds.
    output_cols : str or sequence of str, default=("p", "p0", "p1")
        Names of the probability of ``classes_[1]`` and, for Venn-Abers
        calibrators, of the interval ``(p0, p1)``.
    method : {"auto", "lookup", "udf"}, default="auto"
        How the rows are scored.  ``"lookup"`` stays on the JVM, for the
        calibrators whose prediction is a table look-up (IVAP, isotonic with
        ``interpolation="nearest"``, quantized isotonic, histogram binning,
        BBQ): the table of their outputs between and at their breakpoints
        (the calibration scores for IVAP), with equal neighbours merged, is
        sent as constant arrays (scalar subqueries of a one-row data frame);
        each score finds its entry by an evenly spaced cell and a short
        binary search (:mod:`venncal._lookup`).  ``"udf"`` runs the
        calibrator's own ``predict`` in a pandas UDF (every calibrator).
        ``"auto"`` takes the look-up where it applies, else the UDF.  Both
        give the same values, bit for bit.
    nan_scores : {"error", "propagate"}, default="error"
        A missing score (null or NaN): the job fails (``"error"``), or that
        row gets null outputs and the others are scored as usual
        (``"propagate"``, as ``venncal predict --nan-scores propagate``).
        An infinite score is always an error.

    Returns
    -------
    pyspark.sql.DataFrame
        ``df`` with the new double columns (lazy).  A score that is not
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


# The Spark ML pair calls fit and transform above, so it is imported last.
from ._spark_ml import SparkCalibrator, SparkCalibratorModel
