"""Score and weight columns a float64 cannot hold exactly, refused on Spark as locally.

The local fit refuses integers past 2**53 and texts such as ``"9007199254740993"``
or ``"1e-400"`` (:func:`venncal._input_scales.inexact`): rounded to a double they
would tie with a neighbour.  A Spark ``long``, ``decimal`` or ``string`` column was
cast to ``double`` in SQL, silently (attack 52 F1, F6).
:func:`check_exact` refuses such a column before a fit (one more pass over the
frame, only for those types); :func:`exact_double` is the column as a double that
raises the same error lazily, where a transform reads it.  ``double``,
``float`` and the narrower integer types are held exactly and pass unchanged.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import numpy as np
import pandas as pd
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

__all__ = ["check_exact", "exact_double"]

_AFTER = ("which a float64 cannot hold exactly (past 2**53 a value rounds to a neighbour, "
          "a non-zero number below 5e-324 reads as 0: different scores would tie), or a text "
          "that is no decimal number as venncal reads numbers (\"1.5d\", \"0x1p3\"); venncal "
          "computes in float64: subtract an offset or rescale the column first")


@functools.cache
def _inexact_udf():
    """A pandas UDF ``(value, its double) -> bool``: the local rule, element by element."""
    from .._input_scales import _reads, inexact_codes

    @F.pandas_udf("boolean")
    def inexact(values: pd.Series, doubles: pd.Series) -> pd.Series:
        out = doubles.to_numpy(dtype=np.float64, na_value=np.nan)
        objects = values.to_numpy(dtype=object)
        bad = inexact_codes(objects, out) != 0
        # texts Spark reads as numbers and Python as none ("1.5d", "0x1p3": attack 55 F4)
        text = np.fromiter((isinstance(v, str) for v in objects), bool, objects.shape[0])
        for i in np.flatnonzero(text & ~np.isnan(out) & ~bad):
            bad[i] = not _reads(objects[i])
        return pd.Series(bad)

    return inexact


def _inexact(df: DataFrame, col: str) -> Column | None:
    """A boolean column: the value is not a double exactly; None for types that always are.

    ``long`` is compared in SQL; ``string`` and ``decimal`` (any scale) by the local rule,
    :func:`venncal._input_scales.inexact`, in a pandas UDF (attack 55 F2: whole texts of
    more than 38 digits, and attack 54 F5: decimals of scale above 0, were not checked).
    """
    kind = df.select(col).schema[0].dataType
    c = F.col(col)
    if isinstance(kind, T.LongType):
        return c.cast("double").cast("decimal(38,0)") != c.cast("decimal(38,0)")
    if isinstance(kind, (T.StringType, T.DecimalType)):
        return _inexact_udf()(c, c.cast("double"))
    return None


def check_exact(df: DataFrame, columns: Mapping[str, str | None]) -> None:
    """Raise ``ValueError`` if a column (``{role: column}``, None skipped) holds a value that
    a float64 cannot hold exactly, naming it.  One pass over ``df`` for every such column."""
    checked = {role: (col, bad) for role, col in columns.items()
               if col is not None and col in df.columns  # (a missing column: the caller's check)
               and (bad := _inexact(df, col)) is not None}
    if not checked:
        return
    # a value each column cannot hold (or null), in one pass; the roles named in their order
    row = df.agg(*[F.first(F.when(bad, F.col(col).cast("string")), ignorenulls=True)
                   for col, bad in checked.values()]).collect()[0]
    for (role, (col, _)), value in zip(checked.items(), row, strict=True):
        if value is not None:
            raise ValueError(f"{role}: column {col!r} holds {value}, {_AFTER}")


def exact_double(df: DataFrame, col: str, role: str) -> Column:
    """Column ``col`` as a double, raising (when evaluated) where it is not one exactly."""
    bad = _inexact(df, col)
    as_double = F.col(col).cast("double")
    if bad is None:
        return as_double
    error = F.raise_error(F.concat(F.lit(f"{role}: column {col!r} holds "),
                                   F.col(col).cast("string"), F.lit(f", {_AFTER}")))
    return F.when(F.coalesce(bad, F.lit(False)), error).otherwise(as_double)
