"""Binary reliability diagrams and ROC curves, and the drawing every reliability diagram shares."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from .._validation import validate_params
from ..metrics._binned import (
    BINNING_CONSTRAINTS,
    MIN_BIN_COUNT_CONSTRAINTS,
    CalibrationBins,
    _bins,
)
from ..metrics._checks import _check_inputs
from ..metrics._discrimination import _roc
from ..metrics._docstrings import fill
from ._figure import _axes, _named_predictions

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["MARKER_AREA", "reliability_diagram", "roc_curve"]

#: Marker areas (points squared) of the emptiest and the fullest non-empty bin.
MARKER_AREA = (6.0, 160.0)
PLOT_CONSTRAINTS = {**BINNING_CONSTRAINTS, **MIN_BIN_COUNT_CONSTRAINTS}


@fill
def reliability_diagram(
    y: ArrayLike,
    p: ArrayLike | Mapping[str, ArrayLike],
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    ax: Axes | None = None,
    label: str | None = None,
    show_counts: bool = True,
    min_bin_count: float | None = None,
    pos_label=None,
    sample_weight: ArrayLike | None = None,
) -> Axes:
    """Draw observed frequency against mean prediction per bin.

    One line per set of predictions, through the points ``(e_k, o_k)`` of the
    non-empty bins (mean prediction, fraction of positives), with the
    diagonal of perfect calibration.  These are the bins of
    :func:`venncal.metrics.ece`.  Each point is a disc whose area grows with
    the number of rows in its bin (from 6 to 160 square points, in proportion
    to the bin's share of the fullest bin of the figure), so a bin of one row
    does not look like a bin of hundreds; the bins that
    :func:`venncal.metrics.mce` leaves out with ``min_bin_count`` are drawn
    hollow.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels 0 and 1, or booleans (or any two labels with ``pos_label``).
    p : array-like of shape (n_samples,) or dict of str to array-like
        Predicted probabilities of the positive class; a dict
        ``{name: p}`` draws several calibrators on one figure.
    n_bins : int, default=10
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width or equal-count bins (see :func:`venncal.metrics.ece`).
    {plot_common}
    {plot_counts}
    {weights}

    Returns
    -------
    matplotlib.axes.Axes
        The axes of the diagram (the counts live on a twin axes).

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.plotting import reliability_diagram
    >>> p = np.linspace(0.005, 0.995, 500)
    >>> y = np.random.default_rng(0).random(500) < p  # p is calibrated, p**2 is not
    >>> ax = reliability_diagram(y, {"raw": p, "squared": p**2})  # doctest: +SKIP
    >>> [line.get_label() for line in ax.get_lines()]  # doctest: +SKIP
    ['perfectly calibrated', 'raw', 'squared']
    """
    validate_params("reliability_diagram", {"n_bins": n_bins, "strategy": strategy,
                                            "min_bin_count": min_bin_count}, PLOT_CONSTRAINTS)
    curves = {
        name: _bins(*_check_inputs(y, pk, pos_label, sample_weight), n_bins, strategy)
        for name, pk in _named_predictions(p, label).items()
    }
    return draw_reliability(
        _axes(ax), curves, show_counts=show_counts, min_bin_count=min_bin_count,
        weighted=sample_weight is not None,
        labels=("mean predicted probability", "observed frequency of the positive class"),
        title=f"Reliability diagram ({n_bins} {strategy} bins)",
    )


def draw_reliability(ax: Axes, curves: Mapping[str, CalibrationBins], *, show_counts: bool,
                     min_bin_count, weighted: bool, labels: tuple[str, str], title: str,
                     legend: bool = True) -> Axes:
    """Draw the reliability diagram of ``curves`` (name -> bins) on ``ax``: every diagram's drawing.

    The diagonal, a line and discs per curve (:func:`_bin_markers`), the
    bins' weights as steps on a twin axis when ``show_counts``; ``labels``
    are those of the x and y axes.
    """
    ax.plot([0, 1], [0, 1], ls="--", color="0.5", lw=1, label="perfectly calibrated")
    counts_ax = _counts_axes(ax) if show_counts else None
    heights, shares = _heights(curves)
    fullest = max(float(h.max()) for h in heights.values())
    for name, bins in curves.items():
        ne = bins.nonempty
        (line,) = ax.plot(bins.mean_pred[ne], bins.frac_pos[ne], lw=1.2, label=name)
        _bin_markers(ax, bins, heights[name], fullest, min_bin_count, line.get_color())
        if counts_ax is not None:  # each curve's bin counts, in its colour
            counts_ax.stairs(heights[name], bins.edges, color=line.get_color(), alpha=0.35)
            counts_ax.stairs(heights[name], bins.edges, color=line.get_color(), fill=True,
                             alpha=0.08)
    if any(bins.small(min_bin_count).any() for bins in curves.values()):
        ax.scatter([], [], s=MARKER_AREA[0] * 4, facecolors="none", edgecolors="0.3",
                   label=f"fewer than {min_bin_count:g} rows (not in the MCE)")
    if counts_ax is not None:
        what = "weight" if weighted else "count"
        _scale_counts(counts_ax, fullest, f"share of the {what}" if shares else what)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    # A square box (set_aspect(adjustable="box") is not allowed with a twin).
    ax.set_box_aspect(1)
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    what = "weight" if weighted else "rows"
    ax.set_title(f"{title}\ndisc area grows with the bin's {what}", fontsize=10)
    if legend:
        ax.legend(loc="upper left", frameon=False)
    return ax


def _heights(curves: Mapping[str, CalibrationBins]) -> tuple[dict[str, np.ndarray], bool]:
    """Each curve's bin weights, or their shares of its total weight, and whether shares.

    Shares where a weight, or three times the largest (the counts' axis), passes the
    largest double: weights of 1e308 would draw an infinite axis.
    """
    top = max(float(bins.weight.max()) for bins in curves.values())
    if math.isfinite(3.0 * top):
        return {name: bins.weight for name, bins in curves.items()}, False
    return {name: bins.share if bins.share is not None else bins.weight / bins.weight.sum()
            for name, bins in curves.items()}, True


def _bin_markers(ax: Axes, bins: CalibrationBins, heights: np.ndarray, fullest: float,
                 min_bin_count, color) -> None:
    """Discs at the bins' points, of area growing with the bin's weight (``heights``, a share
    where the weights pass the doubles' range); small bins hollow."""
    ne = bins.nonempty
    low, high = MARKER_AREA
    area = low + (high - low) * heights / fullest if fullest > 0 else np.full(ne.shape, low)
    small = bins.small(min_bin_count)
    for mask, face in ((ne & ~small, color), (small, "none")):
        if mask.any():
            ax.scatter(
                bins.mean_pred[mask], bins.frac_pos[mask], s=area[mask], facecolors=face,
                edgecolors=color, linewidths=1.0, alpha=0.85, zorder=3, label="_nolegend_",
            )


def _counts_axes(ax: Axes) -> Axes:
    """Return a twin y-axis at the right for the bin weights, drawn behind ``ax``."""
    counts_ax = ax.twinx()
    ax.set_zorder(counts_ax.get_zorder() + 1)
    ax.patch.set_visible(False)
    counts_ax.set_box_aspect(1)
    return counts_ax


def _scale_counts(counts_ax: Axes, top: float, what: str) -> None:
    # Keep the counts in the lower third, out of the way of the curves.
    counts_ax.set_ylim(0, 3 * top if top > 0 else 1)
    counts_ax.set_ylabel(what, color="0.4")
    counts_ax.tick_params(axis="y", colors="0.4")


@fill
def roc_curve(
    y: ArrayLike, p: ArrayLike | Mapping[str, ArrayLike], *, ax: Axes | None = None,
    label: str | None = None, pos_label=None, sample_weight: ArrayLike | None = None,
) -> Axes:
    """Draw the ROC curve, one step per distinct value of ``p``, with its AUC in the legend.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels 0 and 1, or booleans (or any two labels with ``pos_label``);
        both classes must occur.
    p : array-like of shape (n_samples,) or dict of str to array-like
        Predicted probabilities of the positive class; a dict ``{name: p}``
        draws one curve per entry.
    {plot_common}
    {weights}

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from venncal.plotting import roc_curve
    >>> ax = roc_curve([0, 0, 1, 1], {"model": [0.1, 0.4, 0.4, 0.8]})  # doctest: +SKIP
    >>> ax.get_lines()[1].get_label()  # doctest: +SKIP
    'model (AUC 0.875)'
    """
    curves = {
        name: _roc(*_check_inputs(y, pk, pos_label, sample_weight))
        for name, pk in _named_predictions(p, label).items()
    }
    ax = _axes(ax)
    ax.plot([0, 1], [0, 1], ls="--", color="0.5", lw=1, label="chance")
    for name, roc in curves.items():
        shown = f"AUC {roc.auc:.3f}" if name == "_nolegend_" else f"{name} (AUC {roc.auc:.3f})"
        ax.plot(roc.fpr, roc.tpr, label=shown)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title("ROC curve" if len(curves) == 1 else "ROC curves")
    # A frame: a curve below chance (AUC < 0.5) runs through the lower right.
    ax.legend(loc="lower right", framealpha=0.85)
    return ax
