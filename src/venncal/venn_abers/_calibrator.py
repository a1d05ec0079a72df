"""Score-level inductive Venn-Abers predictor (IVAP)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._base import (
    ScoreCalibrator,
    check_float_arrays,
    check_float_numbers,
    check_increasing,
    check_sums_to,
    own_knots,
)
from .._kernels import ivap_lookup, ivap_tables
from .._validation import Options, check_scores
from ._merge import MERGES, minimax

__all__ = ["VennAbersCalibrator"]


class VennAbersCalibrator(ScoreCalibrator):
    """Inductive Venn-Abers predictor on scores (IVAP; Vovk et al. 2015).

    Fitted on the scores and labels of a calibration set, it predicts for a
    test score ``s`` the pair ``(p0, p1)``: the value at ``s`` of the isotonic
    regression fitted to the calibration data plus ``(s, 0)``, and plus
    ``(s, 1)``.  One of the two is perfectly calibrated under
    exchangeability.  Fitting sorts the scores once and builds both tables in
    linear time (paper 000, Algorithms 1-4); prediction is a binary search.

    Parameters
    ----------
    merge : {"log", "brier"}, default="log"
        How :meth:`predict_proba` merges ``(p0, p1)`` into one probability:
        ``"log"`` gives the log-loss minimax ``p1 / (1 - p0 + p1)``,
        ``"brier"`` the Brier-loss minimax ``p1 + p0**2/2 - p1**2/2``.
    classes : array-like of shape (2,), default=None
        The two labels, ``[negative, positive]``, in that order.  By default
        they are the observed labels sorted (the larger is the positive
        class); needed when the calibration labels show a single class
        other than 0 or 1.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The labels, ``[negative, positive]`` (``classes`` when given, else
        sorted); probabilities are those of ``classes_[1]``.
    scores_ : ndarray of shape (k,)
        Sorted distinct calibration scores.
    weights_, positive_weights_ : ndarray of shape (k,)
        Total and positive-class weight at each calibration score.
    p0_, p1_ : ndarray of shape (k,)
        The Venn-Abers tables F0, F1: ``(p0_[j], p1_[j])`` is the prediction
        for a test score equal to ``scores_[j]``.
    n_negative_, n_positive_ : float
        Total weight of each class in the calibration set (k- and k+).

    Notes
    -----
    Between calibration scores ``scores_[j] < s < scores_[j+1]`` the
    prediction is ``(p0_[j], p1_[j+1])``; below every calibration score it is
    ``(0, p1_[0])`` and above every one ``(p0_[-1], 1)``.  Sample weights are
    frequency weights: weight 2 is the same as the row repeated, and the test
    observation counts as one.  ``p0 <= p1`` always, and the log-minimax
    probability lies in ``[1/(k- + 2), 1 - 1/(k+ + 2)]`` (paper 000, Lemma 2).

    References
    ----------
    V. Vovk, I. Petej, V. Fedorova. Large-scale probabilistic predictors with
    and without guarantees of validity. NeurIPS 2015.

    Examples
    --------
    >>> from venncal import VennAbersCalibrator
    >>> cal = VennAbersCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    >>> cal.predict_interval([0.1, 0.5, 0.9])
    array([[0.        , 0.5       ],
           [0.33333333, 1.        ],
           [0.5       , 1.        ]])
    >>> cal.predict_proba([0.5]).round(4)
    array([[0.4, 0.6]])
    """

    def __init__(self, *, merge="log", classes=None):
        self.merge = merge
        self.classes = classes

    _state = ("scores_", "weights_", "positive_weights_", "p0_", "p1_",
              "n_negative_", "n_positive_")
    _parameter_constraints: ClassVar[dict] = {"merge": [Options(MERGES)]}

    def _fit_sums(self, s, w, a):
        self.scores_ = s
        self.weights_ = w
        self.positive_weights_ = a
        self.p0_, self.p1_ = ivap_tables(w, a)
        self.n_positive_ = float(a.sum())
        self.n_negative_ = float(w.sum() - self.n_positive_)

    def _check_state(self):
        """Raise ``ValueError`` unless every fitted attribute is one ``fit`` can produce.

        The summary (sorted distinct scores, weights ``0 <= a <= w``, ``w > 0``),
        the tables (in [0, 1], non-decreasing, ``p0 <= p1``) and the class
        weights (the sums of the weights, up to the rounding of the sum).
        """
        super()._check_state()
        check_float_arrays(
            self, ("scores_", "weights_", "positive_weights_", "p0_", "p1_"),
            unit_interval=("p0_", "p1_"),
        )
        check_increasing(self.scores_, "scores_", strict=True)
        if not ((self.weights_ > 0).all() and (self.positive_weights_ >= 0).all()
                and (self.positive_weights_ <= self.weights_).all()):
            raise ValueError("weights must satisfy 0 <= positive_weights_ <= weights_, 0 < weights_")
        if (self.p0_ > self.p1_).any():
            raise ValueError("p0_ must not exceed p1_")
        check_increasing(self.p0_, "p0_", strict=False)
        check_increasing(self.p1_, "p1_", strict=False)
        check_float_numbers(self, ("n_negative_", "n_positive_"), minimum=0.0)
        check_sums_to(self.n_positive_, self.positive_weights_, "n_positive_")
        check_sums_to(self.n_negative_ + self.n_positive_, self.weights_,
                      "n_negative_ + n_positive_")

    def predict_interval(self, scores) -> np.ndarray:
        """Return the Venn-Abers pair ``(p0, p1)`` for each test score.

        Parameters
        ----------
        scores : array-like of shape (n_samples,)

        Returns
        -------
        ndarray of shape (n_samples, 2)
            Columns ``p0 <= p1``: lower and upper probability of ``classes_[1]``.
        """
        check_is_fitted(self, "p1_")
        return self._pair(check_scores(scores)).T

    def _predict_with_interval(self, scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return ``(p, p0, p1)``: :meth:`predict_proba`'s ``[:, 1]`` and :meth:`predict_interval`.

        One validation and one search of the table for both (the command line's
        ``predict`` writes all three).
        """
        check_is_fitted(self, "p1_")
        p0, p1 = self._pair(check_scores(scores))
        return minimax(p0, p1, self.merge), p0, p1

    def _pair(self, q):
        out = np.empty((2, q.shape[0]))
        ivap_lookup(self.scores_, self.p0_, self.p1_, q, out[0], out[1])
        return out

    def _predict_p(self, q):
        p0, p1 = self._pair(q)
        return minimax(p0, p1, self.merge)

    @own_knots
    def _knots(self) -> np.ndarray:
        """The calibration scores: ``(p0, p1)`` is constant between two of them."""
        return self.scores_
