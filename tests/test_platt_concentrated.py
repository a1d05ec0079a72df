"""Platt scaling with most of the weight at one score (issue 22): the MLE or a clear error.

Weight ``2**53`` at one score beside weights of 1 elsewhere: the other
scores are 1e-16 of the loss, so the gradient of the mean loss fell below
its tolerance (1e-12) while their logits were still far off, and Newton's
full steps (taken without a line search below a decrement of 1e-10, meant
for a loss of order one) went astray: ``A = -65.9`` (with a warning) where
the MLE is ``A = 35.8``, ``A = -126.5`` (silently) where it is ``-53.5``.
And ``w - a`` lost a class of weight 1 beside ``2**53`` at one score (``A =
0``, a constant, where the MLE has ``A = 0.207``).  Now a fit stops only
when the Newton step moves no weighted calibration score's logit by more
than ``1e-6``; where the gradient's rounding errors alone could move one
by more than that, the fit is refused with a ``ValueError`` naming
``sample_weight``.  The reference is the MLE in decimal arithmetic of 60 +
twice the weights' decimal span digits (``tests/reference/platt_mle.py``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st
from reference.platt_mle import platt_mle
from sklearn.exceptions import ConvergenceWarning

from venncal.baselines import PlattCalibrator
from venncal._validation import WeightScaleWarning

#: the fitted logit at every calibration score, against the MLE's, relative to 1 + |logit|
#: (the stopping rule leaves at most 1e-6; a converging Newton's method far less)
TOL = 2e-6


def fit(s, y, w, targets="platt"):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        warnings.simplefilter("ignore", WeightScaleWarning)
        return PlattCalibrator(targets=targets, classes=[0, 1]).fit(s, y, sample_weight=w)


def assert_mle(cal, s, y, w, targets="platt"):
    span = max(w) / min(w)
    # rows below 2**-1022 of the heaviest change the MLE by < 1e-300 (relative): left out of
    # the reference's loss where keeping them would cost 600 more digits
    a, b = platt_mle(s, y, w, targets, negligible=2.0**-1022 if span > 1e400 else 0.0)
    kept = np.unique(np.asarray(s, dtype=float))
    want = -(a * kept + b)
    got = -(cal.a_ * kept + cal.b_)
    assert np.all(np.abs(got - want) <= TOL * (1.0 + np.abs(want))), (got, want, (a, b))


@pytest.mark.parametrize(("s", "y", "w", "was"), [
    # warned, A = -65.93 (the wrong sign)
    ([1.8, -1.6, -0.8, -0.5], [0, 1, 1, 0], [1.0, 1.0, 1.0, 2.0**53], -65.93),
    # silent, A = -126.5
    ([2.1, -2.8, 1.4], [1, 0, 0], [1.0, 1.0, 2.0**53], -126.5),
    # silent, A = 76.28
    ([1.3, 0.2, -1.1], [0, 0, 1], [1.0, 1.0, 2.0**53], 76.28),
    # silent, A = 0: w - a lost the negative of weight 1 beside 2**53 at score 0.5
    ([0.5, -1.1, -1.9, 1.0, -1.8, 0.5], [1, 1, 1, 1, 1, 0], [2.0**53] + [1.0] * 5, 0.0),
])
def test_weight_2_53_at_one_score_gives_the_mle(s, y, w, was):
    cal = fit(s, y, w)
    assert abs(cal.a_ - was) > 0.1
    assert_mle(cal, s, y, w)


def test_a_fit_float64_cannot_determine_is_refused_naming_sample_weight():
    # the light positives' scores sum to 0 around the heavy one: their share of the slope's
    # gradient cancels to 1e-25, below the rounding of its terms (it gave A = 0.053, no word,
    # where the MLE is A = 0.092)
    s, y = [-1.6, 2.3, -2.6, -1.0, -2.1, -0.3], [1, 1, 1, 0, 1, 0]
    w = [1.0, 1.0, 1.0, 2.0**53, 1.0, 1.0]
    with pytest.raises(ValueError, match="sample_weight .* float64 cannot determine the fit"):
        fit(s, y, w)


def test_a_stalled_descent_at_extreme_weights_is_refused():
    # the MLE has A = -2761 (probabilities of e^-2070 at the calibration scores); the
    # descent stopped at A = -799 and was taken as converged
    s, y = [0.0, 1.0, 1.0, 0.0, 1.0, 0.5], [0, 1, 0, 0, 1, 0]
    w = [1e300, 1e-310, 1e-310, 1e300, 1e300, 1e300]
    with pytest.raises(ValueError, match="sample_weight .* does not converge"):
        fit(s, y, w)


def _check(rows, targets):
    s, y, w = (list(v) for v in zip(*rows, strict=True))
    y[0], y[1] = False, True
    try:
        cal = fit(s, y, w, targets)
    except ValueError as exc:  # a clear refusal: of the weights, or of an MLE that is not
        assert "sample_weight" in str(exc) or "targets='labels'" in str(exc), str(exc)
        return
    assert_mle(cal, s, [int(v) for v in y], w, targets)


def _rows(weights):
    return st.lists(st.tuples(st.sampled_from([-1.0, 0.0, 0.5, 2.0]), st.booleans(),
                              st.sampled_from(weights)), min_size=2, max_size=6)


TARGETS = st.sampled_from(["platt", "platt", "labels"])


# No shrinking: a failing example is reported as drawn (a failure in a CI rehearsal on
# 2026-11-28 was still shrinking after 20 minutes).  That failure was the reference's: at
# these two examples its Newton steps stalled at 1.5e-39 and 4.4e-40, above its stopping
# rule of 1e-40, for 20,000 iterations (some 300 s) and then raised "did not converge";
# the library's fits were the MLE to 1e-12.
@settings(phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(rows=_rows([1.0, 3.0, 0.1, 2.0**53]), targets=TARGETS)
@example(rows=[(0.5, False, 1.0), (2.0, True, 2.0**53), (2.0, False, 1.0), (0.5, True, 3.0)],
         targets="platt")
@example(rows=[(0.0, False, 0.1), (-1.0, True, 0.1), (0.5, True, 2.0**53)], targets="labels")
def test_weights_near_2_53_at_few_scores_give_the_mle_or_a_clear_error(rows, targets):
    _check(rows, targets)


@pytest.mark.slow  # references of 700 digits: some 3 minutes
@settings(max_examples=25)
@given(rows=_rows([1.0, 2.0**53, 1e300, 1e-310, 0.1]), targets=TARGETS)
def test_weights_at_the_edges_at_few_scores_give_the_mle_or_a_clear_error(rows, targets):
    _check(rows, targets)
