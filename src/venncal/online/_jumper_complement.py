"""The families' complements ``1 - f_k(p)`` as a table, for the Jumper's batch predictions (issue 22).

The kernels are in :mod:`venncal._kernels.jumper_complement`; a user's
function is known only by its values, so its complement is ``1 - f``.
"""

from __future__ import annotations

import numpy as np

from .._kernels.jumper import FAMILY_KINDS, jumper_predict
from .._kernels.jumper_complement import (
    cox_complements,
    polynomial_complements,
    predict_low,
    union_complements,
)

__all__ = ["complement_table", "predict_both"]


def complement_table(fam, p: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Return ``1 - f_k(p_i)``, shape ``(K, n)``, each formed without cancellation where it can be.

    ``p``: contiguous float64 base probabilities; ``table``: ``fam.table(p)``.
    """
    kind = fam.kind
    if kind in ("quadratic", "cubic"):
        out = np.empty(table.shape)
        polynomial_complements(FAMILY_KINDS[kind], fam.params, p, table, out)
        return out
    if kind in ("cox", "cox2"):
        out = np.empty(table.shape)
        cox_complements(fam._kernel_params(), p, out)
        return out
    if kind == "union":
        compiled = getattr(fam, "_compiled", None)
        if compiled is not None:
            out = np.empty(table.shape)
            union_complements(*compiled, p, table, out)
            return out
        rows, start = [], 0
        for member in fam.members:
            stop = start + len(member)
            rows.append(complement_table(member, p, np.ascontiguousarray(table[start:stop])))
            start = stop
        return np.ascontiguousarray(np.vstack(rows))
    return 1.0 - table  # a user's function: its values are all there is


def predict_both(fam, p: np.ndarray, rates, weights, log_cap, log_err) -> np.ndarray:
    """Return the Jumper's ``(n, 2)`` probabilities at ``p``: the negative class's formed directly.

    Column 1 is :func:`~venncal._kernels.jumper.jumper_predict`'s ``p'``;
    column 0 is the same mixture of the complements where ``p' > 1/2``, and
    ``1 - p'`` elsewhere (:func:`~venncal._kernels.jumper_complement.predict_low`).
    """
    table = fam.table(p)
    out = np.empty((p.shape[0], 2))
    proba = np.empty(p.shape[0])
    jumper_predict(table, rates, weights, log_cap, log_err, proba)
    low = np.empty(p.shape[0])
    high = proba > 0.5
    if high.any():
        predict_low(complement_table(fam, p, table), rates, weights, log_cap, log_err, proba, low)
    else:
        low = 1.0 - proba
    out[:, 0] = low
    out[:, 1] = proba
    return out
