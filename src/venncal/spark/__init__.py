"""Calibrate Spark data frames: summarise on the executors, fit on the driver, score in place.

The rows are reduced on the executors: each partition to exact score
summaries per label (and group, with ``by``), merged exactly per label and
group (ties spread over partitions are pooled by the merge, and no range
partitioning can skew), and only the merged summaries come to the driver,
which fits any registered calibrator by ``fit_summary``.  Scoring is a look-up on the JVM in the exact table of
the model's outputs (for the step calibrators: IVAP, histogram, ...) or a
pandas UDF closing over the small fitted model.  Only DataFrame operations
and closures are used (no RDDs, no broadcast variables), so everything
also works under Spark Connect (tested with a local Connect server).  With any
weights (or none) the model is the one fitted on all the rows in one
array, bit for bit, whatever the partitioning: tied weights add up as
:class:`~venncal.ScoreSummary` adds them (2**53 + 1 + 1 is 2**53 + 2).  ``round_scores=d`` rounds
as ``numpy.round`` does, as on every engine.

:class:`SparkCalibrator` and :class:`SparkCalibratorModel` are the same as
a Spark ML ``Estimator``/``Model`` pair, for a ``pyspark.ml.Pipeline``;
the model saves the calibrator in venncal's JSON model format.

Needs the ``spark`` extra (``pip install "venncal[spark]"``) and Java 17+.
The package imports pyspark on first use of one of its names (an
``ImportError`` naming the extra if it is missing), so that its numpy-only
part, the look-up table (:mod:`venncal.spark._lookup`), needs no pyspark.

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

from __future__ import annotations

import importlib

__all__ = ["SparkCalibrator", "SparkCalibratorModel", "fit", "summarize", "transform"]

#: Where each public name is defined (modules of this package that import pyspark).
_HOMES = {
    "SparkCalibrator": "_ml",
    "SparkCalibratorModel": "_ml",
    "fit": "_fit",
    "summarize": "_fit",
    "transform": "_transform",
    "TRANSFORM_METHODS": "_transform",
}
#: The libraries of the ``spark`` extra.
_EXTRA = ("pyspark", "pandas", "pyarrow")


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        module = importlib.import_module(f"{__name__}.{home}")
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] not in _EXTRA:
            raise
        raise ImportError(
            'venncal.spark needs pyspark>=4, pandas and pyarrow: pip install "venncal[spark]"'
        ) from exc
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
