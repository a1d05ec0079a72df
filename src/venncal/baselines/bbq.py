"""Bayesian Binning into Quantiles (BBQ; Naeini, Cooper & Hauskrecht 2015)."""

from __future__ import annotations

import math
from typing import ClassVar, NamedTuple

import numpy as np
from scipy.special import betaln
from sklearn.utils.validation import check_is_fitted

from .._base import (
    ScoreCalibrator,
    check_complements,
    check_float_arrays,
    check_increasing,
    check_int_array,
    own_knots,
    paired,
)
from .._binning import equal_mass_cuts, gap_points, overflow_shift
from .._docs import fill
from .._kernels import class_totals
from .._kernels.averages import range_sums_tree, step_average
from .._validation import NONE, Check, Interval, Options

__all__ = ["BBQCalibrator", "candidate_bin_counts"]

BIN_PRIORS = ("auto", "midpoint", "base_rate")

# Prior positive rates are clipped to [_PRIOR_EPS, 1 - _PRIOR_EPS]: a rate of
# exactly 0 or 1 (one-class data, or a bin midpoint that rounds to 1) would
# make a Beta parameter 0 and the marginal likelihood undefined.  A bin
# estimate moves by less than _PRIOR_EPS.
_PRIOR_EPS = 1e-6
# Bin estimates are kept in [_P_LOW, _P_HIGH], the doubles strictly between 0
# and 1 next to them: a bin heavier than about 2**53 times the prior would
# otherwise round to exactly 0 or 1.  This moves an estimate by at most an ulp.
_P_LOW = 5e-324
_P_HIGH = 1.0 - 2.0**-53

# Fitting holds a few arrays of this many boundaries (~0.5 GB at 5e7); the
# default range reaches it near a total weight of 1e9.
_MAX_LEVELS = 50_000_000


def _is_bin_range(value) -> bool:
    return (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and all(Interval("int", 1, None)(v) for v in value)
        and value[0] <= value[1]
    )


def candidate_bin_counts(total_weight, n_distinct, bin_range=None, range_factor=10.0):
    """Return the numbers of bins ``B`` of the BBQ binning models.

    ``N`` is the total calibration weight (the number of observations for
    unit weights).  By default ``B`` runs from ``round(N**(1/3) / C)`` to
    ``round(C * N**(1/3))`` with ``C = range_factor`` (rounding half up), and
    always ``1 <= B <= max(1, min(floor(N), n_distinct))``.

    Parameters
    ----------
    total_weight : float
        Total calibration weight ``N`` (> 0).
    n_distinct : int
        Number of distinct calibration scores.
    bin_range : tuple of (int, int), default=None
        ``(smallest, largest)`` number of bins, replacing the default range
        (still clipped as above).
    range_factor : float, default=10.0
        ``C`` of the default range (>= 1).

    Returns
    -------
    ndarray of int64
        Consecutive bin counts, increasing.
    """
    cap = max(1, min(int(n_distinct), math.floor(min(total_weight, float(n_distinct)))))
    if bin_range is None:
        root = math.cbrt(total_weight)  # inf for a total past the float64 range
        lo = math.floor(min(root / range_factor + 0.5, cap + 1.0))
        hi = math.floor(min(root * range_factor + 0.5, cap + 1.0))
    else:
        lo, hi = (int(v) for v in bin_range)
    lo = min(max(lo, 1), cap)
    hi = min(max(hi, lo), cap)
    return np.arange(lo, hi + 1, dtype=np.int64)


@fill
class BBQCalibrator(ScoreCalibrator):
    r"""Bayesian Binning into Quantiles (BBQ; Naeini, Cooper & Hauskrecht 2015).

    BBQ averages equal-frequency histogram-binning models with different
    numbers of bins, each weighted by its Bayesian (BDeu) marginal
    likelihood.  For a model ``M`` with bins ``b = 1, ..., B``, where bin
    ``b`` holds calibration weight ``N_b``, of which ``m_b`` positive and
    ``n_b = N_b - m_b`` negative,

    .. math::

        \mathrm{Score}(M) = P(M) \prod_{b=1}^{B}
            \frac{\Gamma(N'/B)}{\Gamma(N_b + N'/B)}
            \frac{\Gamma(m_b + \alpha_b)}{\Gamma(\alpha_b)}
            \frac{\Gamma(n_b + \beta_b)}{\Gamma(\beta_b)},
        \qquad \alpha_b = \tfrac{N'}{B} p_b,\quad
               \beta_b = \tfrac{N'}{B} (1 - p_b),

    with ``N'`` the prior equivalent sample size (``prior_strength``), ``p_b``
    the prior positive rate of bin ``b`` and ``P(M)`` uniform.  The
    calibrated probability of a test score ``s`` is

    .. math::

        P(z = 1 \mid s) = \sum_M \frac{\mathrm{Score}(M)}{\sum_{M'} \mathrm{Score}(M')}
            \, \frac{m_{b(s)} + \alpha_{b(s)}}{N_{b(s)} + \alpha_{b(s)} + \beta_{b(s)}},

    where ``b(s)`` is the bin of model ``M`` that contains ``s`` (the
    posterior mean of the bin's Beta distribution).

    Parameters
    ----------
    bin_range : tuple of (int, int), default=None
        Smallest and largest number of bins ``B`` of the binning models; one
        model per integer in between.  None: the paper's range
        ``N**(1/3) / C`` to ``C * N**(1/3)`` (rounded to the nearest
        integers), with ``N`` the total calibration weight and ``C =
        range_factor``.  Either way ``B`` is clipped to
        ``[1, max(1, min(floor(N), k))]``, ``k`` the number of distinct
        calibration scores.  Fitting takes time and memory proportional to
        the sum of the bin counts and refuses more than 5e7 bin boundaries
        in all (a total weight near 1e9 with the default range).
    range_factor : float, default=10.0
        ``C`` in the default range (at least 1).  Ignored when ``bin_range``
        is given.
    prior_strength : float, default=2.0
        The prior equivalent sample size ``N'`` (> 0), shared equally by the
        bins of a model.
    bin_prior : {"auto", "midpoint", "base_rate"}, default="auto"
        Prior positive rate ``p_b`` of each bin.  ``"midpoint"``: the midpoint
        of the bin's score interval, the bins partitioning ``[0, 1]`` (needs
        calibration scores in ``[0, 1]``).  ``"base_rate"``: the positive
        fraction of the calibration weight, for every bin.  ``"auto"``:
        ``"midpoint"`` when every calibration score lies in ``[0, 1]``, else
        ``"base_rate"``.  Either way ``p_b`` is clipped to ``[1e-6, 1 - 1e-6]``.
    {classes}

    Attributes
    ----------
    {classes_}
    n_bins_ : ndarray of shape (n_models,)
        Number of (non-empty) bins of each distinct binning model.
    bin_edges_ : ndarray of shape (n_bins_.sum() - n_models,)
        Inner bin edges of all models, concatenated: model ``i`` owns the
        ``n_bins_[i] - 1`` edges starting at ``n_bins_[:i].sum() - i``.
    bin_values_ : ndarray of shape (n_bins_.sum(),)
        Bin estimates ``(m_b + alpha_b) / (N_b + alpha_b + beta_b)`` of all
        models, concatenated: model ``i`` owns the ``n_bins_[i]`` values
        starting at ``n_bins_[:i].sum()``.
    log_evidence_ : ndarray of shape (n_models,)
        Log marginal likelihood ``log P(D | M)`` of each model.
    model_weights_ : ndarray of shape (n_models,)
        Posterior model weights ``Score(M) / sum Score(M')`` (sum to 1).
    thresholds_ : ndarray of shape (t,)
        Increasing breakpoints of the averaged step function: every inner
        edge of a model of positive weight.
    values_ : ndarray of shape (t + 1,)
        The averaged probability below ``thresholds_[0]``, between
        consecutive thresholds and above ``thresholds_[-1]``.
    complements_ : ndarray of shape (t + 1,)
        ``1 - values_``, averaged from each bin's own negative estimate
        ``(n + beta) / (N + alpha + beta)``, so that :meth:`predict_proba`'s
        column 0 keeps its relative precision where ``values_`` is near 1 (kept in ``[5e-324,
        1 - 2**-53]`` as the estimates are).  A model saved before this
        attribute existed loads with ``1.0 - values_``, which is what it
        predicted.

    Notes
    -----
    **Which models.**  One equal-frequency model per bin count ``B`` from
    ``N**(1/3) / C`` to ``C * N**(1/3)``, ``C = 10`` (the paper's range;
    ``N = 10**6`` gives ``B = 10, ..., 1000``), with a uniform prior over
    the distinct models.  ``N'`` defaults to 2, the paper's choice.

    **Binning and ties.**  With ``W`` the total weight and ``C_j`` the
    cumulative weight up to the ``j``-th smallest distinct score (weight
    ``w_j``), the ``B``-bin model puts distinct score ``j`` in bin
    ``#{b in 1..B-1 : b W / B <= C_j - w_j / 2}``: the equal-weight bin that
    holds the middle of the score's cumulative-weight interval (the rule of
    :class:`~venncal.baselines.HistogramBinningCalibrator`, on each distinct
    score's weight summed and rounded once).  So tied scores
    are never split across bins; a score heavier than ``W / B`` swallows the
    bins around it, and bins that receive no score are dropped: the model
    then has fewer bins ``B``, and ``N'`` is shared among the bins it has.
    Bin counts that yield the same partition (possible only with ties or
    weights) give one model.  For ``n`` unit-weight distinct scores, every
    ``B <= n`` gives ``B`` non-empty bins of ``floor(n/B)`` or
    ``ceil(n/B)`` scores.  The comparison is exact for weights of any size
    (decided on the exact sums where the float ones are within rounding of
    a level: :func:`venncal._binning.equal_mass_cuts`, attack 48 F4).  Log
    evidences are accurate to about ``2**-52`` of their size (some ``N *
    2**-52`` nats), so models whose evidences differ by less than that
    share their weight arbitrarily (only for totals past about ``1e14``).

    **Bin intervals and prior rates.**  The edge between two adjacent bins
    is the midpoint between the last calibration score of one and the first
    of the next (rounded to a float strictly below the latter); a test score
    on an edge belongs to the lower bin, and test scores outside the
    calibration range go to the first or last bin.  For
    ``bin_prior="midpoint"`` the first bin extends down to 0 and the last up
    to 1, so the bins partition ``[0, 1]`` and ``p_b`` is the midpoint of
    the bin's interval, as in the paper.  Scores that are not probabilities
    define no such interval; there every bin gets the calibration base rate
    as prior rate (the ENIR paper instead maps such scores into ``[0, 1]``
    with a sigmoid; apply one before fitting to get that).  Rates are
    clipped to ``[1e-6, 1 - 1e-6]``, so one-class data (base rate 0 or 1)
    and bins next to 0 or 1 keep both Beta parameters positive; this moves
    a bin estimate by less than ``1e-6``.

    **Weights and computation.**  Sample weights are frequency weights: a
    weight of 2 is the same as the row repeated, and ``N`` is the total
    weight (so weights that sum to less than 2 leave a single bin, and
    weights that sum to less than half the number of rows get a
    :class:`~venncal.WeightScaleWarning`).  Weights of any finite size work
    (the binning is computed on them divided by a power of two) unless a
    model's log marginal likelihood passes the float64 range, which raises
    ``ValueError``.  Scores
    are computed in log space (``betaln``) and normalised as in
    ``logsumexp`` (shifted by the largest, exponentiated, divided by their
    sum).  Fitting builds a tree of sums of the weights once (each bin's
    weight is its own sum, accurate relative to itself); the ``B``-bin
    model then costs ``O(B log k)``, in all ``O(k + sum_B B log k)``.  The
    weighted average of the models' step functions is itself a step
    function, tabulated at fit time (``thresholds_``, ``values_``), so
    prediction is one binary search and a gather, whatever the number of
    models.  Outputs lie strictly between 0 and 1 (a bin estimate that would
    round to 0 or 1, for bins weighing more than about ``2**53`` times the
    prior, is kept an ulp inside).

    References
    ----------
    M. P. Naeini, G. F. Cooper, M. Hauskrecht. Obtaining well calibrated
    probabilities using Bayesian binning. AAAI 2015.

    M. P. Naeini, G. F. Cooper. Binary classifier calibration using an
    ensemble of near isotonic regression models. ICDM 2016 (section I
    summarises BBQ).

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.baselines.bbq import BBQCalibrator
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.uniform(size=10_000)
    >>> y = rng.uniform(size=10_000) < scores**2  # true probability: score squared
    >>> cal = BBQCalibrator().fit(scores, y)
    >>> len(cal.n_bins_), int(cal.n_bins_.min()), int(cal.n_bins_.max())
    (214, 2, 215)
    >>> best = cal.model_weights_.argmax()
    >>> int(cal.n_bins_[best]), round(float(cal.model_weights_[best]), 2)
    (11, 0.68)
    >>> cal.predict_proba([0.1, 0.5, 0.9])[:, 1].round(3)
    array([0.014, 0.249, 0.735])
    """

    def __init__(
        self,
        *,
        bin_range=None,
        range_factor=10.0,
        prior_strength=2.0,
        bin_prior="auto",
        classes=None,
    ):
        self.bin_range = bin_range
        self.range_factor = range_factor
        self.prior_strength = prior_strength
        self.bin_prior = bin_prior
        self.classes = classes

    _state = (
        "n_bins_",
        "bin_edges_",
        "bin_values_",
        "log_evidence_",
        "model_weights_",
        "thresholds_",
        "values_",
        "complements_",
    )
    #: Fitted attributes newer than the first saved models (filled by ``_derive_state``).
    _state_added: ClassVar[dict[str, str]] = {"complements_": "values_"}
    _parameter_constraints: ClassVar[dict] = {
        "bin_range": [NONE, Check(_is_bin_range, "a pair of integers (smallest, largest) "
                                  "with 1 <= smallest <= largest")],
        "range_factor": [Interval("real", 1.0, None)],
        "prior_strength": [Interval("real", 0.0, None, closed="neither")],
        "bin_prior": [Options(BIN_PRIORS)],
    }

    _weight_total_use = "the number of bins and the prior's weight against the data"

    _class_sums = True  # the complements come from the negative weights

    def _fit_sums(self, s, w, a, b):
        use_midpoint = self._use_midpoint(s)
        with np.errstate(over="ignore"):
            total = float(np.cumsum(w)[-1])
        if not np.isfinite(total):
            total = sum(class_totals(w, a))  # inf past the float64 range
        counts = self._bin_counts(total, s.shape[0])
        cuts, first_cut, n_cuts = equal_mass_cuts(w, counts)
        keep = _distinct_models(cuts, first_cut, n_cuts)
        if keep.shape[0] < n_cuts.shape[0]:
            cuts = np.concatenate([cuts[first_cut[i] : first_cut[i] + n_cuts[i]] for i in keep])
        n_bins = n_cuts[keep] + 1
        bins = _Bins.of_models(n_bins, cuts, s.shape[0])
        gaps = gap_points(s[:-1], s[1:])  # gaps[j] separates scores j and j + 1
        edges = gaps[cuts - 1]
        if use_midpoint:
            prior = bins.interval_midpoints(edges)
        else:
            prior = np.full(bins.size, _base_rate(w, a))
        prior = np.clip(prior, _PRIOR_EPS, 1.0 - _PRIOR_EPS)
        log_evidence, values, complements = _evidence(
            w, a, b, bins, prior, float(self.prior_strength))
        if not np.isfinite(log_evidence).all():
            raise ValueError(
                "BBQCalibrator: sample_weight is too large for the models' Bayesian scores: a "
                "bin's weight or its log marginal likelihood exceeds the float64 range (the "
                f"total weight is {total:g}); weights are frequencies, so divide them by a "
                "common factor"
            )
        # logsumexp-style normalisation: shift by the maximum, then divide by
        # the sum (rather than subtract logsumexp, whose absolute error at log
        # evidences of order -1e5 would leave the weights summing to 1 +- 1e-11).
        model_weights = np.exp(log_evidence - log_evidence.max())
        model_weights /= model_weights.sum()

        self.n_bins_ = n_bins
        self.bin_edges_ = edges
        self.bin_values_ = values
        self.log_evidence_ = log_evidence
        self.model_weights_ = model_weights
        self.thresholds_, self.values_ = _average_steps(
            s.shape[0], gaps, cuts, values, bins.offsets, bins.first, model_weights
        )
        complements = _average_steps(
            s.shape[0], gaps, cuts, complements, bins.offsets, bins.first, model_weights
        )[1]
        # each the more precise of itself and 1 minus the other, kept between the
        # estimates it averages
        self.values_, self.complements_ = paired(self.values_, complements)
        live = np.repeat(model_weights > 0, n_bins)
        np.clip(self.values_, values[live].min(), values[live].max(), out=self.values_)

    def _derive_state(self) -> None:
        """A model saved before ``complements_`` existed predicted ``1.0 - values_``."""
        if not hasattr(self, "complements_") and isinstance(self.values_, np.ndarray):
            self.complements_ = 1.0 - self.values_

    def _state_default(self, name: str):
        """What :meth:`_derive_state` fills ``name`` with (the file may leave it out then)."""
        return 1.0 - self.values_

    def _use_midpoint(self, s) -> bool:
        """Whether the prior rates are bin midpoints (else the base rate)."""
        in_unit = bool(s[0] >= 0.0 and s[-1] <= 1.0)
        use_midpoint = self.bin_prior == "midpoint" or (self.bin_prior == "auto" and in_unit)
        if use_midpoint and not in_unit:
            raise ValueError(
                'bin_prior="midpoint" needs calibration scores in [0, 1]; got scores in '
                f'[{float(s[0])!r}, {float(s[-1])!r}] (use bin_prior="base_rate" or "auto")'
            )
        return use_midpoint

    def _bin_counts(self, total, k):
        """Return the candidate bin counts, refusing more than ``_MAX_LEVELS`` boundaries."""
        counts = candidate_bin_counts(total, k, self.bin_range, float(self.range_factor))
        n_levels = int(counts.sum()) - counts.shape[0]
        if n_levels > _MAX_LEVELS:
            raise ValueError(
                f"the binning models would have {n_levels} bin boundaries in all (bin counts "
                f"{counts[0]} to {counts[-1]}, from a total weight of {total:g}); pass a smaller "
                "bin_range (weights are frequencies: their total sets the default range)"
            )
        return counts

    def _predict_p(self, q):
        return self.values_[np.searchsorted(self.thresholds_, q, side="left")]

    def _predict_p_and_complement(self, q):
        at = np.searchsorted(self.thresholds_, q, side="left")
        return self.values_[at], self.complements_[at]

    @own_knots
    def _knots(self) -> np.ndarray:
        """The thresholds of the model-averaged steps."""
        return self.thresholds_

    def _check_state(self):
        """Raise ``ValueError`` unless the models and the averaged table fit together.

        Per model (``n_bins_ >= 1``, lengths as documented): inner edges
        strictly increasing, bin estimates in [0, 1], a log evidence below
        ``+inf`` and a weight ``>= 0``, the weights summing to 1 and the most
        likely model weighted most.  The table: thresholds strictly
        increasing, each a model's edge; values between the smallest and
        the largest bin estimate; complements in [0, 1] that add to the values
        to 1 within ``2**-20``.  (Estimates of 0 or 1 are the rounding of
        bins of weight ~1e16 and more.)
        """
        check_is_fitted(self, "values_")
        super()._check_state()
        n_models = check_int_array(self, "n_bins_", minimum=1)
        if n_models == 0:
            raise ValueError("n_bins_ must not be empty")
        n_bins = self.n_bins_.astype(np.int64)
        total = int(n_bins.sum())
        check_float_arrays(self, ("bin_edges_",), length=total - n_models)
        check_float_arrays(self, ("bin_values_",), length=total, unit_interval=("bin_values_",))
        check_float_arrays(self, ("log_evidence_",), length=n_models, finite=False)
        check_float_arrays(self, ("model_weights_",), length=n_models)
        t = check_float_arrays(self, ("thresholds_",))
        check_float_arrays(self, ("values_",), length=t + 1, unit_interval=("values_",))
        # inner edges increase within each model: only the first edge of a
        # model may not exceed the edge before it
        edges = self.bin_edges_
        first = np.cumsum(n_bins - 1)[:-1]
        rises = np.ones(max(edges.shape[0] - 1, 0), dtype=bool)
        rises[first[(first > 0) & (first < edges.shape[0])] - 1] = False
        if (np.diff(edges)[rises] <= 0).any():
            raise ValueError("each model's bin_edges_ must be strictly increasing")
        evidence, weights = self.log_evidence_, self.model_weights_
        if (evidence == np.inf).any():
            raise ValueError("log_evidence_ must be below +inf")
        if (weights < 0).any() or not weights[np.argmax(evidence)] == weights.max() > 0:
            raise ValueError(
                "model_weights_ must be non-negative, largest for the most likely model"
            )
        if not abs(float(weights.sum()) - 1.0) <= 4 * (n_models + 1) * np.finfo(float).eps:
            raise ValueError("model_weights_ must sum to 1")
        check_increasing(self.thresholds_, "thresholds_", strict=True, nonempty=False)
        if not np.isin(self.thresholds_, edges).all():
            raise ValueError("every one of thresholds_ must be a bin edge of a model")
        values = self.values_
        if (values < self.bin_values_.min()).any() or (values > self.bin_values_.max()).any():
            raise ValueError("values_ must lie between the smallest and largest of bin_values_")
        check_float_arrays(self, ("complements_",), length=t + 1, unit_interval=("complements_",))
        check_complements(values, self.complements_, monotone=False)


class _Bins(NamedTuple):
    """The bins of all models, concatenated (model ``i`` owns ``offsets[i]:offsets[i+1]``)."""

    offsets: np.ndarray  # (n_models + 1,)
    first: np.ndarray  # bool: the first bin of its model
    last: np.ndarray  # bool: the last bin of its model
    lo: np.ndarray  # bin b covers distinct scores lo[b] .. hi[b] - 1
    hi: np.ndarray

    @property
    def size(self) -> int:
        return int(self.offsets[-1])

    @classmethod
    def of_models(cls, n_bins, cuts, k) -> _Bins:
        offsets = np.zeros(n_bins.shape[0] + 1, dtype=np.int64)
        np.cumsum(n_bins, out=offsets[1:])
        first = np.zeros(offsets[-1], dtype=bool)
        first[offsets[:-1]] = True
        last = np.zeros(offsets[-1], dtype=bool)
        last[offsets[1:] - 1] = True
        lo = np.zeros(offsets[-1], dtype=np.int64)
        lo[~first] = cuts
        hi = np.full(offsets[-1], k, dtype=np.int64)
        hi[~last] = cuts
        return cls(offsets, first, last, lo, hi)

    def interval_midpoints(self, edges):
        """Midpoint of each bin's score interval, the outer bins reaching 0 and 1."""
        lower = np.zeros(self.size)
        lower[~self.first] = edges
        upper = np.ones(self.size)
        upper[~self.last] = edges
        return 0.5 * lower + 0.5 * upper


def _base_rate(w, a) -> float:
    """The positive fraction of the calibration weight (of any size)."""
    with np.errstate(over="ignore", invalid="ignore"):
        # Running sums of non-negative weights: accurate relative to the totals.
        rate = float(np.cumsum(a)[-1]) / float(np.cumsum(w)[-1])
    if math.isfinite(rate):
        return rate
    # Past the float64 range: the ratio of the totals scaled down by 2**64.
    return _base_rate(np.ldexp(w, -64), np.ldexp(a, -64))


def _evidence(w, a, b, bins, prior, prior_strength):
    """Log marginal likelihood of each model, the estimate of each bin and its complement.

    The weight of each bin is its own sum (:func:`_bin_sums`), within
    ``2 log2(k) 2**-53`` of itself however heavy the rows before it (a
    difference of running sums lost a bin of weight 1 after rows of 1e40);
    positive and negative weights are summed apart, so neither is a
    difference of the other.  A
    bin's term is ``betaln(m + alpha, n + beta) - betaln(alpha, beta)``, the
    quotient of gamma functions of the BDeu score (``alpha + beta`` is the
    bin's prior strength, ``m + n`` its weight), evaluated without the
    cancellation of large ``gammaln`` values.
    """
    pos = _bin_sums(a, bins)
    neg = _bin_sums(b, bins)
    n_bins = np.diff(bins.offsets)
    strength = np.repeat(prior_strength / n_bins, n_bins)
    alpha = strength * prior
    beta = strength * (1.0 - prior)
    with np.errstate(over="ignore", invalid="ignore"):
        terms = betaln(pos + alpha, neg + beta) - betaln(alpha, beta)
        values = (pos + alpha) / ((pos + neg) + (alpha + beta))
        complements = (neg + beta) / ((pos + neg) + (alpha + beta))
    values, complements = paired(values, complements)  # each the more precise
    np.clip(values, _P_LOW, _P_HIGH, out=values)  # then strictly inside (0, 1)
    np.clip(complements, _P_LOW, _P_HIGH, out=complements)
    return np.add.reduceat(terms, bins.offsets[:-1]), values, complements


def _bin_sums(x, bins):
    """Each bin's sum of ``x`` (non-negative), accurate relative to itself.

    The range sums of :func:`~venncal._kernels.averages.range_sums_tree`
    (a difference of running sums loses a light bin after heavy rows: weight
    1 after 1e40 read as 0, leaving the bin at its prior, attack 13), on the
    values divided by a power of two where the total could overflow (a sum
    past the float64 range is then ``inf``).
    """
    e = overflow_shift(x)
    scaled = np.ldexp(x, -e) if e else x
    sums = range_sums_tree(np.ascontiguousarray(scaled), bins.lo, bins.hi)
    if e:
        with np.errstate(over="ignore"):
            sums = np.ldexp(sums, e)
    return sums


def _distinct_models(cuts, first_cut, n_cuts):
    """Return the index of the first model of each distinct partition, in order."""
    if np.unique(n_cuts).shape[0] == n_cuts.shape[0]:
        return np.arange(n_cuts.shape[0])  # different bin counts: all distinct
    seen = set()
    keep = []
    for i in range(n_cuts.shape[0]):
        key = cuts[first_cut[i] : first_cut[i] + n_cuts[i]].tobytes()
        if key not in seen:
            seen.add(key)
            keep.append(i)
    return np.asarray(keep, dtype=np.int64)


def _average_steps(k, gaps, cuts, values, offsets, first, model_weights):
    """Tabulate the weighted average of the models' step functions.

    On the scores' index axis each model is a step function of the distinct
    score index that jumps at its cuts; the table's grid is the union of the
    cuts of models of positive weight, and each grid position's value is
    the weighted sum of the models' values there
    (:func:`~venncal._kernels.averages.step_average`), accurate relative to
    itself however small it is beside its neighbours.
    """
    n_models = model_weights.shape[0]
    model_of_bin = np.repeat(np.arange(n_models), np.diff(offsets))
    later = ~first
    live = model_weights[model_of_bin[later]] > 0
    present = np.zeros(k, dtype=bool)
    present[cuts[live]] = True
    where = np.flatnonzero(present)
    # grid position j >= 1 starts at distinct score where[j - 1]; a bin at its cut
    bin_start = np.zeros(offsets[-1], dtype=np.int64)
    bin_start[later] = np.searchsorted(where, cuts) + 1
    table = step_average(where.shape[0] + 1, bin_start, offsets, values, model_weights)
    # The average lies between the smallest and largest value it averages;
    # clipping removes the rounding of the sums (and keeps 0 < p < 1).
    contributing = model_weights[model_of_bin] > 0
    np.clip(table, values[contributing].min(), values[contributing].max(), out=table)
    return gaps[where - 1], table
