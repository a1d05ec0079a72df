"""The numpydoc entries that many docstrings share, written once.

The engines' frame functions (``summarize``, ``fit`` and ``transform`` of
:mod:`venncal.dask` and :mod:`venncal.spark`) take the same columns and
options, every score-level calibrator takes the same ``classes``
parameter and has the same ``classes_`` attribute, and every metric takes
``y``, ``p`` and ``pos_label`` (the binned ones ``n_bins`` and ``strategy``); their descriptions live
here, in words that name no engine or method, and :func:`fill` puts them
into a docstring (of a function or a class): a line that holds only
``{name}`` becomes the entry ``name`` of :data:`PARAMETERS`, indented as
that line.  The rest of each docstring (what the object does, its own
options, its examples) stays with the object, where it is read.

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
    "classes": """\
classes : array-like of shape (2,), default=None
    The two labels, ``[negative, positive]``, in that order.  By default
    they are the observed labels sorted (the larger is the positive
    class); needed when the calibration labels show a single class
    (unless they are booleans).""",
    "y_p": """\
y : array-like of shape (n_samples,)
    Labels 0 and 1, or booleans (or any two labels with ``pos_label``).
p : array-like of shape (n_samples,)
    Predicted probabilities of the positive class, in [0, 1].""",
    "pos_label": """\
pos_label : label, default=None
    The positive class, for labels other than 0/1 and booleans.""",
    "binning": """\
n_bins : int, default=10
    Number of bins ``K``.
strategy : {"uniform", "quantile"}, default="uniform"
    "uniform": bins ``[k/K, (k+1)/K)`` for ``k < K - 1`` and the last bin
    ``[(K-1)/K, 1]``, so ``p`` on an edge goes to the bin above it and
    ``p = 1`` to the last bin.  "quantile": ``K`` bins of (nearly) equal
    counts (equal total weight with ``sample_weight``) by sorted ``p``;
    equal values of ``p`` always share a bin: all ``p == v`` go to bin
    ``ceil(K * m(p <= v) / m) - 1``, where ``m`` counts observations (sums
    weights), so a run of ties that straddles a split goes wholly to the
    upper bin (as a value on a uniform edge does) and heavy ties give
    fewer, larger bins.  Integer weights bin like repeated rows.""",
    "classes_": """\
classes_ : ndarray of shape (2,)
    The labels, ``[negative, positive]`` (``classes`` when given, else
    sorted); probabilities are those of ``classes_[1]``.""",
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
    """Replace each line ``{name}`` of the docstring of ``function`` (or a class) by ``PARAMETERS[name]``.

    Returns ``function`` (a decorator).  An unknown name is a ``KeyError``
    at import.  Without docstrings (``python -OO``) nothing is done.
    """
    if function.__doc__:
        function.__doc__ = _SLOT.sub(
            lambda m: textwrap.indent(PARAMETERS[m.group(2)], m.group(1)), function.__doc__
        )
    return function
