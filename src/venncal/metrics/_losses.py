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
from ._checks import _check_inputs, _mean
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
    size (over the rows of positive weight) before it is squared: exact, so
    errors of 1e-300 square to a mean near 1 instead of underflowing to 0
    (issue 22); the caller scales the result back with a single rounding
    (:func:`_scaled_by`, :func:`_root`).  Rows whose errors are below
    ``2**-511`` of the largest still lose their squares, but their share of
    the mean is below ``2**-1022`` as well.  For a largest error in
    ``(0.5, 1]`` (``e = 0``) nothing changes, bit for bit; otherwise only
    where the old squares were subnormal.  ``rows`` maps the scaled
    ``diff`` to each row's sum of squares (default ``diff**2``).
    """
    scaled, e = _scaled_errors(diff, None if w is None else w > 0)
    return _mean(scaled * scaled if rows is None else rows(scaled), w), e


def _scaled_errors(diff: np.ndarray, rows: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """``(diff / 2**e, e)`` with ``2**e`` the power of two at or above the largest ``|diff|``.

    Over the ``rows`` given (a mask; all by default).  ``e = 0`` when the
    largest is in ``(0.5, 1]`` (or all are 0).
    """
    size = np.abs(diff if rows is None else diff[rows])
    top = float(np.max(size)) if size.size else 0.0
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
