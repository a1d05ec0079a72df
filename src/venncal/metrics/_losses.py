"""Proper losses: log loss, Brier loss and RMSE.

Nothing is clipped behind the user's back: a confident wrong prediction has an
infinite log loss, as in Vovk, Petej & Fedorova 2015 (section 6)
and Vovk & Petej 2014 (section 5).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.typing import ArrayLike

from .._validation import NONE, Check, Interval, validate_params
from ._checks import _check_inputs, _mean, _unit_scaled
from ._docstrings import fill

__all__ = ["brier_loss", "log_loss", "log_loss_unit", "rmse"]


def _is_base(value) -> bool:
    if isinstance(value, str):
        return value == "e"
    return (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and value in (2, 10, math.e)
    )


LOG_BASE_CONSTRAINTS = {"base": [Check(_is_base, "2, 10 or e (np.e or 'e')")]}
_LOG_LOSS_CONSTRAINTS = {
    **LOG_BASE_CONSTRAINTS,
    "eps": [NONE, Interval("real", 0, 0.5, "right")],
}
BRIER_SCALE_CONSTRAINTS = {"scale": [Interval("real", 0, None, "neither")]}


def _log_of_base(base) -> float:
    return {2: math.log(2.0), 10: math.log(10.0)}.get(base, 1.0)  # else e


def log_loss_unit(base: float | str) -> str:
    """Return the unit of a log loss in ``base``: "bits", "nats" or "log10".

    Parameters
    ----------
    base : {2, 10, e}
        As for :func:`log_loss` (``np.e``, ``math.e`` or ``"e"`` for the natural log).

    Returns
    -------
    str

    Examples
    --------
    >>> from venncal.metrics import log_loss_unit
    >>> log_loss_unit("e"), log_loss_unit(2), log_loss_unit(10)
    ('nats', 'bits', 'log10')
    """
    validate_params("log_loss_unit", {"base": base}, LOG_BASE_CONSTRAINTS)
    return {2: "bits", 10: "log10"}.get(base, "nats")  # else e


@fill
def log_loss(
    y: ArrayLike, p: ArrayLike, *, base: float | str = "e", eps: float | None = None,
    pos_label=None, sample_weight: ArrayLike | None = None,
) -> float:
    """Mean log loss ``-log_base(p_y)``, where ``p_y`` is the probability of the true label.

    Parameters
    ----------
    {y_p}
    base : {2, 10, e}, default="e"
        Base of the logarithm; ``np.e``, ``math.e`` or ``"e"`` give the natural
        log (nats), as scikit-learn's ``log_loss`` and Vovk & Petej 2014, eq. (12).
        Base 2 (bits; Vovk, Petej & Fedorova 2015, eq. (11)) makes the constant prediction 1/2
        lose exactly 1; base 10 is Vovk, Petej & Gammerman 2021's decimal log loss.
    eps : float in (0, 0.5], default=None
        If given, ``p`` is first clipped to ``[eps, 1 - eps]``.  By default
        nothing is clipped.
    {weights}

    Returns
    -------
    float
        The mean loss; ``inf`` (without a warning) if some observation with
        positive weight was predicted wrongly with certainty (``p = 0`` for
        label 1, or ``p = 1`` for label 0).

    Examples
    --------
    >>> from venncal.metrics import log_loss
    >>> log_loss([0, 1], [0.5, 0.5], base=2)
    1.0
    >>> round(log_loss([0, 1], [0.2, 0.9]), 6)
    0.164252
    >>> log_loss([0, 1], [0.0, 0.0])
    inf
    >>> round(log_loss([0, 1], [0.0, 0.0], base=2, eps=0.01), 4)
    3.3292
    """
    y01, p, w = _check_inputs(y, p, pos_label, sample_weight)
    validate_params("log_loss", {"base": base, "eps": eps}, _LOG_LOSS_CONSTRAINTS)
    return _log_loss(y01, p, w, base, eps)


def _log_loss(y01: np.ndarray, p: np.ndarray, w: np.ndarray | None, base, eps=None) -> float:
    """:func:`log_loss` of validated inputs and parameters."""
    if eps is not None:
        p = np.clip(p, eps, 1.0 - eps)
    with np.errstate(divide="ignore"):  # -log(0) = inf: a certain wrong prediction
        nll = np.where(y01, -np.log(p), -np.log1p(-p))
    return _mean_nll(nll, w, base)


def _mean_nll(nll: np.ndarray, w: np.ndarray | None, base) -> float:
    """The (weighted) mean of the rows' losses ``-ln p_true``, in ``base``.

    ``inf`` if a row of positive weight has an infinite loss (``p_true = 0``);
    rows of zero weight count for nothing, whatever their loss.
    """
    if w is not None:
        nll = np.where(w > 0, nll, 0.0)
    if np.isinf(nll).any():
        return math.inf
    return _mean(nll, w) / _log_of_base(base)


@fill
def brier_loss(
    y: ArrayLike, p: ArrayLike, *, scale: float = 1, pos_label=None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Mean Brier loss ``scale * (y - p)**2``.

    Parameters
    ----------
    {y_p}
    scale : float, default=1
        Positive factor.  Vovk, Petej & Fedorova 2015, eq. (12), uses 4, so that the constant
        prediction 1/2 loses exactly 1.
    {weights}

    Returns
    -------
    float
        The mean loss, ``scale`` times a number in [0, 1].

    Examples
    --------
    >>> from venncal.metrics import brier_loss
    >>> brier_loss([0, 1], [0.5, 0.5], scale=4)
    1.0
    >>> round(brier_loss([0, 1, 1], [0.1, 0.8, 1.0]), 6)
    0.016667
    """
    y01, p, w = _check_inputs(y, p, pos_label, sample_weight)
    validate_params("brier_loss", {"scale": scale}, BRIER_SCALE_CONSTRAINTS)
    return _scaled_by(_mean_square(y01 - p, w), scale)


@fill
def rmse(
    y: ArrayLike, p: ArrayLike, *, pos_label=None, sample_weight: ArrayLike | None = None
) -> float:
    """Root mean square error ``sqrt(mean((y - p)**2))`` (Vovk & Petej 2014, eq. (13)).

    Parameters
    ----------
    {y_p}
    {weights}

    Returns
    -------
    float
        In [0, 1]; the root of :func:`brier_loss` (with ``scale=1``).

    Examples
    --------
    >>> from venncal.metrics import rmse
    >>> rmse([0, 1], [0.5, 0.5])
    0.5
    >>> rmse([0], [1e-300])  # the errors are scaled before they are squared
    1e-300
    """
    y01, p, w = _check_inputs(y, p, pos_label, sample_weight)
    return _root(_mean_square(y01 - p, w))


def _mean_square(diff: np.ndarray, w: np.ndarray | None, rows=None) -> tuple[float, int]:
    """``(m, e)``: the (weighted) mean of ``diff**2`` (or of ``rows(diff)``) is ``m * 4**e``.

    ``diff`` is divided by the power of two ``2**e`` at or above its largest
    size (over the rows whose weight counts) before it is squared: exact, so
    errors of 1e-300 square to a mean near 1 instead of underflowing to 0
    (issue 22); the caller scales the result back with a single rounding
    (:func:`_scaled_by`, :func:`_root`).  For a largest error in
    ``(0.5, 1]`` (``e = 0``) nothing changes, bit for bit, and for others
    only where the old squares were subnormal.  Where rows' squares still
    underflow (errors below ``2**-511`` of the largest) and their weight
    could matter against the mean (within ``2**-60`` of it), the rows'
    weighted squares are summed by exponent instead (:func:`_mean_square_terms`),
    so that a heavy row of tiny error is not lost beside a light row of
    large error.  ``rows`` maps the scaled ``diff`` to each row's sum of
    squares (default ``diff**2``; 2-D ``diff`` for the multiclass errors).
    """
    ws = None if w is None else _unit_scaled(w)  # the weights _mean uses
    kept = diff  # the rows _mean counts (a row of no weight must not set the scale)
    if ws is not None and not ws.all():
        kept = np.where(ws > 0 if diff.ndim == 1 else (ws > 0)[:, None], diff, 0.0)
    scaled, e = _scaled_errors(kept)
    with np.errstate(under="ignore"):
        squares = scaled * scaled if rows is None else rows(scaled)
    m = float(np.mean(squares)) if ws is None else float(np.dot(ws, squares) / np.sum(ws))
    if _may_lose(diff, scaled, e, w, ws, m):
        if w is not None:  # rows of no weight count for nothing, whatever their errors
            diff = np.where(w > 0 if diff.ndim == 1 else (w > 0)[:, None], diff, 0.0)
        return _mean_square_terms(diff, w, rows)
    return m, e


def _may_lose(diff, scaled, e: int, w, ws, m: float) -> bool:
    """Whether rows :func:`_mean_square`'s float mean loses could reach ``2**-60`` of it.

    Rows whose squares underflow (scaled errors below ``2**-511``) add less
    than ``2**-1022`` each to the scaled mean; rows whose weights ``_mean``
    drops or rounds (below ``2**-1022`` of the largest) less than
    ``2**-1021`` times their scaled square, which may be large (their
    errors do not set the scale): at most ``4**-e`` (errors are at most 1).
    Checked row by row only when that bound could matter (never for a mean
    above ``2**-900`` of errors above ``2**-50``).
    """
    n_bits = diff.shape[0].bit_length()
    if m > 0.0 and math.frexp(m)[1] - 60 >= -1021 - 2 * e + n_bits:
        return False
    size = np.abs(scaled) if diff.ndim == 1 else np.max(np.abs(scaled), axis=1)
    bound = -math.inf  # log2 of the most a row can add
    if ((size > 0) & (size < 2.0**-511)).any():
        bound = -1022.0
    if w is not None:
        light = (w > 0) & (ws < 2.0**-1022)
        big = np.abs(diff[light]) if diff.ndim == 1 else np.max(np.abs(diff[light]), axis=1)
        if big.size and big.max() > 0:
            bound = max(bound, -1021.0 + 2 * (math.frexp(float(big.max()))[1] - e))
    if bound == -math.inf:
        return False
    return m == 0.0 or math.frexp(m)[1] - 60 < bound + n_bits


def _mean_square_terms(diff: np.ndarray, w: np.ndarray | None, rows=None) -> tuple[float, int]:
    """:func:`_mean_square` summed by exponent, for any weights and errors.

    Each row's weighted square ``w_i s_i`` as ``f_i 2**g_i`` (the row scaled
    by its own largest error, the weight by its own exponent: nothing is
    rounded away), then ``sum f_i 2**(g_i - G)`` with ``G`` the largest
    ``g_i``, over the sum of the weights scaled likewise.  Terms below
    ``2**-1074`` of the largest are lost, a share below ``2**-1070`` of the
    mean; the weights' sum is that of their largest to ``2**-52``.
    """
    size = np.abs(diff) if diff.ndim == 1 else np.max(np.abs(diff), axis=1)
    f = np.frexp(size)[1]
    own = np.ldexp(diff, -(f if diff.ndim == 1 else f[:, None]))
    part = own * own if rows is None else rows(own)  # in [1/4, K] (0 for a zero row)
    frac, g = np.frexp(np.ones(size.shape[0]) if w is None else w)
    term, t = np.frexp(frac * part)
    exps = g + 2 * f + t
    live = term > 0
    if not live.any():
        return 0.0, 0
    top = int(np.max(exps[live]))
    top_w = int(np.max(g[frac > 0]))
    with np.errstate(under="ignore"):
        total = float(np.sum(np.ldexp(term, np.where(live, exps - top, 0))))
        weight = float(np.sum(np.ldexp(frac, g - top_w)))
    e = (top - top_w) // 2
    return math.ldexp(total / weight, top - top_w - 2 * e), e


def _scaled_errors(diff: np.ndarray) -> tuple[np.ndarray, int]:
    """``(diff / 2**e, e)`` with ``2**e`` the power of two at or above the largest ``|diff|``.

    ``e = 0`` when the largest is in ``(0.5, 1]`` (or all are 0).
    """
    top = max(float(np.max(diff)), -float(np.min(diff))) if diff.size else 0.0  # no |diff| copy
    e = 0
    if 0.0 < top:
        frac, e = math.frexp(top)
        if frac == 0.5:  # a power of two: divided by itself, it is 1
            e -= 1
    return (np.ldexp(diff, -e) if e else diff), e


def _scaled_by(mean_square: tuple[float, int], scale: float = 1.0) -> float:
    """``scale * m * 4**e`` of :func:`_mean_square`, rounded once if it is subnormal."""
    m, e = mean_square
    (fm, em), (fs, es) = math.frexp(m), math.frexp(scale)
    return math.ldexp(fm * fs, em + es + 2 * e)  # fm * fs in [0.25, 1): rounded as m * scale


def _root(mean_square: tuple[float, int]) -> float:
    """``sqrt(m * 4**e)`` of :func:`_mean_square`: ``sqrt(m) * 2**e``."""
    m, e = mean_square
    return math.ldexp(math.sqrt(m), e)
