"""Reliability diagrams and ROC curves (needs the optional matplotlib).

matplotlib is imported inside the functions, never at import time.  Every
figure of venncal comes from :func:`figure`: a :class:`matplotlib.figure.Figure`
on the non-interactive Agg canvas, built with the object API only, so
plotting works headless (CI, servers) and never selects a backend or touches
pyplot's global state (no ``matplotlib.use``, no figure manager; the caller
saves the figure with ``fig.savefig``).  Nothing here calls ``plt.show()``.
The bins are those of :func:`venncal.metrics.calibration_bins`.
"""

from ._figure import figure, image_formats
from ._multiclass import classwise_reliability_diagram, top_label_reliability_diagram
from ._reliability import MARKER_AREA, reliability_diagram, roc_curve

__all__ = [
    "MARKER_AREA",
    "classwise_reliability_diagram",
    "figure",
    "image_formats",
    "reliability_diagram",
    "roc_curve",
    "top_label_reliability_diagram",
]
