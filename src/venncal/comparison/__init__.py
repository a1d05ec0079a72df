"""Which calibrator on my data? Cross-validate every applicable one: :func:`compare`.

The candidates are one table (:data:`CANDIDATES`), the metrics another
(:data:`METRICS`); a new calibrator, chain or diagnostic joins the comparison
with one entry.  See docs/cli.md (``venncal compare``) for a run on real data.
"""

from ._candidates import CANDIDATES, Candidate
from ._files import compare_file
from ._metrics import METRICS, Metric
from ._ranking import (DEFAULTS, NOISE_SE, SMALL_DEFAULTS, SMALL_ROWS, SMALL_ROWS_PER_PARAMETER,
                       SWITCH_SE, Recommendation,
                       defaults_for, recommend)
from ._result import Comparison
from ._run import compare

__all__ = [
    "CANDIDATES", "DEFAULTS", "METRICS", "NOISE_SE", "SMALL_DEFAULTS", "SMALL_ROWS",
    "SMALL_ROWS_PER_PARAMETER", "SWITCH_SE",
    "Candidate", "Comparison", "Metric", "Recommendation", "compare", "compare_file",
    "defaults_for", "recommend",
]
