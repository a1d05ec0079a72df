"""Reliability diagrams and ROC curves (needs the optional matplotlib).

matplotlib is imported inside the functions, never at import time.  When no
``ax`` is given a new figure comes from ``pyplot``; if no backend has been
chosen yet and no display is available, the non-interactive Agg backend is
selected first, so plotting works headless (CI, servers).  Nothing here calls
``plt.show()``.  The bins are those of :func:`venncal.metrics.ece`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from .metrics._binned import _calibration_bins, _check_binning
from .metrics._checks import _check_inputs
from .metrics._discrimination import _roc_points

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["reliability_diagram", "roc_curve"]


def _import_matplotlib():
    try:
        import matplotlib
    except ImportError:
        raise ImportError(
            'venncal.plotting needs matplotlib; install it with: pip install "venncal[plot]"'
        ) from None
    return matplotlib


def _headless() -> bool:
    if sys.platform in ("darwin", "win32"):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _new_axes() -> Axes:
    mpl = _import_matplotlib()
    if "matplotlib.pyplot" not in sys.modules and _headless():
        try:
            chosen = mpl.get_backend(auto_select=False)
        except TypeError:  # matplotlib < 3.10 cannot ask; it falls back to Agg itself
            chosen = "unknown"
        if chosen is None:
            mpl.use("Agg")
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(5.5, 5.0), layout="constrained")
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
    pos_label=None,
    sample_weight: ArrayLike | None = None,
) -> Axes:
    """Draw observed frequency against mean prediction per bin.

    One line per set of predictions, through the points ``(e_k, o_k)`` of the
    non-empty bins (mean prediction, fraction of positives), with the
    diagonal of perfect calibration.  These are the bins of
    :func:`venncal.metrics.ece`.

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
    _check_binning(n_bins, strategy)
    curves = {
        name: _calibration_bins(
            *_check_inputs(y, pk, pos_label, sample_weight), n_bins=n_bins, strategy=strategy
        )
        for name, pk in _named_predictions(p, label).items()
    }
    if ax is None:
        ax = _new_axes()
    else:
        _import_matplotlib()
    ax.plot([0, 1], [0, 1], ls="--", color="0.5", lw=1, label="perfectly calibrated")
    counts_ax = None
    if show_counts:
        counts_ax = ax.twinx()
        # Draw the counts behind the curves.
        ax.set_zorder(counts_ax.get_zorder() + 1)
        ax.patch.set_visible(False)
    top = 0.0
    for name, bins in curves.items():
        ne = bins.nonempty
        (line,) = ax.plot(bins.mean_pred[ne], bins.frac_pos[ne], marker="o", ms=4, label=name)
        if counts_ax is not None:
            counts_ax.stairs(bins.weight, bins.edges, color=line.get_color(), alpha=0.35)
            counts_ax.stairs(bins.weight, bins.edges, color=line.get_color(), fill=True, alpha=0.08)
            top = max(top, float(bins.weight.max()))
    if counts_ax is not None:
        # Keep the counts in the lower third, out of the way of the curves.
        counts_ax.set_ylim(0, 3 * top if top > 0 else 1)
        counts_ax.set_ylabel("count" if sample_weight is None else "weight", color="0.4")
        counts_ax.tick_params(axis="y", colors="0.4")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    # A square box (set_aspect(adjustable="box") is not allowed with a twin).
    ax.set_box_aspect(1)
    if counts_ax is not None:
        counts_ax.set_box_aspect(1)
    ax.set_xlabel("mean predicted probability")
    ax.set_ylabel("observed frequency of the positive class")
    ax.set_title(f"Reliability diagram ({n_bins} {strategy} bins)")
    ax.legend(loc="upper left", frameon=False)
    return ax


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
    curves = {}
    for name, pk in _named_predictions(p, label).items():
        y01, pv, w = _check_inputs(y, pk, pos_label, sample_weight)
        fpr, tpr = _roc_points(y01, pv, w)
        # Trapezoids over the grouped points: the AUC with ties counted 1/2.
        auc = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
        curves[name] = (fpr, tpr, auc)
    if ax is None:
        ax = _new_axes()
    else:
        _import_matplotlib()
    ax.plot([0, 1], [0, 1], ls="--", color="0.5", lw=1, label="chance")
    for name, (fpr, tpr, auc) in curves.items():
        shown = f"AUC {auc:.3f}" if name == "_nolegend_" else f"{name} (AUC {auc:.3f})"
        ax.plot(fpr, tpr, label=shown)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title("ROC curve")
    ax.legend(loc="lower right", frameon=False)
    return ax
