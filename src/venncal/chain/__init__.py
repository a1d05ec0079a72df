"""Two calibrators in a row: Venn–Abers on top of a parametric first stage.

See docs/parametric.md, "Venn–Abers on top", for what the chain keeps of the
Venn–Abers guarantee under each way of fitting it.
"""

from ._calibrator import ChainedCalibrator

__all__ = ["ChainedCalibrator"]
