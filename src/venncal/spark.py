"""Calibrate Spark data frames: summarise on the executors, fit on the driver, score in place.

The rows are reduced by one grouped aggregation on the executors (a hash
``groupBy`` of the score, the label and, with ``by``, the group: ties
spread over partitions are pooled by the aggregation, and no range
partitioning can skew), and only the distinct scores with their weights
come to the driver, which fits any registered calibrator by
``fit_summary``.  Scoring is a pandas UDF closing over the small fitted
model.  Only DataFrame operations and closures are used (no RDDs, no
broadcast), so everything also works under Spark Connect.  With integer
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

from . import _engine
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


def _knots(calibrator) -> np.ndarray | None:
    """Return the sorted points where the calibrator's prediction may change, or None.

    Between two consecutive knots (and below the first, above the last) the
    prediction of these calibrators is constant, so it is a lookup in a table
    of ``2 k + 1`` entries: one per open interval and one per knot.  Exact
    types only: a subclass may predict otherwise.
    """
    from .baselines import (
        BBQCalibrator,
        HistogramBinningCalibrator,
        IsotonicCalibrator,
        QuantizedIsotonicCalibrator,
    )
    from .venn_abers import VennAbersCalibrator

    kind = type(calibrator)
    if kind is VennAbersCalibrator:
        knots = calibrator.scores_
    elif kind is QuantizedIsotonicCalibrator or (
        kind is IsotonicCalibrator and calibrator.interpolation == "nearest"
    ):
        knots = calibrator._nearest_steps()[0]
    elif kind is HistogramBinningCalibrator:
        knots = calibrator.bin_edges_[1:-1]
    elif kind is BBQCalibrator:
        knots = calibrator.thresholds_
    else:
        return None
    return np.unique(np.asarray(knots, dtype=np.float64) + 0.0)


def _lookup_table(calibrator, knots: np.ndarray, n_out: int) -> list[np.ndarray]:
    """Return the outputs at the ``2 k + 1`` positions: interval below knot j at 2 j, knot j at 2 j + 1.

    Each entry is the calibrator's own prediction at a point of its interval
    (the float just below the knot, or just above the last one), so the
    table holds exactly what ``predict`` returns there.  An interval that
    holds no finite float is never looked up; its entry is the knot's.
    """
    k = knots.shape[0]
    points = np.empty(2 * k + 1)
    if k == 0:
        points[0] = 0.0
    else:
        below = np.nextafter(knots, -np.inf)
        previous = np.concatenate(([-np.inf], knots[:-1]))
        points[0:2 * k:2] = np.where((below > previous) & np.isfinite(below), below, knots)
        points[1::2] = knots
        above = np.nextafter(knots[-1], np.inf)
        points[2 * k] = above if np.isfinite(above) else knots[-1]
    return _engine.score_columns(calibrator, points, n_out)


def _transform_lookup(df, calibrator, knots, score_col, names):
    """Score on the JVM: a binary search among the knots, then one array lookup per output.

    The tables come as one row (arrays) joined to every row by a broadcast
    cross join; the search is unrolled into ``ceil(log2(k + 1))`` projections
    of the same whole-stage code, so no Python runs on the executors.
    """
    spark = df.sparkSession
    k = knots.shape[0]
    levels = k.bit_length()  # 2**levels > k
    padded = np.full(1 << levels, np.inf)  # +inf past the end: never below a finite score
    padded[:k] = knots
    values = _lookup_table(calibrator, knots, len(names))
    tmp = [f"__venncal_{name}__" for name in ("x", "lo", "knots", *range(len(names)))]
    x, lo, knots_col, value_cols = tmp[0], tmp[1], tmp[2], tmp[3:]
    table = pa.table(
        {knots_col: pa.array([padded], pa.list_(pa.float64())),
         **{c: pa.array([v], pa.list_(pa.float64())) for c, v in zip(value_cols, values, strict=True)}}
    )
    out = df.withColumn(x, F.col(score_col).cast("double") + F.lit(0.0))  # -0.0 is 0.0
    out = out.crossJoin(F.broadcast(spark.createDataFrame(table)))
    out = out.withColumn(lo, F.lit(0))
    for level in reversed(range(levels)):  # lo = the number of knots below x
        step = 1 << level
        below = F.get(F.col(knots_col), F.col(lo) + (step - 1)) < F.col(x)
        out = out.withColumn(lo, F.when(below, F.col(lo) + step).otherwise(F.col(lo)))
    hit = (F.get(F.col(knots_col), F.col(lo)) == F.col(x)).cast("int")
    position = F.col(lo) * 2 + hit
    finite = F.col(x).isNotNull() & ~F.isnan(F.col(x)) & (F.abs(F.col(x)) != F.lit(_INF))
    error = F.raise_error(F.concat(
        F.lit("scores must be finite; found a NaN, infinite or null value ("),
        F.coalesce(F.col(x).cast("string"), F.lit("null")), F.lit(")"),
    ))
    out = out.withColumns({
        name: F.when(finite, F.get(F.col(c), position)).otherwise(error)
        for name, c in zip(names, value_cols, strict=True)
    })
    return out.drop(*tmp)


def _transform_udf(df, calibrator, score_cols, names):
    """Score in Python: a pandas UDF closing over the fitted calibrator."""
    model, n_out = calibrator, len(names)

    def score(scores: pd.DataFrame) -> pd.DataFrame:
        values = scores.to_numpy(dtype=np.float64, na_value=np.nan)
        return pd.DataFrame(dict(zip(names, _engine.score_columns(model, values, n_out), strict=True)))

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
        How the rows are scored.  ``"lookup"`` stays on the JVM: a binary
        search of each score among the calibrator's breakpoints (its
        calibration scores for IVAP), then a look-up in the table of its
        outputs, sent as one row of arrays in a broadcast cross join; only
        for the calibrators whose prediction is a table look-up (IVAP,
        isotonic with ``interpolation="nearest"``, quantized isotonic,
        histogram binning, BBQ).  ``"udf"`` runs the calibrator's own
        ``predict`` in a pandas UDF (every calibrator).  ``"auto"`` takes
        the look-up where it applies, else the UDF.  Both give the same
        values, bit for bit.

    Returns
    -------
    pyspark.sql.DataFrame
        ``df`` with the new double columns (lazy).  A NaN, infinite or null
        score fails the job (the UDF raises the calibrator's ``ValueError``,
        the look-up Spark's ``raise_error`` with the same words).

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
    """
    if method not in TRANSFORM_METHODS:
        raise ValueError(f"method must be one of {TRANSFORM_METHODS}; got {method!r}")
    check_is_fitted(calibrator)
    names = _engine.output_names(calibrator, output_cols)
    score_cols = _engine.names(score_col)
    _engine.check_columns(score_cols, df.columns)
    knots = _knots(calibrator) if method != "udf" and len(score_cols) == 1 else None
    if method == "lookup" and knots is None:
        raise ValueError(
            f"method='lookup' needs a calibrator whose prediction is a table look-up on one "
            f"score column (IVAP, nearest isotonic, quantized isotonic, histogram, BBQ); "
            f"{type(calibrator).__name__} is scored with method='udf'"
        )
    if knots is not None:
        return _transform_lookup(df, calibrator, knots, score_cols[0], names)
    return _transform_udf(df, calibrator, score_cols, names)


# The Spark ML pair calls fit and transform above, so it is imported last.
from ._spark_ml import SparkCalibrator, SparkCalibratorModel
