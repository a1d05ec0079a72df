"""Private numba kernels: pure functions on contiguous float64 arrays.

Every kernel has a slow, literal twin in ``tests/reference/naive.py``.
"""

from .ivap import (
    exact_ivap_tables,
    exact_ivap_tables_full,
    ivap_lookup,
    ivap_lookup_full,
    ivap_tables,
    ivap_tables_full,
)
from .multiclass import ivap_lookup_columns, ivap_proba_columns
from .pava import pava_blocks, pava_fit
from .summary import (
    class_totals,
    merge_summaries,
    merge_summaries_exact,
    scaled_sum,
    split_by_label,
    summarize_by_order,
    summarize_by_order_exact,
    summarize_sorted_classes,
)

__all__ = [
    "class_totals",
    "exact_ivap_tables",
    "exact_ivap_tables_full",
    "ivap_lookup",
    "ivap_lookup_columns",
    "ivap_lookup_full",
    "ivap_proba_columns",
    "ivap_tables",
    "ivap_tables_full",
    "merge_summaries",
    "merge_summaries_exact",
    "pava_blocks",
    "pava_fit",
    "scaled_sum",
    "split_by_label",
    "summarize_by_order",
    "summarize_by_order_exact",
    "summarize_sorted_classes",
]
