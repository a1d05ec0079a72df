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
from .._docs import fill
from .._kernels import (
    class_totals,
    ivap_lookup,
    ivap_lookup_full,
    ivap_tables_full,
)
from .._kernels.dd import two_sum
from .._validation import Options, check_scores
from ._merge import MERGES, merge_with_complement, minimax

__all__ = ["VennAbersCalibrator"]

# |(1 - p0_) - q0_| of a consistent model: p0_ and q0_ within 2 ulps of their exact
# values (5e-16 for models saved before p0_ was correctly rounded), 1 - p0_ rounded.
_COMPLEMENT_TOLERANCE = 2.0**-49
# |saved p0_ - p0_ computed from the weights| on load: 0 for a model saved by this
# version, up to 5e-16 for one saved before the tables were correctly rounded
# (up to 6e-16 relative in tests/data/model-v1 and tests/data/models).
_SAVED_TOLERANCE = 5e-16


@fill
class VennAbersCalibrator(ScoreCalibrator):
    """Inductive Venn-Abers predictor on scores (IVAP; Vovk et al. 2015).

    Fitted on the scores and labels of a calibration set, it predicts for a
    test score ``s`` the pair ``(p0, p1)``: the value at ``s`` of the isotonic
    regression fitted to the calibration data plus ``(s, 0)``, and plus
    ``(s, 1)``.  One of the two is perfectly calibrated under
    exchangeability.  Fitting sorts the scores once and builds both tables in
    linear time (Vovk, Petej & Fedorova 2015, Algorithms 1-4); prediction is a binary search.

    Parameters
    ----------
    merge : {"log", "brier"}, default="log"
        How :meth:`predict_proba` merges ``(p0, p1)`` into one probability:
        ``"log"`` gives the log-loss minimax ``p1 / (1 - p0 + p1)``,
        ``"brier"`` the Brier-loss minimax ``p1 + p0**2/2 - p1**2/2``.
    {classes}

    Attributes
    ----------
    {classes_}
    scores_ : ndarray of shape (k,)
        Sorted distinct calibration scores.
    weights_, positive_weights_ : ndarray of shape (k,)
        Total and positive-class weight at each calibration score.
    negative_weights_ : ndarray of shape (k,) or None
        The negative-class weight at each calibration score, summed on its
        own, where ``weights_ - positive_weights_`` is not exactly it (a
        light class tied with a heavy one: ``4e20 + 1`` rounds to ``4e20``);
        None when it is, at every score.  The tables are those of the
        positive and these negative weights.
    p0_, p1_ : ndarray of shape (k,)
        The Venn-Abers tables F0, F1: ``(p0_[j], p1_[j])`` is the prediction
        for a test score equal to ``scores_[j]``.
    q0_ : ndarray of shape (k,)
        ``1 - p0_``, computed from the weights as ``p0_`` is (the negative
        instead of the positive weight over the same total), so that it keeps
        its relative precision where ``p0_`` rounds to (or near) 1.  Used by
        :meth:`predict_proba`'s column 0 and by CVAP's merge.  Not saved:
        :func:`venncal.load` computes it from the saved weights, exactly as
        :meth:`fit` does.
    q1_ : ndarray of shape (k,)
        ``1 - p1_``, computed from the weights in the same way (used by
        :class:`~venncal.ChainedCalibrator`'s column 0).  Not saved either.
    n_negative_, n_positive_ : float
        Total weight of each class in the calibration set (k- and k+),
        rounded once (``inf`` if it exceeds the largest float64).

    Notes
    -----
    Between calibration scores ``scores_[j] < s < scores_[j+1]`` the
    prediction is ``(p0_[j], p1_[j+1])``; below every calibration score it is
    ``(0, p1_[0])`` and above every one ``(p0_[-1], 1)``.  Sample weights are
    frequency weights: weight 2 is the same as the row repeated, and the test
    observation counts as one, so the predictor depends on the total weight:
    weights that sum to less than half the number of rows (relative weights,
    such as weights normalised to sum to 1) get a
    :class:`~venncal.WeightScaleWarning`.  ``p0 <= p1`` always, and the
    log-minimax probability lies in ``[1/(k- + 2), 1 - 1/(k+ + 2)]`` (Vovk,
    Petej & Fedorova 2015, Lemma 2).

    The tables are exact for any finite weights: every turn of the convex
    hull is decided exactly, and each entry is the correctly rounded value of
    the definition (within 2 ulps for weights whose cumulative sums need
    double-double arithmetic, such as fractional weights or whole numbers
    past ``2**52``; the tables are then made exactly monotone with ``p0_ <=
    p1_``).  Weights whose cumulative sums do not fit exactly in two doubles
    (the total weight more than ``2**104`` times the last place of the
    smallest weight: weights of full precision spanning more than about
    ``10**15 / k``, subnormal weights, totals past ``2**103``) are computed
    in exact rational arithmetic, in Python: a few microseconds per distinct
    score instead of tens of nanoseconds.

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
              "n_negative_", "n_positive_", "negative_weights_")
    #: Fitted attributes newer than the first saved models (filled by ``_derive_state``).
    _state_added: ClassVar[dict[str, str]] = {"negative_weights_": "weights_ - positive_weights_"}
    _class_sums = True  # the negative weights, where w - a has lost a light class
    _parameter_constraints: ClassVar[dict] = {"merge": [Options(MERGES)]}
    _weight_total_use = "the test object counts as one row"

    def _fit_sums(self, s, w, a, b):
        self._fit_tables(s, w, a, b)
        # each class's total to double-double accuracy (w.sum() - a.sum() loses
        # a class of small weights beside one of large weights), inf past float64
        self.n_negative_, self.n_positive_ = class_totals(w, a)

    def _fit_tables(self, s, w, a, b):
        # b itself either way: where b == w - a exactly the tables are those of w - a, bit
        # for bit (what load computes from a file without negative_weights_)
        self._set_tables(s, w, a, b, ivap_tables_full(w, a, b))

    def _set_tables(self, s, w, a, b, tables) -> None:
        """Set the summary and the tables ``(p0, p1, q0, q1)`` of ``w, a, b`` (fit, batch fits)."""
        self.scores_, self.weights_, self.positive_weights_ = s, w, a
        self.negative_weights_ = own_negatives(w, a, b)
        self.p0_, self.p1_, self.q0_, self.q1_ = tables

    def _fit_from(self, summary):
        # The tables depend on the weights a, b only; the class totals come from each
        # class's own sums (w - a loses a class of weight 1e-300 tied with 1e300), not
        # from class_totals(w, a) as in _fit_sums (a pass over the summary for nothing).
        self._fit_tables(summary.scores, summary.weights, summary.positive_weights,
                         summary.negative_weights)
        self.n_negative_ = summary.negative_weight
        self.n_positive_ = summary.positive_weight

    def _check_state(self):
        """Raise ``ValueError`` unless every fitted attribute is one ``fit`` can produce.

        The summary (sorted distinct scores, weights ``0 <= a <= w``, ``w > 0``),
        the tables (in [0, 1], non-decreasing, ``p0 <= p1``) and the class
        weights (the sums of the weights, up to the rounding of the sum).
        """
        super()._check_state()
        self._check_summary_state()
        check_float_arrays(
            self, ("scores_", "p0_", "p1_", "q0_", "q1_"),
            unit_interval=("p0_", "p1_", "q0_", "q1_"),
        )
        if (self.p0_ > self.p1_).any():
            raise ValueError("p0_ must not exceed p1_")
        check_increasing(self.p0_, "p0_", strict=False)
        check_increasing(self.p1_, "p1_", strict=False)
        check_increasing(-self.q0_, "-q0_", strict=False)
        check_increasing(-self.q1_, "-q1_", strict=False)
        # q0_ and q1_ are computed from the weights (on load too): p0_ and p1_ must be
        # the tables of these weights, each within 2 ulps of its exact value (models
        # saved before the tables were correctly rounded: 5e-16), and 1 - p rounds once more
        for table, complement, name, which in ((self.p0_, self.q0_, "p0_", "lower"),
                                               (self.p1_, self.q1_, "p1_", "upper")):
            if not (np.abs((1.0 - table) - complement) <= _COMPLEMENT_TOLERANCE).all():
                raise ValueError(
                    f"{name} must be the {which} Venn-Abers table of the weights: 1 - {name} "
                    f"differs from its complement computed from them by more than "
                    f"{_COMPLEMENT_TOLERANCE:.1e}"
                )
        check_float_numbers(self, ("n_negative_", "n_positive_"), minimum=0.0, allow_inf=True)
        # each class's total is its own sum: w - a may have lost up to half an ulp of w
        # per score (a class of weight 1e-300 tied with 1e300), so the scale is w
        check_sums_to(self.n_positive_, self.positive_weights_, "n_positive_", self.weights_)
        negative = self.negative_weights_
        check_sums_to(
            self.n_negative_, self.weights_ - self.positive_weights_ if negative is None
            else negative, "n_negative_", self.weights_
        )

    def _check_summary_state(self):
        """The summary arrays: sorted distinct scores, weights ``0 <= a <= w``, ``w > 0``.

        ``negative_weights_`` (when not None): ``0 <= b <= w``, and ``w`` the sum ``a + b``
        up to the rounding of the summary (each of ``w``, ``a``, ``b`` is a correctly rounded
        sum of the rows, so ``|w - (a + b)| <= 2**-53 (w + a + b)``, checked as ``2**-51 w``).
        """
        names = ("scores_", "weights_", "positive_weights_")
        if self.negative_weights_ is not None:
            names += ("negative_weights_",)
        check_float_arrays(self, names)
        check_increasing(self.scores_, "scores_", strict=True)
        w, a = self.weights_, self.positive_weights_
        if not ((w > 0).all() and (a >= 0).all() and (a <= w).all()):
            raise ValueError("weights must satisfy 0 <= positive_weights_ <= weights_, 0 < weights_")
        b = self.negative_weights_
        if b is not None:
            if not ((b >= 0).all() and (b <= w).all()):
                raise ValueError(
                    "negative_weights_ must satisfy 0 <= negative_weights_ <= weights_")
            # (a + b) - w exactly (two-sum; w - s is exact, s and w being that close or the
            # check failing anyway), against the rounding of three correctly rounded sums
            s, e = two_sum(a, b)
            if not (np.abs((s - w) + e) <= 2.0**-51 * w).all():
                raise ValueError(
                    "weights_ must be positive_weights_ + negative_weights_ (up to rounding)"
                )

    def _derive_state(self) -> None:
        """Set the tables and ``q0_``, ``q1_`` from the loaded weights, as :meth:`fit` does (``load``).

        The saved ``p0_``, ``p1_`` must agree with the tables computed from the
        weights: within 4 ulps relative they are kept (a model saved by this
        version: exactly), within 5e-16 absolute (a model saved before the
        tables were correctly rounded) they are replaced by them.

        A model saved (or pickled) without ``negative_weights_`` has None: its negative
        weights are ``weights_ - positive_weights_`` exactly.  Raises ``ValueError`` for
        invalid weights (before any computation).
        """
        if "negative_weights_" not in self.__dict__:
            self.negative_weights_ = None
        self._check_summary_state()
        tables = ivap_tables_full(self.weights_, self.positive_weights_, self.negative_weights_)
        self.q0_, self.q1_ = tables[2:]
        # The saved tables are a function of the weights: each must be the table computed
        # from them, within 4 ulps relative (kept as saved: bit for bit what the model
        # answered), or within the 5e-16 absolute of models saved before the tables were
        # correctly rounded (replaced by the computed table: a tiny entry changed in a file,
        # 1e-20 for 2e-20, cannot give a wrong answer), or the file is refused.  Tables
        # that are not finite float arrays of the right length are left to _check_state.
        for k, table in enumerate(tables[:2]):
            saved = self.__dict__.get(f"p{k}_")
            if not (isinstance(saved, np.ndarray) and saved.dtype == np.float64
                    and saved.shape == table.shape and np.isfinite(saved).all()):
                continue
            gap = np.abs(saved - table)
            if not (gap <= _SAVED_TOLERANCE).all():
                raise ValueError(
                    f"p{k}_ must be the {('lower', 'upper')[k]} Venn-Abers table of the weights: "
                    f"it differs from the table computed from them by up to {gap.max():.3g}"
                )
            if not (gap <= 2.0**-50 * table).all():
                setattr(self, f"p{k}_", table)

    def _state_default(self, name: str):
        """What :meth:`_derive_state` fills ``name`` with (the file leaves it out then): None."""
        return None

    def _predict_p_and_complement(self, q):
        # the minimax merge of (p0, p1), and 1 - p from q0_ where p > 1/2
        p0, p1, q0 = self._triple(q)
        p, p_complement, _ = merge_with_complement(p0[None], p1[None], q0[None], self.merge)
        return p, p_complement

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

    def _triple(self, q):
        """``(p0, p1, 1 - p0)`` of the test scores ``q`` (one search)."""
        return self._quad(q)[:3]

    def _quad(self, q):
        """``(p0, p1, 1 - p0, 1 - p1)`` of the test scores ``q`` (one search)."""
        out = np.empty((4, q.shape[0]))
        ivap_lookup_full(self.scores_, self.p0_, self.p1_, self.q0_, self.q1_, q, *out)
        return out

    def _predict_p(self, q):
        p0, p1 = self._pair(q)
        return minimax(p0, p1, self.merge)

    @own_knots
    def _knots(self) -> np.ndarray:
        """The calibration scores: ``(p0, p1)`` is constant between two of them."""
        return self.scores_


def own_negatives(w: np.ndarray, a: np.ndarray, b: np.ndarray | None) -> np.ndarray | None:
    """``negative_weights_``: None where ``b == w - a`` exactly at every score, else ``b``.

    ``b is None`` (no class sums given) is None too.
    """
    if b is None:
        return None
    # b == w - a exactly iff fl(w - a) == b and its rounding error (w - fl(w - a)) - a is 0:
    # Dekker's fast two-sum, exact as 0 <= a <= w; two vector passes, not a kernel's four
    with np.errstate(invalid="ignore"):
        if np.array_equal(w - a, b) and np.array_equal(w - b, a):
            return None
    return b
