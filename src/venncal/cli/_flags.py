"""The one table from the library's parameter names to the command line's options.

The library raises :class:`~venncal.tables.ParameterError` (and its
:class:`~venncal.tables.TableError`) with messages built from parts that
name its parameters (``max_distinct=10``); the command line prints them with
its own spelling of each (``--max-distinct 10``), from :data:`FLAGS` only.
"""

from __future__ import annotations

__all__ = ["FLAGS", "message"]

#: Library parameter -> how the command line names it (``{}`` takes a value given with it).
FLAGS = {
    "score_col": "--score-col",
    "score_cols": "--score-cols",
    "prob_cols": "--prob-cols",
    "label_col": "--label-col",
    "weight_col": "--weight-col",
    "by": "--fold-col",
    "prob_col": "--prob-col",
    "p0_col": "--p0-col",
    "p1_col": "--p1-col",
    "positive_label": "--positive-label",
    "classes": "--param classes={}",
    "round_scores": "--round-scores",
    "max_distinct": "--max-distinct",
    "blocksize": "--blocksize",
    "nan_scores": "--nan-scores",
    "output_cols": "--prefix",
    "method": "--method",
    "multiclass": "--multiclass",
    "merge": "--merge",
    "sep": "--sep",
    "clip": "--clip",
    "data": "DATA",
    "output": "-o",
    "overwrite": "--force",
    "client": "--scheduler",
    "engine": "--engine dask",
}


def message(exc: Exception, **spelling: str | None) -> str:
    """Return the message of a library error with the command line's names of its parameters.

    ``spelling`` overrides :data:`FLAGS` for this command (e.g. the spelling
    of ``positive_label`` that was typed).

    Examples
    --------
    >>> from venncal.tables import Param, ParameterError
    >>> message(ParameterError("raise ", Param("max_distinct", "10")))
    'raise --max-distinct 10'
    """
    spelled = getattr(exc, "spelled", None)
    if spelled is None:
        return str(exc)
    return spelled({**FLAGS, **{k: v for k, v in spelling.items() if v is not None}})
