"""Making figures: :func:`figure`, on the Agg canvas, with matplotlib imported late."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["figure", "image_formats"]


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
