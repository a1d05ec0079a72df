"""Complements ``1 - p0`` and ``1 - p1`` of a Venn-Abers second stage, each its own quotient.

``ChainedCalibrator(point="clip")`` clips the first stage's probability to
the second stage's pair ``(p0, p1)``; its column 0 is the complement of
whichever of the three it kept.  Near 1 these round to (or near) 1, and
``1.0 - p`` keeps no relative precision, so each complement is read from
the IVAP's own complement tables ``q0_`` and ``q1_`` (quotients of the
weights, computed with the tables).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_scores
from ..venn_abers import CrossVennAbersCalibrator, VennAbersCalibrator
from ..venn_abers._merge import _complement_mean

__all__ = ["pair_complements"]


def pair_complements(then, x: np.ndarray, interval: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(1 - p0, 1 - p1)`` of ``interval = then.predict_interval(x)``, precise where ``then`` allows.

    A :class:`VennAbersCalibrator` gives them from ``q0_`` and ``q1_``; a
    :class:`CrossVennAbersCalibrator` the complements of its merged pair
    ``(1 - GM(1 - p0), GM(p1))``: ``GM(1 - p0)`` as its merge forms it and
    ``1 - GM(p1) = -expm1(mean(log1p(-(1 - p1))))``.  Any other second
    stage: ``1.0 - p0`` and ``1.0 - p1``.
    """
    if type(then) is VennAbersCalibrator:
        quad = then._quad(check_scores(x))
        return quad[2], quad[3]
    if type(then) is CrossVennAbersCalibrator:
        fold_scores = then._check_test_scores(x)
        quads = [cal._quad(q) for cal, q in zip(then.calibrators_, fold_scores, strict=True)]
        if len(quads) == 1:
            return quads[0][2], quads[0][3]
        p0, _, q0, q1 = (np.stack([t[i] for t in quads]) for i in range(4))
        with np.errstate(divide="ignore"):
            gm0 = _complement_mean(p0, q0)[0]
            return gm0, -np.expm1(np.mean(np.log1p(-q1), axis=0))
    return 1.0 - interval[:, 0], 1.0 - interval[:, 1]
