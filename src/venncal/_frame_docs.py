"""The parameter descriptions that the engines' frame functions share, written once.

Used by :mod:`venncal.dask` and :mod:`venncal.spark`.

``summarize``, ``fit`` and ``transform`` take the same columns and options
on every engine, so their descriptions live here, in words that name no
engine, and :func:`fill` puts them into a docstring: a line that holds only
``{name}`` becomes the entry ``name`` of :data:`PARAMETERS`, indented as
that line.  The rest of each docstring (what the engine does, its own
options, its examples) stays in the function, where it is read.

Examples
--------
>>> def f(x):
...     '''Do something.
...
...     Parameters
...     ----------
...     {columns}
...     '''
>>> print(fill(f).__doc__.splitlines()[5])
        Columns of the scores (finite reals) and of the labels.
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["PARAMETERS", "fill"]

#: Shared numpydoc entries, by name (a parameter, or a group of them).
PARAMETERS = {
    "columns": """\
score_col, label_col : str
    Columns of the scores (finite reals) and of the labels.
weight_col : str, default=None
    Column of non-negative frequency weights; rows of weight 0 are dropped.
by : str, default=None
    A column of groups (folds, segments): one summary per value.
positive_label : default=None
    The positive label; without it the labels must be 0 and 1 (or booleans).""",
    "round_scores": """\
round_scores : int, default=None
    Round the scores to ``d = round_scores`` decimal places first (for
    ``d < 0``, to multiples of ``10**-d``), to bound the number of distinct
    scores.  Every engine rounds as ``numpy.round`` does, so that one
    setting gives one model: in float64, ``rint(x * p) / p`` for ``d >= 0``
    and ``rint(x / p) * p`` for ``d < 0``, where ``rint`` rounds half to
    even and ``p = 10**abs(d)`` is formed as numpy forms it (``1e0`` to
    ``1e8`` exactly, then ``1e9`` times 10 step by step: exact up to
    ``1e22``).  So ties go to the even neighbour (``0.125`` rounds to
    ``0.12``, and ``2.5`` to ``2.0`` with ``d = 0``), and as the product
    ``x * p`` is itself rounded, a score just below a tie may round up
    (``2.675``, stored as ``2.67499999...``, rounds to ``2.68``).  ``-0.0``
    counts as ``0.0``.  ``d`` lies in [-308, 308]; a score whose scaling
    overflows (``x * p`` beyond ``1.8e308``) would round to infinity, an
    error.""",
    "max_distinct": """\
max_distinct : int, default=10_000_000
    The most distinct scores (counted per label and group, 24 bytes each
    in the summary) brought to the driver (Spark's driver, Dask's client).""",
    "summary_returns": """\
Returns
-------
ScoreSummary, or dict of group -> ScoreSummary when ``by`` is given.

Raises
------
ValueError
    For NaN, infinite or null scores, NaN, infinite or negative weights,
    null or third labels, or more than ``max_distinct`` distinct scores.""",
    "fit_method": """\
method : str or calibrator, default="ivap"
    A registered method name (``"ivap"``, ``"cvap"``, ``"isotonic"``,
    ``"platt"``, ...) or an unfitted score-level calibrator.""",
    "fit_params": """\
by : str, default=None
    The fold column, for calibrators fitted per fold (``"cvap"``).
**params
    Parameters of the calibrator (``classes=[neg, pos]`` names the labels).

Returns
-------
The fitted calibrator; the labels are any two classes, as for its ``fit``.""",
    "transform_columns": """\
calibrator : fitted score-level calibrator
score_col : str or list of str
    The score column; for a cross Venn-Abers calibrator, one column per
    fold (in the order of ``folds_``) or one for all folds.
output_cols : str or sequence of str, default=("p", "p0", "p1")
    Names of the probability of ``classes_[1]`` and, for Venn-Abers
    calibrators, of the interval ``(p0, p1)``.""",
}

_SLOT = re.compile(r"^( *)\{(\w+)\}$", re.MULTILINE)


def fill(function):
    """Replace each line ``{name}`` of ``function``'s docstring by ``PARAMETERS[name]``.

    Returns ``function`` (a decorator).  An unknown name is a ``KeyError``
    at import.  Without docstrings (``python -OO``) nothing is done.
    """
    if function.__doc__:
        function.__doc__ = _SLOT.sub(
            lambda m: textwrap.indent(PARAMETERS[m.group(2)], m.group(1)), function.__doc__
        )
    return function
