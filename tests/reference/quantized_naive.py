"""Slow, literal references for quantized isotonic regression (Gokcesu & Gokcesu 2022).

The problem: minimize ``sum_t w_t (y_t - g(x_t))**2`` over non-decreasing
``g`` with values in a finite sorted set of levels.  Observations with equal
scores get equal values (ties pooled, as everywhere in venncal).  All
arithmetic is exact (``fractions.Fraction``).

* :func:`exhaustive_quantized` tries every non-decreasing assignment of levels
  to the distinct scores (fine for a handful of scores and levels).
* :func:`projected_pava` is Gokcesu & Gokcesu 2022, Theorem 1: the exact isotonic
  regression projected onto the nearest level, the lower one at an exact
  midpoint.
* :func:`exact_map` is the same for a multiset ``{(score, target): weight}``
  (what a stream holds), by the pool-adjacent-violators stack: fast enough
  for thousands of scores, still exact.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from reference.naive import _exact, pava_by_definition

__all__ = [
    "exact_map",
    "exhaustive_quantized",
    "loss_of_map",
    "midpoint_distance",
    "pava_stack",
    "pooled",
    "projected_pava",
]


def pooled(scores, y, w=None):
    """Distinct scores (sorted) with exact total weight and weighted sum of ``y``.

    Observations of weight 0 are left out.
    """
    w = np.ones(len(scores)) if w is None else w
    cells = {}
    for s, t, v in zip(scores, y, w, strict=True):
        if _exact(v) == 0:
            continue
        den, num = cells.get(float(s), (Fraction(0), Fraction(0)))
        cells[float(s)] = (den + _exact(v), num + _exact(v) * _exact(t))
    keys = sorted(cells)
    return keys, [cells[k][0] for k in keys], [cells[k][1] for k in keys]


def loss_of_map(scores, y, w, score_to_level):
    """Exact weighted squared loss of a map given as a dict score -> level."""
    w = np.ones(len(scores)) if w is None else w
    total = Fraction(0)
    for s, t, v in zip(scores, y, w, strict=True):
        if _exact(v) == 0:
            continue
        total += _exact(v) * (_exact(t) - _exact(score_to_level[float(s)])) ** 2
    return total


def exhaustive_quantized(scores, y, w, levels):
    """Return ``(best_loss, optimal_maps)`` over every monotone map into ``levels``.

    Each map is a tuple of levels, one per distinct score in increasing order.
    """
    keys, _, _ = pooled(scores, y, w)
    best, maps = None, []
    for combo in itertools.combinations_with_replacement(list(levels), len(keys)):
        loss = loss_of_map(scores, y, w, dict(zip(keys, combo, strict=True)))
        if best is None or loss < best:
            best, maps = loss, [combo]
        elif loss == best:
            maps.append(combo)
    return best, maps


def nearest_level(value, levels):
    """The level nearest to an exact value, the lower one at an exact midpoint."""
    best = None
    for lv in levels:
        d = abs(_exact(lv) - value)
        if best is None or d < best[0]:
            best = (d, lv)
    return best[1]


def projected_pava(scores, y, w, levels):
    """Distinct scores and the level of each: the projected isotonic regression."""
    keys, den, num = pooled(scores, y, w)
    fit = pava_by_definition(num, den, exact=True)
    return np.array(keys), np.array([float(nearest_level(v, levels)) for v in fit])


def pava_stack(num, den):
    """Exact isotonic fit (a list of Fractions) of ordered points given as sums.

    The pool-adjacent-violators algorithm with a stack: each point is pushed
    as a block, and the top two blocks are pooled while the lower one's mean
    is at least the upper one's.  Same fit as ``pava_by_definition``.
    """
    blocks = []  # [num, den, count]
    for n, d in zip(num, den, strict=True):
        block = [_exact(n), _exact(d), 1]
        while blocks and blocks[-1][0] * block[1] >= block[0] * blocks[-1][1]:
            top = blocks.pop()
            block = [top[0] + block[0], top[1] + block[1], top[2] + block[2]]
        blocks.append(block)
    out = []
    for n, d, count in blocks:
        out.extend([n / d] * count)
    return out


def exact_map(multiset, levels):
    """Return ``(keys, levels_at_keys, means)`` for a multiset ``{(score, target): weight}``.

    ``keys``: the distinct scores of positive weight, sorted; ``means``: the
    exact isotonic regression at each (Fractions); the level at each is the
    nearest level to its mean in exact arithmetic, the lower at a midpoint.
    Weights and targets are taken as the exact values of their floats (or
    Fractions as they are).
    """
    cells = {}
    for (s, y), w in multiset.items():
        w = _exact(w)
        if w == 0:
            continue
        den, num = cells.get(float(s), (Fraction(0), Fraction(0)))
        cells[float(s)] = (den + w, num + w * _exact(y))
    keys = sorted(cells)
    means = pava_stack([cells[k][1] for k in keys], [cells[k][0] for k in keys])
    return keys, [float(nearest_level(m, levels)) for m in means], means


def midpoint_distance(value, levels):
    """The exact distance from ``value`` to the nearest midpoint between adjacent levels."""
    lv = [_exact(v) for v in levels]
    if len(lv) < 2:
        return None
    return min(abs(value - (a + b) / 2) for a, b in zip(lv[:-1], lv[1:], strict=True))
