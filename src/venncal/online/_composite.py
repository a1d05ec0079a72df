"""The compiled description of a union of families (and of Cox's families) for the kernels.

:func:`describe` turns the members of a union into the ``(desc, params)``
arrays of :mod:`venncal._kernels.jumper_union`; a union holding a user's
family keeps its Python path for the values (:func:`stacked_ratios` still
brings the members' ratios to one scale in compiled code).
"""

from __future__ import annotations

import numpy as np

from .._kernels.jumper import FAMILY_KINDS
from .._kernels.jumper_union import union_rescale

__all__ = ["describe", "stacked_ratios"]


def _desc(kinds: list[int], sizes: list[int]) -> np.ndarray:
    return np.array(kinds + np.cumsum([0, *sizes]).tolist(), dtype=np.float64)


def describe(members) -> tuple[np.ndarray, np.ndarray] | None:
    """Return ``(desc, params)`` for families of the paper's kinds, or None if one is a user's.

    ``params`` has shape ``(K, 2)``: each function's kernel parameters,
    padded with 0 (the quadratic family's ``(eps, 0)``); ``cox(beta)`` is
    ``cox2(0, beta)``.  Both arrays are read-only.

    Examples
    --------
    >>> from venncal.online.families import cox, quadratic
    >>> desc, params = describe([quadratic([-1, 1]), cox([2.0])])
    >>> desc.tolist(), params.tolist()
    ([0.0, 2.0, 0.0, 2.0, 3.0], [[-1.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    """
    if not all(m.kind in FAMILY_KINDS for m in members):
        return None
    params = np.zeros((sum(len(m) for m in members), 2))
    row = 0
    for m in members:
        theta = m._kernel_params()
        params[row:row + len(m), :theta.shape[1]] = theta
        row += len(m)
    desc = _desc([FAMILY_KINDS[m.kind] for m in members], [len(m) for m in members])
    desc.setflags(write=False)
    params.setflags(write=False)
    return desc, params


def stacked_ratios(members, p: np.ndarray, y: np.ndarray,
                   table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The union's ``(t, ls)`` from each member's ``likelihood_ratios`` (a user's family among them).

    Each member's scaled ratios are computed by the member, then brought to
    the largest scale by :func:`~venncal._kernels.jumper_union.union_rescale`.
    """
    t = np.empty(table.shape)
    member_ls = np.empty((len(members), p.shape[0]))
    row = 0
    for j, fam in enumerate(members):
        t[row:row + len(fam)], member_ls[j] = fam._scaled_ratios(
            p, y, table[row:row + len(fam)])
        row += len(fam)
    ls = np.empty(p.shape[0])
    union_rescale(_desc([-1] * len(members), [len(m) for m in members]), t, ls, member_ls)
    return t, ls
