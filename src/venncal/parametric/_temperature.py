"""Temperature scaling (Guo et al. 2017): one inverse temperature for all K classes."""

from __future__ import annotations

import math
import warnings
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .._kernels.parametric import softmax_scaled, temperature_terms
from .._newton import REL_STEP, minimize_convex_nonnegative
from .._rows import RowError
from .._score_names import check_frame, from_frame
from .._validation import NONE, Check, Interval, Options, ParamsMixin, check_sample_weight
from ._blocks import BLOCK_ROWS, BlockPool
from ._inputs import (
    EPS,
    EPS_CONSTRAINT,
    check_clipped_weight,
    check_fitted_classes,
    class_codes,
    class_score_rows,
    clipped_weight,
    power_of_two_scale,
)

__all__ = ["BLOCK_ROWS", "TemperatureCalibrator", "inverse_temperature"]


class TemperatureCalibrator(ParamsMixin, BaseEstimator):
    """Temperature scaling of K class scores: ``softmax(z / T)`` with one fitted ``T > 0``.

    Fits the inverse temperature ``beta = 1 / T >= 0`` that minimises the
    weighted log loss ``sum_i w_i [logsumexp(beta z_i) - beta z_{i,y_i}]``
    (Guo et al. 2017), a convex function of ``beta``: its derivative is the
    mean of ``E[z_i] - z_{i,y_i}`` under ``softmax(beta z_i)`` and its second
    derivative the mean variance of ``z_i`` there.  The minimiser is found
    by Halley's method (the third derivative is the mean third central
    moment, one more product per score) kept inside a bracket (Newton, then
    bisection, when a step leaves it) until ``|beta * d/dbeta| <= tol`` (a
    scale-free stationarity test: multiplying every score by a constant
    divides ``beta`` by it and leaves the test unchanged) with the minimiser
    pinned within ``1e-6`` of ``beta`` (by Newton's step, allowing for the
    derivative's rounding error, or by the bracket: this matters only where
    the loss is flat relative to ``beta``, e.g. rows whose scores span
    1e300), or until the bracket is a few ulps wide.  On many rows the
    search starts at the minimiser for every ``m``-th row (a fixed stride, a
    sixteenth of the scores or fewer), so that a fit takes about three
    passes over all the scores.

    Temperature scaling never changes which class ranks first, so it keeps
    the accuracy of the scores and corrects only their confidence.

    Parameters
    ----------
    score : {"logit", "proba"}, default="logit"
        The kind of the scores: softmax logits (any finite reals; a
        constant added to a row changes nothing), or probabilities (rows
        in [0, 1] summing to 1 within ``K * 2**-23``; temperature scaling
        then acts on their logarithms, ``p_k**beta`` renormalised, of the
        probabilities raised to at least ``eps``).  Never guessed from the values.
    eps : float in [0, 0.5), default=1e-7
        With ``score="proba"``: every probability below ``eps`` is raised to
        it, at fit and at predict, so that a label of probability 0 (a random
        forest's or naive Bayes's) has a finite loss (docs/parametric.md,
        "Probabilities of 0 and 1").  ``eps=0``: a 0 stays 0 at predict,
        and ``fit`` refuses a row whose label has probability 0.
    classes : array-like of shape (K,), default=None
        The class labels in the order of the score columns; default: the
        labels of ``y``, sorted (numbers as numbers, text as text), which
        must then be K of them.
    tol : float, default=1e-12
        The stationarity tolerance on ``|beta * d/dbeta|`` of the mean log
        loss (the minimiser must also be pinned within ``1e-6`` of ``beta``).
    max_iter : int, default=200
        The largest number of objective evaluations of the search; reaching
        it without meeting ``tol`` warns (``ConvergenceWarning``) and sets
        ``converged_`` to False.
    n_jobs : int, default=None
        Threads that evaluate the objective (None: every usable core).  The
        rows are summed in fixed blocks in a fixed order, so the fit is the
        same, bit for bit, for any ``n_jobs``.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    inverse_temperature_ : float
        ``beta``; 0 when the scores carry no information the temperature
        can use (then every prediction is uniform over the classes of
        nonzero probability, with a warning).
    temperature_ : float
        ``1 / beta`` (inf when ``beta`` is 0).
    loss_ : float
        The weighted mean log loss (natural log) at ``beta``.
    grad_ : float
        The derivative of the mean log loss in ``beta`` at ``beta``.
    n_iter_ : int
        Objective evaluations of the search on all the rows (those on the
        strided sample that gives the start are not counted).
    converged_ : bool
    clipped_weight_ : float
        The total sample weight of the calibration rows with a probability
        raised to ``eps`` (their number when unweighted; 0 for logits).

    Raises
    ------
    ValueError
        For scores whose label always has the largest score (then the log
        loss falls toward its infimum only as the temperature falls toward
        0: no temperature minimises it), for a label of probability 0 when
        ``eps=0`` (infinite log loss at every temperature), and for the input errors
        of the multiclass calibrators (shapes, NaN, labels, weights).

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.parametric import TemperatureCalibrator
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(2000, 3)) * 3         # overconfident logits ...
    >>> y = np.array([rng.choice(3, p=np.exp(r) / np.exp(r).sum()) for r in z / 3])
    >>> cal = TemperatureCalibrator().fit(z, y)     # ... of a model at temperature 3
    >>> round(cal.temperature_, 1)
    3.0
    >>> cal.predict_proba(z[:1]).round(3)
    array([[0.29 , 0.225, 0.485]])
    """

    _state: ClassVar[tuple[str, ...]] = (
        "inverse_temperature_", "loss_", "grad_", "n_iter_", "converged_", "clipped_weight_",
    )
    #: Parameters newer than the class's first saved models: left out of a file at their default.
    _params_added: ClassVar[dict] = {"eps": EPS}
    #: Fitted attributes newer than the first saved models (``_derive_state`` fills them).
    _state_added: ClassVar[dict[str, str]] = {"clipped_weight_": "eps"}
    _parameter_constraints: ClassVar[dict] = {
        "score": [Options(("logit", "proba"))],
        "eps": EPS_CONSTRAINT,
        "classes": [Check(lambda v: v is None or np.ndim(v) == 1,
                          "None or a 1-D array-like of the class labels")],
        "tol": [Interval("real", 0.0, None, closed="neither")],
        "max_iter": [Interval("int", 1, None)],
        "n_jobs": [NONE, Interval("int", 1, None)],
    }

    def __init__(self, *, score="logit", eps=EPS, classes=None, tol=1e-12, max_iter=200,
                 n_jobs=None):
        self.score = score
        self.eps = eps
        self.classes = classes
        self.tol = tol
        self.max_iter = max_iter
        self.n_jobs = n_jobs

    def fit(self, scores, y, sample_weight=None):
        """Fit the inverse temperature on class scores (n, K) and labels.

        Parameters
        ----------
        scores : array-like of shape (n_samples, K)
            Class scores of the kind ``score``, one column per class
            (``np.asarray`` or DLPack arrays; float32 kept as float32).
        y : array-like of shape (n_samples,)
            Class labels, any coding.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights.

        Returns
        -------
        self
        """
        self._check_params()
        moved = []
        z, top = class_score_rows(scores, self.score, self.classes, eps=float(self.eps),
                                  moved=moved, wide=True)
        z = np.ascontiguousarray(z)  # the kernel reads a chunk of rows as one run
        n, K = z.shape
        # The kernel sums K products e v with |v| up to a row's spread: past 1.8e308 / (K + 16),
        # fit 2**-k z (beta scales by 2**k, exactly) so that no sum overflows (attack 45 F4)
        shift = 0
        if z.dtype == np.float64 and n:
            # half the spread, which is finite for any row (rows spanning more than the
            # doubles are fitted too: attack 46 F4); -inf entries (probability 0) are skipped
            half = float(np.max(0.5 * top - 0.5 * _lowest_live(z, top)))
            shift = max(0, math.frexp(half)[1] + 1 + (K + 16).bit_length() - 1022)
            if 0.0 < half < 2.0**-500:  # tiny logits: 2**k z (beta scales by 2**-k), so that the
                # slope's terms are not subnormal (logits of 1e-300: beta 47 % off, attack 57 A0)
                finite = np.abs(z[np.isfinite(z)])
                room = 1000 - math.frexp(float(finite.max()) if finite.size else 0.0)[1]
                shift = -max(0, min(-math.frexp(half)[1], room))
            if shift:
                z, top = np.ldexp(z, -shift), np.ldexp(top, -shift)
        classes, codes = class_codes(y, n, self.classes, K)
        given = check_sample_weight(sample_weight, n)
        clipped = clipped_weight(np.ones(n) if given is None else given, moved[0]) if moved else 0.0
        w = np.ones(n) if given is None else power_of_two_scale(given)
        # weights below 2**-1074 of the largest vanish in float64 (attack 51 F2), below
        # 2**-1022 of it they keep a few bits only (subnormal: attack 54 F7)
        vanished = np.zeros(n, bool) if given is None else (given > 0) & (w == 0)
        damaged = np.zeros(n, bool) if given is None else (given > 0) & (
            np.ldexp(w, math.frexp(float(np.max(given)))[1] - 1) != given)
        note = _vanished_note(vanished)
        label_score = z[np.arange(n), codes].astype(np.float64) - top
        live = w > 0
        if np.any(label_score[live] == -np.inf):
            i = int(np.flatnonzero(live & (label_score == -np.inf))[0])
            raise RowError(
                "", i, f" gives its label {classes[codes[i]].item()!r} probability 0: the log "
                "loss is infinite at every temperature"
            )
        if np.all(label_score[live] == 0.0):
            if np.all(z.min(axis=1)[live] == top[live]):
                raise ValueError(
                    "every row's scores are tied (the same for every class): the log loss is "
                    f"log {K} at every temperature, so the rows choose no temperature; fit on "
                    "rows whose scores differ between classes" + note
                )
            raise ValueError(
                "every row's label has the row's largest score: the log loss falls as the "
                "temperature falls toward 0, and no temperature minimises it (the scores "
                "separate the classes on these rows)" + note
            )
        total = float(np.sum(w))

        # A scale-free start: the inverse of the weighted mean distance of the
        # label's score below its row's top (the scores' own unit).
        gap = -label_score[live]
        with np.errstate(over="ignore"):
            mean_gap = float(np.average(gap, weights=w[live]))
        if mean_gap == np.inf:  # gaps near the largest double: averaged in units of the largest
            top_gap = float(gap.max())
            mean_gap = float(np.average(gap / top_gap, weights=w[live])) * top_gap
        # gaps below 1/1.8e308 (subnormal): from the largest double, not from 1, which the
        # search doubled once per evaluation (2**200 after 200: attack 45 F1)
        tiny = mean_gap < 1.0 / _MAX  # (0 too: a mean of subnormal gaps can round to 0)
        start = 1.0 / mean_gap if not tiny and mean_gap < np.inf else 1.0
        start = _MAX if tiny else _subsample_start(z, top, codes, w, start, self.n_jobs)
        # The derivative is the mean of mu_i - c_iy, both <= 0: its rounding error is
        # within (K + 16) eps of the mean of |mu_i| + |c_iy| = 2 mean_gap - g.
        unit = (K + 16) * 2.0**-52

        def g_error(g):
            return unit * (2.0 * mean_gap - g) if mean_gap < math.inf else math.inf

        with _blocked_terms(z, top, codes, w, total, self.n_jobs) as terms:
            result = minimize_convex_nonnegative(terms, start=start, tol=self.tol,
                                                 max_iter=self.max_iter, g_error=g_error)
        if tiny and (result.x == 0.0 or (result.g < 0.0 and result.x == _MAX)):
            # the slope rounds to 0 at beta = 0, or still falls at the largest double (the
            # search's start: a minimiser in (MAX/2, MAX) is found, attack 46 F8)
            raise ValueError(
                "TemperatureCalibrator: the label's scores lie on average less than "
                f"1/1.8e308 below their rows' largest (mean gap {mean_gap:.3g}), closer than "
                "float64 can weigh (the inverse "
                f"temperature would be near or past {_MAX:.3g}"
                + (", and the log loss's slope rounds to 0" if result.x == 0.0 else "")
                + "); multiply the scores by a positive constant (the inverse temperature "
                "scales by its inverse)")
        if damaged.any():
            _warn_vanished(given, damaged, z, top, K, result, total, g_error(result.g))
        if shift:  # back to the scores' unit: beta 2**-k, its derivative 2**k (saturated at
            # the largest double where it passes it: attack 51 F1)
            g = math.copysign(_MAX, result.g) if shift > 0 and abs(result.g) > math.ldexp(
                _MAX, -shift) else math.ldexp(result.g, shift)
            try:
                x = math.ldexp(result.x, -shift)
            except OverflowError:  # (tiny logits scaled up: a minimiser past 1.8e308)
                raise ValueError(
                    "TemperatureCalibrator: the label's scores lie on average less than "
                    f"1/1.8e308 below their rows' largest (mean gap "
                    f"{math.ldexp(mean_gap, shift):.3g}), closer than float64 can weigh (the "
                    f"inverse temperature would be near or past {_MAX:.3g}); multiply the "
                    "scores by a positive constant (the inverse temperature scales by its "
                    "inverse)") from None
            result = result._replace(x=x, g=g)
        self.classes_ = classes
        self.inverse_temperature_ = float(result.x)
        self.temperature_ = np.inf if result.x == 0.0 else 1.0 / result.x
        self.loss_ = float(result.f)
        self.grad_ = float(result.g)
        self.n_iter_ = int(result.n_iter)
        self.converged_ = bool(result.converged)
        self.clipped_weight_ = clipped
        if not result.converged:
            stat = abs(result.x * result.g)
            why = (f"|beta * gradient| = {stat:.3g} > tol={self.tol:g}" if not stat <= self.tol
                   else f"|beta * gradient| = {stat:.3g} is within tol={self.tol:g}, but the "
                   "loss is so flat there that the minimiser is not yet pinned within "
                   f"{REL_STEP:g} of beta")
            warnings.warn(
                f"TemperatureCalibrator did not converge in max_iter={self.max_iter} "
                f"evaluations ({why})", ConvergenceWarning, stacklevel=2,
            )
        if result.x == 0.0:
            warnings.warn(
                "the log loss is smallest at infinite temperature: the scores carry no "
                "information the temperature can use, and every prediction is uniform over "
                "the classes of nonzero probability", UserWarning, stacklevel=2,
            )
        return from_frame(self, scores)  # a DataFrame's column names, or none (arrays)

    def _derive_state(self) -> None:
        """Set ``temperature_`` from the loaded ``inverse_temperature_`` (for :func:`venncal.load`)."""
        if not hasattr(self, "clipped_weight_"):  # saved before eps existed: nothing moved
            self.clipped_weight_ = 0.0
        beta = self.inverse_temperature_
        if not (isinstance(beta, float) and 0.0 <= beta < np.inf):
            raise ValueError(f"inverse_temperature_ must be a finite float >= 0; got {beta!r}")
        self.temperature_ = np.inf if beta == 0.0 else 1.0 / beta

    def _check_state(self) -> None:
        """Raise ``ValueError`` unless a reloaded model is one ``fit`` can produce."""
        check_fitted_classes(self.classes_, self.classes)
        if not isinstance(self.converged_, bool) or not isinstance(self.n_iter_, int):
            raise ValueError("converged_ must be a bool and n_iter_ an int")
        if not (np.isfinite(self.loss_) and np.isfinite(self.grad_)):
            raise ValueError("loss_ and grad_ must be finite")
        check_clipped_weight(self)

    def predict_proba(self, scores) -> np.ndarray:
        """Return ``softmax(beta z)`` for class scores (n, K), rows summing to 1.

        Parameters
        ----------
        scores : array-like of shape (n_samples, K)

        Returns
        -------
        ndarray of shape (n_samples, K)
        """
        check_is_fitted(self, "inverse_temperature_")
        check_frame(self, scores)  # a DataFrame's columns at their recorded places (54 F9)
        z, top = class_score_rows(scores, self.score, self.classes_, fitted=True,
                                  eps=float(self.eps), wide=True)
        out = np.empty(z.shape, dtype=np.float64)
        beta = float(self.inverse_temperature_)
        if beta < 2.0**-1000 and z.dtype == np.float64:
            # a row spanning more than the doubles: its differences z - top overflow, where
            # beta (z - top) = (2 beta) (z / 2 - top / 2) does not (the halves are exact
            # there).  From 2**-1000 on, beta times such a difference is below -746:
            # the kernel's probability 0 for an overflowed difference is then exact.
            with np.errstate(over="ignore"):
                past = ~(top - _lowest_live(z, top) < np.inf)
            if past.any():
                z, top, beta = np.ldexp(z, -1), np.ldexp(top, -1), 2.0 * beta
        with BlockPool(z.shape[0], self.n_jobs, "temperature") as pool:
            pool.run(lambda b, lo, hi: softmax_scaled(z, top, beta, lo, hi, out))
        return out

    def predict(self, scores) -> np.ndarray:
        """Return the class of ``classes_`` with the largest calibrated probability."""
        return self.classes_[np.argmax(self.predict_proba(scores), axis=1)]


class _blocked_terms:
    """The mean objective and its first three derivatives, summed block by block.

    A context manager owning the threads (see :class:`._blocks.BlockPool`);
    the block sums are added in block order, whatever thread computed them.
    """

    def __init__(self, z, top, codes, w, total, n_jobs):
        self.blocks = BlockPool(z.shape[0], n_jobs, "temperature")
        self.parts = np.zeros((len(self.blocks), 4))
        self.args = (z, top, codes, w)
        self.total = total

    def __enter__(self):
        self.blocks.__enter__()
        return self

    def __exit__(self, *exc):
        return self.blocks.__exit__(*exc)

    def __call__(self, beta: float) -> tuple[float, float, float, float]:
        """The mean log loss and its first three derivatives at ``beta``."""
        def block(b, lo, hi):
            temperature_terms(*self.args, beta, lo, hi, self.parts[b])

        self.blocks.run(block)
        f, g, h, q = (float(v) for v in self.parts.sum(axis=0) / self.total)
        return f, g, h, q


_MAX = float(np.finfo(np.float64).max)


def _vanished_note(vanished: np.ndarray) -> str:
    """The note of refusals when weights vanished in float64 (empty if none did)."""
    count = int(np.count_nonzero(vanished))
    if not count:
        return ""
    return (f" ({count} row(s) of positive weight below 2**-1074 times the largest weight "
            "count as weight 0: float64 cannot hold their ratio)")


def _warn_vanished(given, damaged, z, top, K, result, total, g_err) -> None:
    """Warn when rows whose weight vanished or rounded could move the fitted loss.

    Weights below 2**-1022 of the largest are subnormal once scaled: they are
    rounded by up to 2**-1075 (a few bits left: attack 54 F7), or to 0 below
    2**-1074 (attack 51 F2).  A row's term of the weighted log loss is at most
    ``w (log K + beta spread)``: with logits near the largest double the
    rounding of a weight of 2**-1100 can still count.  Its pull on the slope,
    which sets the minimiser, is at most ``w spread``: beside rows whose
    slope is tiny (logits of 1e-200) it can move beta (1-2 % for a weight of
    2**-1030 beside 2**40 at logits of 1e124: attack 56 F8), so that is
    weighed against the slope's own rounding ``g_err`` too.
    """
    rows = np.flatnonzero(damaged)
    spread = top[rows] - _lowest_live(z[rows], top[rows])
    with np.errstate(over="ignore", divide="ignore"):
        # log2(log K + beta spread), in logs: beta spread passes the doubles (1e200 x 1e108)
        bound = np.logaddexp2(math.log2(math.log(K)), np.log2(result.x) + np.log2(spread))
        exp = math.frexp(float(np.max(given)))[1] - 1  # power_of_two_scale's division
        error = np.minimum(np.log2(given[rows]) - exp, -1075.0)  # each weight's rounding
        reach = float(np.max(error + bound))
        level = math.log2(result.f * total) - 45 if result.f * total > 0 else -math.inf
        pull = float(np.max(error + np.log2(spread)))
        # 2**7 above the loss's and the slope's rounding: where the fit moves by more than the
        # search's own error (~1e-13 relative), not 1e-15 (attack 57 F6: a caution 100x early)
        slack = math.log2(g_err * total) + 7 if g_err * total > 0 else -math.inf
    if reach > level or pull > slack:
        lost = rows.shape[0]
        warnings.warn(
            f"TemperatureCalibrator: sample_weight spans more than float64 can hold: {lost} "
            "row(s) of positive weight below 2**-1022 times the largest weight keep only a "
            "few bits of it, or none below 2**-1074; the log loss of their rows at the fitted "
            "temperature may not be negligible (their scores are far apart), so the fit may "
            "differ from the exact one: give weights of a narrower range",
            UserWarning, stacklevel=3)


def _lowest_live(z: np.ndarray, top: np.ndarray) -> np.ndarray:
    """Each row's smallest score but ``-inf`` (a probability 0, skipped by the kernels)."""
    return np.where(z > -np.inf, z, top[:, None]).min(axis=1)

#: The fewest rows of the strided sample that gives the search its start;
#: a fit on fewer than ``SUBSAMPLE_STRIDE * SUBSAMPLE_ROWS`` rows starts as before.
SUBSAMPLE_ROWS = 2048
#: The stride is the largest power of two not above ``n / SUBSAMPLE_ROWS``, and at least this.
SUBSAMPLE_STRIDE = 16


def _subsample_start(z, top, codes, w, start, n_jobs) -> float:
    """The minimiser over every ``m``-th row (``m`` a power of two >= 16), or ``start``.

    A deterministic function of the data (the stride and the rows are fixed,
    and the sample's sums are blocked like the full ones), so the fit stays
    the same for any ``n_jobs``.  The sample's minimiser is within a few
    per cent of the full one on many rows; the full search from there needs
    two or three Halley steps.  ``start`` is kept when the rows are too few,
    when the sample has no positive weight or no finite positive minimiser,
    or when its search does not converge.
    """
    n = z.shape[0]
    if n < SUBSAMPLE_STRIDE * SUBSAMPLE_ROWS:
        return start
    m = 1 << int(math.floor(math.log2(n / SUBSAMPLE_ROWS)))
    ws = w[::m]
    total = float(np.sum(ws))
    if not total > 0.0:
        return start
    zs = np.ascontiguousarray(z[::m])
    with _blocked_terms(zs, top[::m], codes[::m], ws, total, n_jobs) as terms:
        result = minimize_convex_nonnegative(terms, start=start, tol=1e-6, max_iter=60,
                                             rel_step=0.5)
    if result.converged and 0.0 < result.x < math.inf:
        return float(result.x)
    return start


def inverse_temperature(x: np.ndarray, codes: np.ndarray, w: np.ndarray,
                        n_jobs) -> tuple[float, float]:
    """``(beta, loss)``: the least mean log loss of ``softmax(beta x)`` on rows ``x`` (to 1e-6).

    The start of the vector, matrix and structured scaling fits (a map
    ``softmax(W x + b)`` with ``W = beta I``, ``b = 0``), in the scores' own
    unit: from the identity, logits a thousand times overconfident saturate
    every row's softmax, and the Newton steps stall there (attack 45 F2).
    ``(1.0, inf)`` when the rows have no finite positive minimiser (separable rows).
    """
    x = np.ascontiguousarray(x, dtype=np.float64)
    top = x.max(axis=1)
    gap = top - x[np.arange(x.shape[0]), codes]
    total = float(np.sum(w))
    with np.errstate(over="ignore"):
        mean_gap = float(np.dot(w / total, gap)) if total > 0.0 else 0.0
    if not 0.0 < mean_gap < np.inf or not 1.0 / mean_gap < np.inf:
        return 1.0, math.inf
    with _blocked_terms(x, top, codes, w, total, n_jobs) as terms:
        result = minimize_convex_nonnegative(terms, start=1.0 / mean_gap, tol=1e-6,
                                             max_iter=60, rel_step=1e-3)
    if result.converged and 0.0 < result.x < math.inf:
        return float(result.x), float(result.f)
    return 1.0, math.inf
