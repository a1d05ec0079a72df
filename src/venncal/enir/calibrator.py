"""ENIR: an ensemble of near-isotonic regression models (Naeini & Cooper 2016)."""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._base import (
    ScoreCalibrator,
    check_complements,
    check_float_arrays,
    check_increasing,
    check_int_array,
    paired,
)
from .._docs import fill
from .._kernels.enir_complement import bin_logliks, enir_bic, enir_complement_table, group_sums
from .._validation import Interval, Options
from ..baselines.bbq import _PRIOR_EPS  # prior rates kept in [eps, 1 - eps], as in BBQ
from ..baselines.isotonic import interpolate
from .path import NearIsotonicPath

__all__ = ["ENIRCalibrator"]

MODELS = ("average", "best")
BIN_PRIORS = ("auto", "score", "base_rate")

# A model whose BIC exceeds the best by 2 * (_NATS + log(n_models)) has a
# weight below exp(-_NATS) / n_models of the best model's, so all such models
# together hold less than exp(-60) ~ 1e-26 of the total: nothing in float64.
_NATS = 60.0
# Both tables (values_ for class 1, complements_ for class 0) are kept in
# [_C_MIN, 1 - _P_MIN]: below 1 - _P_MIN, the largest double below 1, and each
# keeps its own relative precision near 0, but stays > 0 (a smoothed value that
# underflowed, with prior_strength or bin weights near the float64 range, is
# the smallest subnormal): no score range predicts a certain label.
_P_MIN = 2.0**-53
_C_MIN = 2.0**-1074
# How far values_ + complements_ may be from 1 in a valid model (see _check_state).
_CONSISTENT = 1e-9


@fill
class ENIRCalibrator(ScoreCalibrator):
    r"""Ensemble of near-isotonic regression models (ENIR; Naeini & Cooper 2016).

    The nearly-isotonic fits of the positive rate over the sorted distinct
    calibration scores form a path in the penalty ``lam`` (see
    :func:`~venncal.near_isotonic_path`): the data at ``lam = 0``, the
    isotonic fit at the last knot.  ENIR takes the fit at every knot
    ``lam > 0`` as a binning model ``M_t`` (its groups are the bins), scores
    it by BIC on the calibration data and averages the models' smoothed bin
    estimates with weights ``exp(-BIC_t / 2)`` (selective Bayesian model
    averaging):

    .. math::

        \mathrm{BIC}_t = -2 \sum_b \big[m_b \log \beta_b + (N_b - m_b) \log(1 - \beta_b)\big]
            + B_t \log N, \qquad
        P(z = 1 \mid s) = \sum_t \frac{e^{-\mathrm{BIC}_t/2}}{\sum_u e^{-\mathrm{BIC}_u/2}}
            \, \tilde p_t(s),

    where bin ``b`` of model ``t`` holds calibration weight ``N_b``, of
    which ``m_b`` positive, ``beta_b`` is the fit on the bin (clipped to
    ``[0, 1]``), ``B_t`` the number of bins and ``N`` the total weight.

    Parameters
    ----------
    model : {"average", "best"}, default="average"
        ``"average"``: the BIC-weighted average of the models; ``"best"``:
        the single model of smallest BIC (the first, in increasing ``lam``,
        on a tie).
    prior_strength : float, default=1.0
        Weight ``m > 0`` of the Beta prior that smooths each bin estimate:
        ``p~_b = (N_b beta_b + m pi_b) / (N_b + m)``.
    bin_prior : {"auto", "score", "base_rate"}, default="auto"
        Prior rate ``pi_b``: the bin's weighted mean calibration score
        (``"score"``, as the authors' implementation; needs scores in
        ``[0, 1]``), or the calibration base rate (``"base_rate"``);
        ``"auto"`` is ``"score"`` when every calibration score lies in
        ``[0, 1]``, else ``"base_rate"``.  Clipped to ``[1e-6, 1 - 1e-6]``.
    {classes}

    Attributes
    ----------
    {classes_}
    lambdas_ : ndarray of shape (n_models,)
        ``lam`` of each model: the positive knots of the path (just ``[0.]``
        when the path has none: then the data, with equal neighbours pooled,
        are already isotonic and that fit is the one model).
    n_bins_ : ndarray of shape (n_models,)
        Number of bins (groups) of each model.
    bic_ : ndarray of shape (n_models,)
        BIC of each model; ``inf`` for models not scored because their BIC
        provably exceeds the best by more than ``2 * (60 + log(n_models))``
        (their weight is below ``1e-26`` of the total), or whose fit puts
        probability 0 on an observed label.
    model_weights_ : ndarray of shape (n_models,)
        Normalised model weights (sum to 1).
    thresholds_ : ndarray of shape (t,)
        Increasing distinct calibration scores: all of them but those inside
        a run of equal averaged values, which would change no prediction.
    values_ : ndarray of shape (t,)
        The averaged smoothed probability at each of them.
    complements_ : ndarray of shape (t,)
        The averaged smoothed probability of ``classes_[0]`` at each of
        them: ``1 - values_`` but for rounding, computed on its own so that
        it keeps its relative precision where ``values_`` is near 1 (column
        0 of :meth:`predict_proba`; see the Notes).

    Notes
    -----
    **Smoothing.**  The fit of a bin can be exactly 0 or 1 (a bin of one
    class), which would predict a certain label.  The authors' code smooths
    each bin with a Beta prior centred on the bin's mean score, of strength
    ``1 - |observed rate - mean score|``; that strength vanishes exactly when
    a bin is most extreme, and it uses the labels twice.  Here the strength
    is a fixed ``prior_strength`` (default 1, the authors' largest) and the
    prior rate is clipped away from 0 and 1, so every probability lies
    strictly inside ``(0, 1)``.  BIC is computed from the unsmoothed fits,
    as the authors do (a model whose fit is 0 or 1 on a bin holding the
    other label then gets ``BIC = inf`` and weight 0; the isotonic fit never
    does, so some model always has positive weight).  The authors' code
    adds ``B_t log(2 pi)`` to the BIC penalty; the paper's BIC (Schwarz)
    does not, and neither does this class.

    **Between and beyond the calibration scores.**  ``values_`` is the
    averaged model at the distinct calibration scores (but the middle of
    flat runs); between two of them
    the prediction interpolates linearly (as the authors' ``predict``), and
    below the smallest or above the largest it is the value there.  So no
    score range predicts 0 or 1, and where every model is monotone the
    prediction is monotone too.

    **Class 0.**  Column 0 of :meth:`predict_proba` is not ``1 - p``, which
    keeps no relative precision where ``p`` is near 1 (and is ``2**-53`` where
    ``p`` is ``1 - 2**-53``), but the same average of the bins' smoothed
    complements, ``(N_b c_b + m (1 - pi_b)) / (N_b + m)`` with ``c_b = 1 -
    clip(beta_b)`` computed from the bin's own negative weight ``N_b - m_b``
    (summed on its own, as the score summary keeps it) and ``1 - pi_b`` from
    the bin's sum of ``1 - s``: every term is non-negative, so the table
    ``complements_`` is within a few units of ``2**-53`` (relative) of the
    exact value per model averaged (``tests/test_enir_complement.py``
    checks ``1e-12`` against exact rational arithmetic, with weights from
    ``1e-310`` to ``1e300`` and ``1e20 : 1`` at one score).  It is kept in
    ``(0, 1 - 2**-53]`` and interpolated as ``values_``; ``values_ +
    complements_`` is 1 within ``2**-53`` (where the two miss it by more,
    the larger is 1 minus the smaller: :func:`~venncal._base.paired`).  ``values_`` is kept in the same range,
    with the same relative precision near 0 (``p = 1e-20`` is not rounded
    up to ``2**-53``, as by earlier versions).  A model saved before ``complements_``
    existed predicts ``1.0 - p``, as it did.

    **Exact and fast.**  The path is exact (see
    :func:`~venncal.near_isotonic_path`) and costs ``O(k log k)``.  The
    log-likelihood of a binning is at most that of the same bins at their
    observed rates, and that bound, for every knot, is a running sum over
    the merges (``O(k)`` in all, its rounding added); with ``B_t log N`` it
    bounds the BIC from below.  Models are scored in order of that bound,
    each in ``O(B_t)`` from the merge tree, and scoring stops once the bound
    exceeds the best BIC by the cutoff above: the weights equal those of
    scoring every model, to rounding.  Each bin's log-likelihood is taken
    from both classes' own weights (the log of the smaller class's share,
    ``log1p`` of minus it for the larger), never from ``log(1 - beta_b)`` of
    a rounded ``beta_b``, so the BIC keeps its relative precision with bins
    of weight ``1e17`` beside unit weights.  ``values_`` is, like
    ``complements_``, each score's own sum of the models' smoothed values
    (non-negative terms), so a small ``p`` between large ones keeps its
    relative precision.  The average is tabulated at fit time, so
    prediction is ``np.interp`` (a binary search and a gather) on a table
    of at most ``k`` points, usually far fewer (the models' bin edges).

    **Weights.**  Sample weights are frequency weights: ``N`` is the total
    weight and a weight of 2 is the same as the row repeated (a total weight
    ``N <= 1`` gives no penalty: ``log N`` is taken as 0), so weights that sum
    to less than half the number of rows get a
    :class:`~venncal.WeightScaleWarning`.  The path is computed on the
    weights divided by a power of two when they are huge or tiny (its knots
    scale with them); weights spanning more than about ``2**500``, or whose
    BIC or knots pass the float64 range, raise ``ValueError``.

    References
    ----------
    M. P. Naeini, G. F. Cooper. Binary classifier calibration using an
    ensemble of near isotonic regression models. ICDM 2016.

    R. J. Tibshirani, H. Hoefling, R. Tibshirani. Nearly-isotonic
    regression. Technometrics 53(1), 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.enir import ENIRCalibrator
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.uniform(size=5_000)
    >>> y = rng.uniform(size=5_000) < scores**2  # true probability: score squared
    >>> cal = ENIRCalibrator().fit(scores, y)
    >>> int((cal.model_weights_ > 0).sum()) <= len(cal.lambdas_)
    True
    >>> cal.predict_proba([0.1, 0.5, 0.9])[:, 1].round(3)
    array([0.   , 0.236, 0.841])
    """

    def __init__(self, *, model="average", prior_strength=1.0, bin_prior="auto", classes=None):
        self.model = model
        self.prior_strength = prior_strength
        self.bin_prior = bin_prior
        self.classes = classes

    _state = ("lambdas_", "n_bins_", "bic_", "model_weights_", "thresholds_", "values_",
              "complements_")
    #: Fitted attributes newer than the first saved models (filled by ``_derive_state``;
    #: saved only where they differ from what it derives).
    _state_added: ClassVar[dict[str, str]] = {"complements_": "1 - values_"}
    _parameter_constraints: ClassVar[dict] = {
        "model": [Options(MODELS)],
        "prior_strength": [Interval("real", 0.0, None, closed="neither")],
        "bin_prior": [Options(BIN_PRIORS)],
    }

    _weight_total_use = "the BIC penalty log N and the prior's weight against the data"

    # each class's own sums: w - a loses a class of weight 1 beside 2**53 at one score
    _class_sums = True

    def _fit_sums(self, s, w, a, b):
        """Fit from the scores, their total, positive and negative weights."""
        in_unit = bool(s[0] >= 0.0 and s[-1] <= 1.0)
        if self.bin_prior == "score" and not in_unit:
            raise ValueError(
                'bin_prior="score" needs calibration scores in [0, 1]; got scores in '
                f'[{float(s[0])!r}, {float(s[-1])!r}] (use bin_prior="base_rate" or "auto")'
            )
        shift = _scale_shift(w)
        if shift:  # the path for the weights times 2**-shift: knots times 2**-shift
            w, a, b = np.ldexp(w, -shift), np.ldexp(a, -shift), np.ldexp(b, -shift)
        unit = math.ldexp(1.0, shift) if shift < 1024 else math.inf
        path = NearIsotonicPath._from_summary(s, w, a)
        k = s.shape[0]
        A, W, d = path._A, path._W, path._d
        start, end, birth, left, right = (
            path._start, path._end, path._birth, path._left, path._right)
        roots = path._alive(math.inf)  # the groups of the isotonic fit, in score order

        B = group_sums(b, left, right)  # each group's negative weight, summed on its own
        lams, n_bins, loglik = _models(path, k, B)
        total = float(W[roots].sum())
        log_total = math.log(total) + shift * math.log(2.0)
        log_n = log_total if log_total > 0.0 else 0.0
        with np.errstate(over="ignore", invalid="ignore"):
            lower = -2.0 * (unit * loglik) + n_bins * log_n
        cutoff = 2.0 * (_NATS + math.log(lams.shape[0]))
        order = np.argsort(lower, kind="stable")
        bic = enir_bic(
            lams, lower, order, cutoff, log_n, roots, A, B, W, d, birth, left, right, unit
        )
        with np.errstate(over="ignore"):
            lambdas = np.ldexp(lams, shift)
        if not (np.isfinite(np.min(bic)) and np.isfinite(lambdas).all()):
            raise ValueError(
                "ENIRCalibrator: sample_weight is too large for the models' BIC: the "
                f"log-likelihood or a path knot exceeds the float64 range (total weight "
                f"2**{log_total / math.log(2.0):.1f}); weights are frequencies, so divide them "
                "by a common factor"
            )

        best = int(np.argmin(bic))
        if self.model == "best":
            weights = np.zeros_like(bic)
            weights[best] = 1.0
        else:
            weights = np.exp(-0.5 * (bic - bic[best]))
            weights /= weights.sum()

        if self.bin_prior == "base_rate" or not in_unit:
            prior = np.full(A.shape[0], float(A[roots].sum()) / total)
        else:
            sums = np.zeros(k + 1)
            np.cumsum(w * s, out=sums[1:])
            prior = (sums[end] - sums[start]) / W
            # The difference of running sums cancels for a light group after heavy ones
            # (weight 1 after 1e20: nothing of it is left); the group's own sum (of
            # non-negative terms) does not.  Where the two agree to 2**-40 the running
            # sums' value is kept, as earlier versions computed it.
            own = group_sums(w * s, left, right) / W
            lost = np.abs(prior - own) > 2.0**-40 * own
            if lost.any():
                prior = np.where(lost, own, prior)
        np.clip(prior, _PRIOR_EPS, 1.0 - _PRIOR_EPS, out=prior)
        # Each point's value is its own sum over the models (no running sum of jumps,
        # which kept no relative precision for a small p between large ones): the
        # complement kernel on the positive weights (A + lam d = A - lam (-d)).
        values, lo, hi = enir_complement_table(
            k, lams, weights, float(self.prior_strength), prior, roots, A, W, -d, birth, left,
            right, shift)
        if self.bin_prior == "base_rate" or not in_unit:
            prior_c = np.full(A.shape[0], float(B[roots].sum()) / total)
        else:  # the mean of 1 - s (exact for s >= 1/2), summed per group: no cancellation
            prior_c = group_sums(w * (1.0 - s), left, right) / W
        # 1 - clip(pi, eps, 1 - eps), its bounds exact complements of pi's
        np.clip(prior_c, 1.0 - (1.0 - _PRIOR_EPS), 1.0 - _PRIOR_EPS, out=prior_c)
        complements, c_lo, c_hi = enir_complement_table(
            k, lams, weights, float(self.prior_strength), prior_c, roots, B, W, d, birth,
            left, right, shift)
        # The average lies between the values it averages; clipping removes
        # the rounding of the sums, and keeps it in [_C_MIN, 1 - _P_MIN]
        # even when every smoothed value rounded to 0 or 1 (bins of weight
        # past 2**53 times the prior's, or near the float64 range).
        lower = min(max(lo, _C_MIN), 1.0 - _P_MIN)
        upper = max(min(hi, 1.0 - _P_MIN), lower)
        np.clip(values, lower, upper, out=values)
        # The same for the complement, in its own range.
        lower = min(max(c_lo, _C_MIN), 1.0 - _P_MIN)
        upper = max(min(c_hi, 1.0 - _P_MIN), lower)
        np.clip(complements, lower, upper, out=complements)
        # Each table is precise where it is small (see paired).
        values, complements = paired(values, complements)
        np.clip(values, _C_MIN, 1.0 - _P_MIN, out=values)
        np.clip(complements, _C_MIN, 1.0 - _P_MIN, out=complements)

        self.lambdas_ = lambdas
        self.n_bins_ = n_bins.astype(np.int64)
        self.bic_ = bic
        self.model_weights_ = weights
        # Inside a run of equal values a point changes nothing in the linear
        # interpolation (bit for bit): keep the ends of runs only (of both tables).
        keep = np.ones(k, dtype=bool)
        keep[1:-1] = ((values[1:-1] != values[:-2]) | (values[1:-1] != values[2:])
                      | (complements[1:-1] != complements[:-2])
                      | (complements[1:-1] != complements[2:]))
        self.thresholds_ = s[keep]
        self.values_ = values[keep]
        self.complements_ = complements[keep]

    def _predict_p(self, q):
        return interpolate(q, self.thresholds_, self.values_)

    def _predict_p_and_complement(self, q):
        p = interpolate(q, self.thresholds_, self.values_)
        if self.__dict__.get("_complements_derived"):
            return p, 1.0 - p  # a model saved before complements_: as it predicted
        # each interpolation rounds: paired, the two add to 1 within 2**-53, and kept
        # strictly inside (0, 1) as the tables are
        p, c = paired(p, interpolate(q, self.thresholds_, self.complements_))
        return np.clip(p, _C_MIN, 1.0 - _P_MIN), np.clip(c, _C_MIN, 1.0 - _P_MIN)

    def _derived_complements(self) -> np.ndarray:
        """``complements_`` of a model saved before it existed: ``1 - values_``, as it predicted."""
        return 1.0 - np.asarray(self.values_)

    def _derive_state(self) -> None:
        """Fill ``complements_`` of a model saved before it existed (``1 - values_``)."""
        if not hasattr(self, "complements_") and hasattr(self, "values_"):
            self.complements_ = self._derived_complements()
            self._complements_derived = True

    def _state_default(self, name: str):
        """What :meth:`_derive_state` fills ``name`` with, for a model it filled (else None).

        Between knots such a model predicts ``1.0 - p``, not the interpolated
        ``complements_``, so only it may leave the member out of a file: a fit whose
        complements happen to be ``1 - values_`` to the bit keeps them.
        """
        if not self.__dict__.get("_complements_derived"):
            return None
        return self._derived_complements()

    def _check_state(self):
        """Raise ``ValueError`` unless the models and the averaged table fit together.

        Per model: ``lambdas_`` increasing from 0 (strictly, but where the float64 range
        rounds two of them together: subnormal or infinite), bin counts ``>= 1`` and not
        increasing with ``lambda``, a BIC that is a number or ``+inf`` (not
        scored) and a weight ``>= 0`` (0 where the BIC is ``+inf``; one weight
        1 for ``model="best"``), the weights summing to 1.  The table:
        thresholds strictly increasing, values in [0, 1] (``fit`` keeps them
        in ``(0, 1 - 2**-53]``; earlier versions in ``[2**-53, 1 - 2**-53]``),
        complements of the same length in ``(0, 1]`` with ``|values_ + complements_ - 1| <= 1e-9``.

        The tolerance: the two tables are averages of values in [0, 1] from
        the same group sums, so they differ only by rounding, a few units of
        ``2**-53`` per model and per addition of a group sum,
        and by their clips into
        ``(0, 1 - 2**-53]``; ``1e-9`` is ``2**-53`` times 9e6, which no
        fit approaches, and an edited value that moves a prediction by more
        than ``1e-9`` is refused.
        """
        check_is_fitted(self, "values_")
        super()._check_state()
        n_models = check_float_arrays(self, ("lambdas_",))
        if n_models == 0:
            raise ValueError("lambdas_ must not be empty")
        check_int_array(self, "n_bins_", length=n_models, minimum=1)
        check_float_arrays(self, ("bic_",), length=n_models, finite=False)
        check_float_arrays(self, ("model_weights_",), length=n_models)
        check_float_arrays(self, ("thresholds_", "values_", "complements_"),
                           unit_interval=("values_", "complements_"))
        if (self.complements_ == 0).any():
            raise ValueError("complements_ must be positive")
        # Both tables average values in [0, 1] computed from the same group sums; they
        # differ by their rounding (a few units of 2**-53 per model, per addition of
        # a group sum) and by their clips into (0, 1 - 2**-53]:
        # far below 1e-9 for any data that fits in memory.  A file whose values moved
        # by more is refused.
        check_complements(self.values_, self.complements_, monotone=False, tolerance=_CONSISTENT)
        lambdas, bic, weights = self.lambdas_, self.bic_, self.model_weights_
        if lambdas[0] < 0:
            raise ValueError("lambdas_ must be non-negative")
        # strictly increasing, except where the float64 range rounds them together: the
        # path's knots are scaled back by 2**shift, so weights of 1e-310 give subnormal
        # lambdas, two of which can round to one value (and past 1.8e308 to inf)
        before, after = lambdas[:-1], lambdas[1:]
        rounded = (after < 2.0**-1022) | np.isinf(after)
        if not ((after > before) | ((after == before) & rounded)).all():
            raise ValueError("lambdas_ must be strictly increasing (ties only where subnormal "
                             "or infinite: rounded into the float64 range)")
        if (np.diff(self.n_bins_) > 0).any():
            raise ValueError("n_bins_ must not increase with lambdas_")
        if (bic == -np.inf).any() or not np.isfinite(bic).any():
            raise ValueError("bic_ must be numbers or +inf, one of them finite at least")
        if (weights < 0).any() or (weights[bic == np.inf] != 0).any():
            raise ValueError("model_weights_ must be non-negative, 0 where bic_ is +inf")
        if not math.isclose(float(weights.sum()), 1.0, rel_tol=4 * (n_models + 1) * 2**-52):
            raise ValueError("model_weights_ must sum to 1")
        if self.model == "best" and not (np.count_nonzero(weights) == 1 and weights.max() == 1):
            raise ValueError('model="best" weighs one model only, by 1')
        check_increasing(self.thresholds_, "thresholds_", strict=True)


# The path's merge times are ratios of products of two group sums: with
# every weight in [2**-_PATH_RANGE, 2**_PATH_RANGE] (and totals below
# 2**_PATH_RANGE) no product overflows or underflows.
_PATH_RANGE = 400


def _scale_shift(w) -> int:
    """The power of two to divide the weights by before the path (0 when none is needed).

    Raises ``ValueError`` when the weights span more than the path's
    arithmetic can carry once scaled (about ``2**500``: the total brought to
    ``2**100``, the smallest weight kept above ``2**-_PATH_RANGE``).
    """
    top = float(w.max())
    bottom = float(w.min())
    _, e_top = math.frexp(top)
    e_total = e_top + (w.shape[0] + 1).bit_length()
    if e_total <= _PATH_RANGE and bottom >= 2.0**-_PATH_RANGE:
        return 0
    shift = e_total - _PATH_RANGE // 4  # the total becomes about 2**100
    if math.ldexp(bottom, -shift) < 2.0**-_PATH_RANGE:
        raise ValueError(
            f"ENIRCalibrator: sample_weight spans from {bottom!r} to {top!r}, more than the "
            "nearly-isotonic path's float64 arithmetic carries (products of two weight sums); "
            "drop the negligible weights or divide the large ones"
        )
    return shift


def _models(path, k, B):
    """Return the models' ``lambda``, number of bins and log-likelihood upper bound.

    The models are the fits at the knots ``lambda > 0`` (Naeini & Cooper 2016: the fit
    at 0, the data, is left out); with no merge at ``lambda > 0`` the one
    model is the fit at 0.  ``B``: each group's negative weight.
    """
    models = np.flatnonzero(path.knots > 0)  # knot indices of the models
    loglik = _max_loglik(path, k, B)
    if models.shape[0] == 0:
        n_bins = path.n_groups[-1:] if path.knots.shape[0] else np.array([k])
        return np.zeros(1), n_bins, loglik[-1:]
    return path.knots[models], path.n_groups[models], loglik[models + 1]


def _max_loglik(path, k, B):
    """Return an upper bound of the log-likelihood of the bins before and at each knot.

    Entry 0 is for the points, entry ``j + 1`` for the groups after the
    merges at ``path.knots[j]``, each at its observed rate (each group's
    ``A log(A/W) + B log(B/W)`` from both classes' own sums, with full
    relative precision: :func:`~venncal._kernels.enir_complement.bin_logliks`).
    Refining bins never lowers it, so it bounds a model's own log-likelihood
    from above.  Summed per knot, then cumulated over the knots; the
    rounding of those sums (at most ``(m + 16) 2**-52`` times the sum of the
    terms' magnitudes, ``m`` the number of groups) is added, so that the
    bound stays one where the terms are huge (bins of weight ``1e20``).
    """
    A, W, left, right = path._A, path._W, path._left, path._right
    best = bin_logliks(A, B, W)  # <= 0, or -inf past the float64 range
    with np.errstate(invalid="ignore"):
        # inf - inf past the float64 range gives NaN here: _fit_sums refuses it with
        # a clear error (the weights are too large for the BIC), never uses it
        gain = best[k:] - best[left[k:]] - best[right[k:]]
    size = np.abs(best[k:]) + np.abs(best[left[k:]]) + np.abs(best[right[k:]])
    n_knots = path.knots.shape[0]
    per_knot = np.bincount(path._knot_of_merge, weights=gain, minlength=n_knots)
    size_per_knot = np.bincount(path._knot_of_merge, weights=size, minlength=n_knots)
    base = best[:k].sum()
    loglik = np.concatenate(([0.0], np.cumsum(per_knot))) + base
    magnitude = np.concatenate(([0.0], np.cumsum(size_per_knot))) - base
    with np.errstate(invalid="ignore"):
        return loglik + (A.shape[0] + 16) * 2.0**-52 * magnitude
