"""Calibrate Dask data frames and tables given as files: summarise, fit on the client, score.

Each partition is reduced to exact score summaries (one per label and,
with ``by``, per group), the partial summaries are merged in a tree of
fan-in ``split_every`` on the workers, and the client fits any registered
calibrator on the merged :class:`~venncal.ScoreSummary` (``fit_summary``).
Scoring is a ``map_partitions`` of the small fitted model, sent to the
workers once.  With integer weights (or none) the model is the one fitted
on all the rows in one array, bit for bit, whatever the partitioning.

:func:`fit`, :func:`summarize` and :func:`transform` take data frames;
:func:`fit_files` and :func:`transform_files` take tables given as files (a
file, a directory or a glob of CSV or Parquet files), read as
:mod:`venncal.tables` reads them: what ``venncal fit`` and
``venncal predict`` do with ``--engine dask``.

Needs the ``dask`` extra: ``pip install "venncal[dask]"``.

Examples
--------
>>> import numpy as np, pandas as pd, dask.dataframe as dd
>>> import venncal.dask as vd
>>> rng = np.random.default_rng(0)
>>> scores = rng.normal(size=1000).round(2)
>>> labels = (rng.random(1000) < 1 / (1 + np.exp(-2 * scores))).astype(int)
>>> df = dd.from_pandas(pd.DataFrame({"score": scores, "y": labels}), npartitions=4)
>>> cal = vd.fit(df, "ivap", score_col="score", label_col="y")
>>> from venncal import VennAbersCalibrator
>>> same = VennAbersCalibrator().fit(scores, labels)
>>> bool((cal.predict_interval(scores) == same.predict_interval(scores)).all())
True
>>> out = vd.transform(df, cal, "score").compute()
>>> list(out.columns)
['score', 'y', 'p', 'p0', 'p1']
"""

try:
    import dask  # noqa: F401
    import dask.dataframe  # noqa: F401
    import pandas  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(
        'venncal.dask needs dask, distributed and pandas: pip install "venncal[dask]"'
    ) from exc

from ._fit_files import fit_files
from ._frames import fit, summarize, transform
from ._transform_files import transform_files

__all__ = ["fit", "fit_files", "summarize", "transform", "transform_files"]
