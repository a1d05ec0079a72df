"""Complements ``1 - p0`` and ``1 - p1`` of a Venn-Abers second stage, each its own quotient.

``ChainedCalibrator(point="clip")`` clips the first stage's probability to
the second stage's pair ``(p0, p1)``; its column 0 is the complement of
whichever of the three it kept.  Near 1 these round to (or near) 1, and
``1.0 - p`` keeps no relative precision, so each complement is read from
the weights: ``1 - p0`` from the IVAP's ``q0_``, ``1 - p1`` as the ``p0``
of the mirrored summary (scores negated, classes swapped: ``1 - p1`` there
is the lower Venn-Abers probability of class 0, a quotient of the weights).
"""

from __future__ import annotations

import numpy as np

from .._kernels import ivap_lookup, ivap_tables_full
from .._kernels.summary import negatives
from .._validation import check_scores
from ..venn_abers import CrossVennAbersCalibrator, VennAbersCalibrator
from ..venn_abers._merge import _log_complement

__all__ = ["pair_complements"]


def _ivap_upper_complement(cal: VennAbersCalibrator, q: np.ndarray) -> np.ndarray:
    """``1 - p1`` of one IVAP at the scores ``q``, from its weights; ``1.0 - p1`` if inexact.

    The mirrored summary needs each score's negative weight ``w - a`` as a
    double: where that difference rounds (a light class tied with a heavy
    one), the mirror is another model, and ``1.0 - p1`` is returned.
    """
    w, a = cal.weights_, cal.positive_weights_
    negative, error = negatives(w, a)  # error zero exactly when `negative` is w - a
    if (error != 0.0).any():
        return 1.0 - cal._pair(q)[1]
    lower = ivap_tables_full(np.ascontiguousarray(w[::-1]), np.ascontiguousarray(negative[::-1]))[0]
    mirrored = np.ascontiguousarray(-cal.scores_[::-1])
    out = np.empty((2, q.shape[0]))
    ivap_lookup(mirrored, lower, lower, np.ascontiguousarray(-q), out[0], out[1])
    return out[0]


def pair_complements(then, x: np.ndarray, interval: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(1 - p0, 1 - p1)`` of ``interval = then.predict_interval(x)``, precise where ``then`` allows.

    A :class:`VennAbersCalibrator` gives ``1 - p0`` from ``q0_`` and
    ``1 - p1`` from its mirrored summary (:func:`_ivap_upper_complement`);
    a :class:`CrossVennAbersCalibrator` the complements of its merged pair
    ``(1 - GM(1 - p0), GM(p1))``: ``GM(1 - p0)`` as its merge forms it and
    ``1 - GM(p1) = -expm1(mean(log1p(-(1 - p1))))``.  Any other second
    stage: ``1.0 - p0`` and ``1.0 - p1``.
    """
    if type(then) is VennAbersCalibrator:
        q = check_scores(x)
        return then._triple(q)[2], _ivap_upper_complement(then, q)
    if type(then) is CrossVennAbersCalibrator:
        fold_scores = then._check_test_scores(x)
        cals = then.calibrators_
        triples = [cal._triple(q) for cal, q in zip(cals, fold_scores, strict=True)]
        q1 = np.stack([_ivap_upper_complement(c, q) for c, q in zip(cals, fold_scores, strict=True)])
        if len(triples) == 1:
            return triples[0][2], q1[0]
        p0 = np.stack([t[0] for t in triples])
        q0 = np.stack([t[2] for t in triples])
        with np.errstate(divide="ignore"):
            gm0 = np.exp(np.mean(_log_complement(p0, q0), axis=0))
            return gm0, -np.expm1(np.mean(np.log1p(-q1), axis=0))
    return 1.0 - interval[:, 0], 1.0 - interval[:, 1]
