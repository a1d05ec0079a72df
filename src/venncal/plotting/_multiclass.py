"""Reliability diagrams of probabilities over ``K`` classes: top-label, and one per class.

Both draw exactly the bins of the multiclass metrics
(:func:`venncal.metrics.top_label_calibration_bins`, and per class the bins
of :func:`venncal.metrics.classwise_ece`) with the drawing of the binary
diagram (:func:`._reliability.draw_reliability`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from .._validation import validate_params
from ..metrics._checks import _check_multiclass
from ..metrics._docstrings import fill
from ..metrics._multiclass import _CONSTRAINTS, _classwise_bins, _top_label_bins
from ._figure import _axes, _named_predictions, figure
from ._reliability import draw_reliability

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["classwise_reliability_diagram", "top_label_reliability_diagram"]


def _binned(owner, y, proba, classes, sample_weight, label, n_bins, strategy, min_bin_count, how):
    """``(curves, classes_)``: name -> ``how(idx, proba, w, n_bins, strategy)``, and the labels."""
    validate_params(owner, {"n_bins": n_bins, "strategy": strategy,
                            "min_bin_count": min_bin_count}, _CONSTRAINTS)
    out, names = {}, None
    for name, pk in _named_predictions(proba, label).items():
        names, idx, pk, w = _check_multiclass(y, pk, classes, sample_weight)
        out[name] = how(idx, pk, w, n_bins, strategy)
    return out, names.tolist()


@fill
def top_label_reliability_diagram(
    y: ArrayLike, proba: ArrayLike | Mapping[str, ArrayLike], *, n_bins: int = 10,
    strategy: str = "uniform", ax: Axes | None = None, label: str | None = None,
    show_counts: bool = True, min_bin_count: float | None = None,
    classes: ArrayLike | None = None, sample_weight: ArrayLike | None = None,
) -> Axes:
    """Draw accuracy against mean confidence per bin of the largest probability ``max_k p_k``.

    The reliability diagram of Guo, Pleiss, Sun & Weinberger 2017 (figure
    1): one line per set of predictions through the non-empty bins' points
    (mean confidence, fraction of rows whose predicted class is the true
    one), with the diagonal, drawn as :func:`reliability_diagram` draws its
    bins (disc areas grow with the bins' rows, bin counts on a twin axis).
    These are the bins of :func:`venncal.metrics.top_label_ece`.

    Parameters
    ----------
    {y_proba}
        A dict ``{name: proba}`` draws several calibrators on one figure.
    {mc_binning}
    {plot_common}
    {plot_counts}
    {classes_weights}

    Returns
    -------
    matplotlib.axes.Axes
        Where the top-label diagram is; its bin counts are on a twin of it.

    Examples
    --------
    >>> from venncal.plotting import top_label_reliability_diagram
    >>> rows = [[0.7, 0.2, 0.1], [0.1, 0.6, 0.3], [0.2, 0.2, 0.6], [0.5, 0.4, 0.1]]
    >>> ax = top_label_reliability_diagram([0, 1, 1, 0] * 50, {"model": rows * 50})  # doctest: +SKIP
    >>> [line.get_label() for line in ax.get_lines()]  # doctest: +SKIP
    ['perfectly calibrated', 'model']
    """
    curves, _ = _binned("top_label_reliability_diagram", y, proba, classes, sample_weight, label,
                        n_bins, strategy, min_bin_count, _top_label_bins)
    return draw_reliability(
        _axes(ax), curves, show_counts=show_counts, min_bin_count=min_bin_count,
        weighted=sample_weight is not None,
        labels=("mean confidence (largest probability)", "accuracy (predicted class is true)"),
        title=f"Top-label reliability diagram ({n_bins} {strategy} bins)",
    )


@fill
def classwise_reliability_diagram(
    y: ArrayLike, proba: ArrayLike | Mapping[str, ArrayLike], *, n_bins: int = 10,
    strategy: str = "uniform", fig: Figure | None = None, ncols: int | None = None,
    label: str | None = None, show_counts: bool = True, min_bin_count: float | None = None,
    classes: ArrayLike | None = None, sample_weight: ArrayLike | None = None,
) -> np.ndarray:
    """Draw one reliability diagram per class: class ``k`` against the rest, on its own axes.

    Axes ``k`` is the binary :func:`reliability_diagram` of
    ``y == classes[k]`` against ``proba[:, k]`` (the bins of
    :func:`venncal.metrics.classwise_ece`), titled with the class; the axes
    form a grid of ``ncols`` columns, in the order of ``classes``.  One axes
    per class rather than ``K`` curves on one: each class's curve keeps its
    own disc sizes and bin counts, and the diagrams stay readable for ten
    classes or more.  The legend is drawn on the first axes only.

    Parameters
    ----------
    {y_proba}
        A dict ``{name: proba}`` draws several calibrators on every axes.
    {mc_binning}
    fig : matplotlib Figure, default=None
        Where to draw (its grid is added to it); by default a new figure of
        :func:`figure`, sized to the grid.
    ncols : int, default=None
        Columns of the grid; by default ``min(K, 3)``.
    label : str, default=None
        Legend entry for a single ``proba`` (a dict uses its keys).
    {plot_counts}
    {classes_weights}

    Returns
    -------
    numpy.ndarray of matplotlib.axes.Axes, shape (K,)
        The diagram of each class, in the order of ``classes``; the figure is
        ``axes[0].figure``.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.plotting import classwise_reliability_diagram
    >>> y = np.random.default_rng(0).choice(["cat", "dog", "emu"], size=300)
    >>> proba = np.where(y[:, None] == ["cat", "dog", "emu"], 0.6, 0.2)  # sure of the truth
    >>> axes = classwise_reliability_diagram(y, proba)  # doctest: +SKIP
    >>> [ax.get_title().splitlines()[0] for ax in axes]  # doctest: +SKIP
    ["class 'cat' against the rest", "class 'dog' against the rest", "class 'emu' against the rest"]
    """
    if ncols is not None and not (isinstance(ncols, int) and ncols >= 1):
        raise ValueError(f"classwise_reliability_diagram: ncols must be an integer >= 1; "
                         f"got {ncols!r}")
    per_name, names = _binned("classwise_reliability_diagram", y, proba, classes, sample_weight,
                              label, n_bins, strategy, min_bin_count, _classwise_bins)
    first = next(iter(per_name.values()))
    cols = min(len(first), 3) if ncols is None else ncols
    rows = math.ceil(len(first) / cols)
    if fig is None:
        fig = figure(figsize=(3.6 * cols, 3.6 * rows))
    axes = np.empty(len(first), dtype=object)
    for k, name in enumerate(names):
        axes[k] = draw_reliability(
            fig.add_subplot(rows, cols, k + 1),
            {curve: per_class[k] for curve, per_class in per_name.items()},
            show_counts=show_counts, min_bin_count=min_bin_count,
            weighted=sample_weight is not None, legend=k == 0,
            labels=("mean predicted probability", "observed frequency of the class"),
            title=f"class {name!r} against the rest",
        )
    fig.suptitle(f"Class-wise reliability diagrams ({n_bins} {strategy} bins)")
    return axes

