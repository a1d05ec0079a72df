"""The inputs every metric takes, and the (weighted) mean they average with.

Every metric is a function of ``(y, p)``: labels in {0, 1} (or booleans, or
any two labels with ``pos_label``) and the predicted probability of the
positive class.  The checks themselves are :mod:`venncal._validation`'s.

Weighted metrics are weighted means (or ratios of weighted sums), which do
not change when every weight is multiplied by the same factor.  They are
computed on the weights divided by a power of two that brings the largest
to ``[0.5, 1)`` (:func:`_unit_scaled`): exact, so the answer is that of the
weights given, and no sum can overflow whatever their size (1e308) or
underflow whatever their smallness (1e-310).  Weights below ``2**-1022``
times the largest then lose bits, but their share of any weighted mean is
below ``2**-1022`` as well.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_binary_labels, check_probabilities, check_sample_weight


def _check_inputs(y, p, pos_label=None, sample_weight=None):
    """Return ``(y01, p, w)``: boolean labels, float64 ``p``, weights or None."""
    p = check_probabilities(p)
    y01 = check_binary_labels(y, p.shape[0], pos_label)
    return y01, p, check_sample_weight(sample_weight, p.shape[0])


def _unit_scaled(w: np.ndarray) -> np.ndarray:
    """``w`` times the power of two that brings its largest value to ``[0.5, 1)``."""
    _, e = math.frexp(float(np.max(w)))
    return np.ldexp(w, -e)


def _mean(values: np.ndarray, w: np.ndarray | None) -> float:
    """The (weighted) mean of ``values``, for weights of any finite size."""
    if w is None:
        return float(np.mean(values))
    ws = _unit_scaled(w)
    return float(np.dot(ws, values) / np.sum(ws))
