"""Sums of non-negative numbers that keep their relative precision: averages of step
functions position by position, and sums over many ranges of one array.

BBQ averages binning models: each model is a step function of the score,
constant on its bins, and the average is tabulated on the union of the
models' bin edges.  Summing the models' jumps along the grid costs one pass,
but its running sum has an absolute error of about ``2**-53`` times the
largest value passed: a small average (a probability of 1e-20, or the
complement of one near 1) between large ones keeps no correct digit.  Here
each position's average is its own sum of the models' non-negative terms,
accurate to about ``n_models * 2**-53`` of itself.  The same trouble hits
the sum of a range taken as the difference of two running sums (a bin of
weight 1 after rows of weight 1e40 keeps nothing): :func:`range_sums_tree`
adds the range's own aligned blocks instead.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit

__all__ = ["range_sums_tree", "step_average"]


@jit
def range_sums_tree(x, lo, hi):
    """Return ``sum(x[lo[i]:hi[i]])`` for every ``i``, each within ``2 log2(n) 2**-53`` of itself.

    ``x`` holds non-negative numbers (scaled so that their total is finite).
    An iterative segment tree: node ``j`` of ``2 n`` holds the sum of its two
    children, leaf ``n + i`` is ``x[i]``; a range is the sum of at most
    ``2 log2(n)`` nodes, all non-negative, so nothing cancels (a light range
    after heavy ones keeps its digits).  O(n + m log n).
    """
    n = x.shape[0]
    tree = np.zeros(2 * n)
    for i in range(n):
        tree[n + i] = x[i]
    for j in range(n - 1, 0, -1):
        tree[j] = tree[2 * j] + tree[2 * j + 1]
    out = np.zeros(lo.shape[0])
    for i in range(lo.shape[0]):
        left = lo[i] + n
        right = hi[i] + n
        total = 0.0
        while left < right:
            if left & 1:
                total += tree[left]
                left += 1
            if right & 1:
                right -= 1
                total += tree[right]
            left >>= 1
            right >>= 1
        out[i] = total
    return out


@jit
def step_average(n_positions, bin_start, offsets, values, model_weights):
    """Return ``sum_m model_weights[m] * values[bin of m at j]`` at every grid position ``j``.

    Parameters
    ----------
    n_positions : int
        Number of grid positions.
    bin_start : ndarray of int64 of shape (n_bins,)
        The first grid position of each bin (0 for each model's first bin);
        a bin ends where the next bin of its model starts (its model's last
        bin at ``n_positions``).
    offsets : ndarray of int64 of shape (n_models + 1,)
        Model ``m`` owns the bins ``offsets[m]:offsets[m + 1]``.
    values : ndarray of float64 of shape (n_bins,)
        Each bin's value (non-negative).
    model_weights : ndarray of float64 of shape (n_models,)
        Non-negative; models of weight 0 are skipped.
    """
    out = np.zeros(n_positions)
    for m in range(offsets.shape[0] - 1):
        w = model_weights[m]
        if w == 0.0:
            continue
        for b in range(offsets[m], offsets[m + 1]):
            end = bin_start[b + 1] if b + 1 < offsets[m + 1] else n_positions
            term = w * values[b]
            for j in range(bin_start[b], end):
                out[j] += term
    return out
