"""Reliability diagrams and ROC curves (needs the optional matplotlib).

matplotlib is imported inside the functions, never at import time.  Every
figure of venncal comes from :func:`figure`: a :class:`matplotlib.figure.Figure`
on the non-interactive Agg canvas, built with the object API only, so
plotting works headless (CI, servers) and never selects a backend or touches
pyplot's global state (no ``matplotlib.use``, no figure manager; the caller
saves the figure with ``fig.savefig``).  Nothing here calls ``plt.show()``.
The bins are those of :func:`venncal.metrics.calibration_bins`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ._validation import validate_params
from .metrics._binned import (
    BINNING_CONSTRAINTS,
    MIN_BIN_COUNT_CONSTRAINTS,
    CalibrationBins,
    _bins,
)
from .metrics._checks import _check_inputs
from .metrics._discrimination import _roc

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["figure", "image_formats", "reliability_diagram", "roc_curve"]

#: Marker areas (points squared) of the emptiest and the fullest non-empty bin.
MARKER_AREA = (6.0, 160.0)


def _import_matplotlib():
    try:
        import matplotlib
    except ImportError:
        raise ImportError(
            'venncal.plotting needs matplotlib; install it with: pip install "venncal[plot]"'
        ) from None
    return matplotlib


def figure(figsize: tuple[float, float] = (5.5, 5.0), **kwargs) -> Figure:
    """Return a new figure on the Agg canvas: the one way venncal makes figures.

    Object API only: the figure is not registered with pyplot (so it needs
    no ``plt.close`` and is garbage-collected like any object) and no backend
    is selected, so it works headless and leaves the user's matplotlib
    configuration alone.  Save it with ``fig.savefig(path)``.

    Parameters
    ----------
    figsize : tuple of (float, float), default=(5.5, 5.0)
        Width and height in inches.
    **kwargs
        Passed to :class:`matplotlib.figure.Figure` (``layout`` defaults to
        ``"constrained"``).

    Examples
    --------
    >>> from venncal.plotting import figure
    >>> fig = figure()  # doctest: +SKIP
    >>> ax = fig.add_subplot()  # doctest: +SKIP
    >>> type(fig.canvas).__name__  # doctest: +SKIP
    'FigureCanvasAgg'
    """
    _import_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    kwargs.setdefault("layout", "constrained")
    fig = Figure(figsize=figsize, **kwargs)
    FigureCanvasAgg(fig)
    return fig


def image_formats() -> dict[str, str]:
    """Return the image formats ``Figure.savefig`` writes: file extension -> description.

    Those of the installed matplotlib (``png``, ``pdf``, ``svg``, ...), the
    formats of every venncal figure; the extension of the file chooses one.

    Examples
    --------
    >>> from venncal.plotting import image_formats
    >>> image_formats()["png"]  # doctest: +SKIP
    'Portable Network Graphics'
    """
    _import_matplotlib()
    from matplotlib.backend_bases import FigureCanvasBase

    return dict(FigureCanvasBase.get_supported_filetypes())


def _axes(ax: Axes | None) -> Axes:
    """Return ``ax``, or the axes of a new figure."""
    if ax is None:
        return figure().add_subplot()
    _import_matplotlib()
    return ax


def _named_predictions(p, label: str | None) -> dict[str, object]:
    if isinstance(p, Mapping):
        if label is not None:
            raise ValueError("label names a single p; a dict of predictions is named by its keys")
        if not p:
            raise ValueError("the dict of predictions is empty")
        return {str(k): v for k, v in p.items()}
    return {label if label is not None else "_nolegend_": p}


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
    ax : matplotlib Axes, default=None
        Where to draw; by default a new figure.
    label : str, default=None
        Legend entry for a single ``p`` (a dict uses its keys).
    show_counts : bool, default=True
        Also draw the number of observations per bin (the total weight with
        ``sample_weight``) as step outlines on a secondary y-axis at the right.
    min_bin_count : float >= 0, default=None
        Draw the bins holding fewer rows (less total weight) as hollow
        markers: those :func:`venncal.metrics.mce` leaves out.
    pos_label : label, default=None
        The positive class, for labels other than 0/1 and booleans.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.

    Returns
    -------
    matplotlib.axes.Axes
        The axes of the diagram (the counts live on a twin axes).

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.plotting import reliability_diagram
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(500)
    >>> y = rng.random(500) < p
    >>> ax = reliability_diagram(y, {"raw": p, "squared": p**2})  # doctest: +SKIP
    >>> [line.get_label() for line in ax.get_lines()]  # doctest: +SKIP
    ['perfectly calibrated', 'raw', 'squared']
    """
    validate_params(
        "reliability_diagram", {"n_bins": n_bins, "strategy": strategy}, BINNING_CONSTRAINTS
    )
    validate_params(
        "reliability_diagram", {"min_bin_count": min_bin_count}, MIN_BIN_COUNT_CONSTRAINTS
    )
    curves = {
        name: _bins(*_check_inputs(y, pk, pos_label, sample_weight), n_bins, strategy)
        for name, pk in _named_predictions(p, label).items()
    }
    ax = _axes(ax)
    ax.plot([0, 1], [0, 1], ls="--", color="0.5", lw=1, label="perfectly calibrated")
    counts_ax = _counts_axes(ax) if show_counts else None
    fullest = max(float(bins.weight.max()) for bins in curves.values())
    for name, bins in curves.items():
        ne = bins.nonempty
        (line,) = ax.plot(bins.mean_pred[ne], bins.frac_pos[ne], lw=1.2, label=name)
        _bin_markers(ax, bins, fullest, min_bin_count, line.get_color())
        if counts_ax is not None:  # each curve's bin counts, in its colour
            counts_ax.stairs(bins.weight, bins.edges, color=line.get_color(), alpha=0.35)
            counts_ax.stairs(bins.weight, bins.edges, color=line.get_color(), fill=True, alpha=0.08)
    if any(bins.small(min_bin_count).any() for bins in curves.values()):
        ax.scatter([], [], s=MARKER_AREA[0] * 4, facecolors="none", edgecolors="0.3",
                   label=f"fewer than {min_bin_count:g} rows (not in the MCE)")
    if counts_ax is not None:
        _scale_counts(counts_ax, curves, "count" if sample_weight is None else "weight")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    # A square box (set_aspect(adjustable="box") is not allowed with a twin).
    ax.set_box_aspect(1)
    ax.set_xlabel("mean predicted probability")
    ax.set_ylabel("observed frequency of the positive class")
    what = "rows" if sample_weight is None else "weight"
    ax.set_title(f"Reliability diagram ({n_bins} {strategy} bins)\ndisc area grows with the "
                 f"bin's {what}", fontsize=10)
    ax.legend(loc="upper left", frameon=False)
    return ax


def _bin_markers(ax: Axes, bins: CalibrationBins, fullest: float, min_bin_count, color) -> None:
    """Discs at the bins' points, of area growing with the bin's weight; small bins hollow."""
    ne = bins.nonempty
    low, high = MARKER_AREA
    area = low + (high - low) * bins.weight / fullest if fullest > 0 else np.full(ne.shape, low)
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


def _scale_counts(counts_ax: Axes, curves: Mapping[str, CalibrationBins], what: str) -> None:
    top = max(float(bins.weight.max()) for bins in curves.values())
    # Keep the counts in the lower third, out of the way of the curves.
    counts_ax.set_ylim(0, 3 * top if top > 0 else 1)
    counts_ax.set_ylabel(what, color="0.4")
    counts_ax.tick_params(axis="y", colors="0.4")


def roc_curve(
    y: ArrayLike,
    p: ArrayLike | Mapping[str, ArrayLike],
    *,
    ax: Axes | None = None,
    label: str | None = None,
    pos_label=None,
    sample_weight: ArrayLike | None = None,
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
    ax : matplotlib Axes, default=None
        Where to draw; by default a new figure.
    label : str, default=None
        Legend name for a single ``p`` (a dict uses its keys).
    pos_label : label, default=None
        The positive class, for labels other than 0/1 and booleans.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.

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
