"""Private numba kernels: pure functions on contiguous float64 arrays.

Every kernel has a slow, literal twin in ``tests/reference/naive.py``.
"""

from .ivap import ivap_lookup, ivap_tables
from .pava import pava_blocks, pava_fit
from .summary import (
    merge_summaries,
    split_by_label,
    summarize_by_order,
    summarize_sorted_classes,
)

__all__ = [
    "ivap_lookup",
    "ivap_tables",
    "merge_summaries",
    "pava_blocks",
    "pava_fit",
    "split_by_label",
    "summarize_by_order",
    "summarize_sorted_classes",
]
