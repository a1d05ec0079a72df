"""The inputs every metric takes, and the (weighted) mean they average with.

Every metric is a function of ``(y, p)``: labels in {0, 1} (or booleans, or
any two labels with ``pos_label``) and the predicted probability of the
positive class.  The checks themselves are :mod:`venncal._validation`'s.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_binary_labels, check_probabilities, check_sample_weight


def _check_inputs(y, p, pos_label=None, sample_weight=None):
    """Return ``(y01, p, w)``: boolean labels, float64 ``p``, weights or None."""
    p = check_probabilities(p)
    y01 = check_binary_labels(y, p.shape[0], pos_label)
    return y01, p, check_sample_weight(sample_weight, p.shape[0])


def _mean(values: np.ndarray, w: np.ndarray | None) -> float:
    return float(np.mean(values) if w is None else np.average(values, weights=w))
