"""The numpydoc entries the metrics and plots share, written once.

:func:`fill` replaces a docstring line that holds only ``{name}``, for a
``name`` of :data:`ENTRIES`, by that entry (indented as the line), then
hands the docstring to :func:`venncal._docs.fill` for the package-wide
entries (``{y_p}``, ``{binning}``, ``{pos_label}``).
"""

from __future__ import annotations

import re
import textwrap

from .._docs import fill as _fill_shared

__all__ = ["ENTRIES", "fill"]

#: Entries of the metrics and plots, by name.
ENTRIES = {
    "weights": """\
pos_label : label, default=None
    The positive class, for labels other than 0/1 and booleans.
sample_weight : array-like of shape (n_samples,), default=None
    Non-negative frequency weights; the metric is then a weighted mean (a
    ratio of weighted sums), the same for any common factor of the weights.""",
    "y_proba": """\
y : array-like of shape (n_samples,)
    True labels, any ``K >= 2`` classes (numbers, booleans or text).
proba : array-like of shape (n_samples, K)
    Predicted probabilities, column ``k`` that of ``classes[k]``: finite,
    in [0, 1], each row summing to 1 within ``PROBA_SUM_TOL`` (1e-6).""",
    "classes_weights": """\
classes : array-like of shape (K,), default=None
    The labels of the columns of ``proba``, in order.  By default the
    distinct labels of ``y`` sorted (as scikit-learn's ``LabelBinarizer``),
    which must then number ``K``; a label of ``y`` outside ``classes`` is an
    error.
sample_weight : array-like of shape (n_samples,), default=None
    Non-negative frequency weights; the metric is then a weighted mean (a
    ratio of weighted sums), the same for any common factor of the weights.""",
    "mc_binning": """\
n_bins : int, default=10
    Number of bins ``B``.
strategy : {"uniform", "quantile"}, default="uniform"
    The binning of :func:`ece`: "uniform" bins ``[b/B, (b+1)/B)`` (the
    last one closed), "quantile" bins of (nearly) equal weight that never
    split equal values.""",
    "plot_common": """\
ax : matplotlib Axes, default=None
    Where to draw; by default a new figure.
label : str, default=None
    Legend entry for a single set of predictions (a dict uses its keys).""",
    "plot_counts": """\
show_counts : bool, default=True
    Also draw the number of observations per bin (the total weight with
    ``sample_weight``) as step outlines on a secondary y-axis at the right;
    each bin's share of the weight where the weights sum past the largest
    double.
min_bin_count : float >= 0, default=None
    Draw the bins holding fewer rows (less total weight) as hollow
    markers: those :func:`venncal.metrics.mce` leaves out.""",
}

ENTRIES["mc_binned"] = "\n".join(ENTRIES[k] for k in ("y_proba", "mc_binning", "classes_weights"))

_SLOT = re.compile(r"^( *)\{(" + "|".join(ENTRIES) + r")\}$", re.MULTILINE)


def fill(function):
    """Fill the docstring's slots ``{name}`` from :data:`ENTRIES`, then the shared ones.

    Returns ``function`` (a decorator).
    """
    if function.__doc__:
        function.__doc__ = _SLOT.sub(
            lambda m: textwrap.indent(ENTRIES[m.group(2)], m.group(1)), function.__doc__
        )
    return _fill_shared(function)
