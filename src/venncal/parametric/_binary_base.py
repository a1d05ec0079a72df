"""The score-level base of the binary parametric calibrators (Beta, quadratic logistic)."""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np
from scipy.special import expit, log_expit
from sklearn.exceptions import ConvergenceWarning

from .._base import ScoreCalibrator, check_float_numbers
from .._rows import RowError
from .._validation import Interval, Options, check_scores
from ._binary import Separable, fit_logistic, scaled_class_weights
from ._inputs import (
    EPS,
    EPS_CONSTRAINT,
    ProbaFitScores,
    check_clipped_weight,
    check_open_proba,
    clipped_log_sides,
    clipped_weight,
)

__all__ = ["BinaryParametricCalibrator"]


class BinaryParametricCalibrator(ProbaFitScores, ScoreCalibrator):
    """A logistic regression of the label on features of the score (a subclass names them).

    A subclass defines ``_design(q, k)`` -> ``(X, intercept, nonneg, store)``:
    the features of the validated calibration scores ``q`` (``k`` distinct
    scores of nonzero weight), whether an intercept is fitted, which
    coefficients must be ``>= 0``, and ``store(coef, c)``, which sets the
    fitted attributes; and ``_logit(q)``, the fitted log-odds of test scores.
    """

    _state: tuple[str, ...] = ("loss_", "grad_norm_", "n_iter_", "converged_", "clipped_weight_")
    #: Parameters newer than the class's first saved models: left out of a file at their
    #: default, and a file without them loads with it.
    _params_added: ClassVar[dict] = {"eps": EPS}
    #: Fitted attributes newer than the first saved models (filled by ``_derive_state``).
    _state_added: ClassVar[dict[str, str]] = {"clipped_weight_": "eps"}
    _common_constraints: ClassVar[dict] = {
        "score": [Options(("proba", "logit"))],
        "eps": EPS_CONSTRAINT,
        "tol": [Interval("real", 0.0, None, closed="neither")],
        "max_iter": [Interval("int", 1, None)],
    }

    def _fit_from(self, summary) -> None:
        name = type(self).__name__
        q = summary.scores
        moved = np.zeros(q.shape, dtype=bool)
        if self.score == "proba":
            check_open_proba(q, name, "summary's distinct scores", eps=float(self.eps))
            moved = clipped_log_sides(q, float(self.eps))[2]
        c1, c0 = scaled_class_weights(summary.positive_weights, summary.negative_weights)
        keep = (c1 + c0) > 0.0
        q, c1, c0, moved = q[keep], c1[keep], c0[keep], moved[keep]
        if not (c1.any() and c0.any()):
            if summary.positive_weights.any() and summary.negative_weights.any():
                raise ValueError(
                    f"{name}: both classes have nonzero weight, but one class's weights "
                    "vanish when scaled beside the largest weight (a ratio beyond float64's "
                    "range); rescale sample_weight to a narrower range"
                )
            raise ValueError(
                f"{name}: the calibration labels show a single class (with nonzero weight): "
                "the log loss falls toward 0 as the map tends to the constant 0 or 1, and no "
                "parameters maximise the likelihood; calibrate on both classes"
            )
        # distinct scores after clipping: those below eps (above 1 - eps) are one point
        k = q.shape[0] - max(int(np.count_nonzero(moved & (q < 0.5))) - 1, 0) \
            - max(int(np.count_nonzero(moved & (q >= 0.5))) - 1, 0)
        X, intercept, nonneg, store = self._design(q, k)
        try:
            fit = fit_logistic(X, c1, c0, intercept=intercept, nonneg=nonneg,
                               tol=self.tol, max_iter=self.max_iter, settle=True)
        except Separable as exc:
            raise ValueError(f"{name}: {exc}; no finite {name} fits these scores"
                             + _far_from_zero(q)) from None
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None
        store(fit.coef, fit.intercept)
        _warn_cancelling(name, X, fit.coef, fit.intercept if intercept else 0.0)
        self.loss_ = fit.loss
        self.grad_norm_ = fit.grad_norm
        self.n_iter_ = fit.n_iter
        self.converged_ = fit.converged
        self.clipped_weight_ = clipped_weight(summary.weights[keep], moved)
        if not fit.converged:
            warnings.warn(
                f"{name} did not converge: {fit.why}; the fit is where the search stopped",
                ConvergenceWarning, stacklevel=4,
            )

    def _check_test_scores(self, scores):
        if self.score == "logit":
            return check_scores(scores)
        return _proba_scores(scores, type(self).__name__)

    def _derive_state(self) -> None:
        """A model saved before ``eps`` existed was fitted inside (0, 1): nothing moved."""
        if not hasattr(self, "clipped_weight_"):
            self.clipped_weight_ = 0.0

    def _check_state(self) -> None:
        super()._check_state()
        check_float_numbers(self, ("loss_",), minimum=0.0)
        check_clipped_weight(self)
        check_float_numbers(self, ("grad_norm_",), minimum=0.0)
        if not isinstance(self.converged_, bool) or not isinstance(self.n_iter_, int):
            raise ValueError("converged_ must be a bool and n_iter_ an int")

    def _predict_p(self, q):
        return expit(self._logit(q))

    def _predict_log_p(self, q):
        return log_expit(self._logit(q))

    def _predict_p_and_complement(self, q):
        u = self._logit(q)
        return expit(u), expit(-u)


def _warn_cancelling(name: str, X: np.ndarray, coef, intercept: float) -> None:
    """Warn where the map's terms on the calibration rows are so large that their sum, the
    log-odds, is held in float64 to more than ``1e-6`` only (attack 51 F8, F9: logits offset by
    1e12 gave terms near 2e12 cancelling to O(1), and predictions 4 % off the stored map)."""
    coef = np.asarray(coef, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        terms = np.abs(X) @ np.abs(coef) + abs(float(intercept))
        u = X @ coef + float(intercept)
    # rows whose log-odds are not saturated (|u| < 40: the error moves the probability)
    terms = terms[np.isfinite(terms) & (np.abs(u) < 40.0)]
    top = float(np.max(terms)) if terms.size else 0.0
    err = (X.shape[1] + 2) * 2.0**-53 * top
    if err > 1e-6:
        warnings.warn(
            f"{name}: the scores lie far from 0 for their spread: the map's terms reach "
            f"{top:.3g} on them and cancel to log-odds near 0, which float64 holds to "
            f"+-{err:.2g} only, so the fit and every prediction lose digits; centre or rescale "
            "the scores first", UserWarning, stacklevel=5)


def _far_from_zero(q: np.ndarray) -> str:
    """A note for a separation verdict on scores offset far from 0 for their spread (3e7 + N(0,
    1): the terms of the map cancel, and interleaved classes read as separable: 54 F8)."""
    # halves: the spread of scores at +-1e308 is past the doubles (a RuntimeWarning)
    spread = 2.0 * float(0.5 * np.max(q) - 0.5 * np.min(q)) if q.size else 0.0
    center = float(np.max(np.abs(q))) if q.size else 0.0
    if not (spread > 0 and center > 2.0**20 * spread):
        return ""
    return (f"; or the scores lie so far from 0 for their spread (up to {center:.6g}, over "
            f"{spread:.3g}) that float64 cannot weigh the map's terms on them: centre or "
            "rescale the scores first (subtract a constant near their middle)")


def _proba_scores(scores, owner: str) -> np.ndarray:
    """Test probabilities: finite, in [0, 1] (0 and 1 map to the fitted map's limits)."""
    q = check_scores(scores)
    bad = (q < 0.0) | (q > 1.0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise RowError(
            f"{owner}: with score='proba' the scores must be probabilities in [0, 1]; found "
            f"{int(bad.sum())} outside, the first ", i, f" ({float(q[i])!r})", at_index=True,
            count=int(bad.sum()),
        )
    return q
