"""The calibration slope and intercept at the edges a hostile run found (issue 22, attack 29).

- F2: weights spanning 3e7 were refused ("cannot be resolved in float64"): the
  gradient met ``tol`` while Newton's step was still long (only the light rows
  curve the slope), and the search stopped there.  It now goes on until the
  step is short.
- F3: the slope was right to about 8 digits (gradient within ``tol``); three
  Newton steps more give the last bits.
- F5: ``clip`` below ``2**-54`` left ``1 - clip`` = 1, an infinite logit, and
  returned slope 0.0 with only numpy warnings.  The clipped ends are now
  ``+-logit(clip)``.

Reference: the maximum-likelihood fit in 60-digit decimals (Newton's method on
the exact logit of each float ``p``), written out below.
"""

from __future__ import annotations

from decimal import Decimal, localcontext

import numpy as np
import pytest

from venncal.metrics import calibration_slope_intercept


def _sig(t):
    if t >= 0:
        return 1 / (1 + (-t).exp())
    e = t.exp()
    return e / (1 + e)


def _loss(y, x, w, b, c):
    total = Decimal(0)
    for yi, xi, wi in zip(y, x, w):
        t = c + b * xi if yi else -(c + b * xi)  # -log sigmoid(t)
        total += wi * ((1 + (-t).exp()).ln() if t > -50 else -t + (1 + t.exp()).ln())
    return total


def _mle(y, x, w):
    """The two-parameter logistic MLE of y on x (Decimals): Newton steps, halved until the
    loss falls, in 60 digits."""
    b, c = Decimal(0), Decimal(0)
    for _ in range(200):
        g0 = g1 = h00 = h01 = h11 = Decimal(0)
        for yi, xi, wi in zip(y, x, w):
            s = _sig(c + b * xi)
            r, v = wi * (s - yi), wi * s * (1 - s)
            g0, g1 = g0 + r * xi, g1 + r
            h00, h01, h11 = h00 + v * xi * xi, h01 + v * xi, h11 + v
        det = h00 * h11 - h01 * h01
        db, dc = (h11 * g0 - h01 * g1) / det, (h00 * g1 - h01 * g0) / det
        base, step = _loss(y, x, w, b, c), Decimal(1)
        while _loss(y, x, w, b - step * db, c - step * dc) > base and step > Decimal(10) ** -30:
            step /= 2
        b, c = b - step * db, c - step * dc
        if abs(db) + abs(dc) < Decimal(10) ** -45:
            break
    return float(b), float(c)


def _logit(p):
    p = Decimal(float(p))
    return (p / (1 - p)).ln()


@pytest.mark.parametrize("k", [1e7, 3e7, 1e8, 2.0**30])
def test_weights_spanning_a_few_decades_give_the_mle(k):
    y = [0, 1, 0, 1, 1, 0]
    p = [0.2, 0.3, 0.6, 0.7, 0.4, 0.5]
    w = [k, k, 1, 1, 3, 1]
    line = calibration_slope_intercept(np.array(y), np.array(p), sample_weight=np.array(w))
    with localcontext() as ctx:
        ctx.prec = 60
        slope, fit_intercept = _mle(y, [_logit(v) for v in p], [Decimal(v) for v in w])
    assert line.slope == pytest.approx(slope, rel=1e-13, abs=0.0)
    assert line.fit_intercept == pytest.approx(fit_intercept, rel=1e-12, abs=1e-13)


def test_the_slope_has_its_last_digits_beside_a_leverage_point():
    p = [0.7179228243572395, 0.8853723958418406, 0.8010113164400638, 0.1428356073502678,
         1 - 2.0**-53, 0.41063190103883707, 0.9062953716908317, 0.09196390339251835,
         0.9741141247355789, 0.10480471802060887, 0.5, 0.71012471937151, 0.7520241853208298,
         0.249770773372116, 0.7429710586848014, 0.5126431692144413, 0.05610845234167692,
         0.10557851423962052, 0.2846325608575457, 0.8404999677416777, 0.4270711105900855,
         0.2785630331196468, 0.5342034891359867, 0.3336145879548865]
    y = [1, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0]
    line = calibration_slope_intercept(np.array(y), np.array(p))
    with localcontext() as ctx:
        ctx.prec = 60
        slope, fit_intercept = _mle(y, [_logit(v) for v in p], [Decimal(1)] * len(p))
    # was 3.418256552986615 against 3.4182565967738405 (1.3e-8 relative)
    assert line.slope == pytest.approx(slope, rel=1e-14, abs=0.0)
    assert line.fit_intercept == pytest.approx(fit_intercept, rel=1e-14, abs=0.0)


def test_the_slope_has_its_last_digits_beside_far_logits_and_weights_near_2_53():
    # attack 33 F6: p of 1e-300 (logit -691) and 1e-17 among ordinary forecasts; the fit stopped
    # at gradient 6.6e-13 with the slope 7.5e-10 off, and the polishing Newton step that took
    # the gradient to 4.8e-16 was refused because the loss's rounding (2e-14) "raised" it
    p = [0.2311051868246631, 0.4496442952536005, 1e-17, 0.6864368405867622,
        0.04770355750606621, 1e-17, 0.6799416553538078, 0.12068644283707546, 0.1,
        0.9999999999999999, 0.4112669883264877, 0.3313717689876547, 0.9999999999999999, 0.9,
        0.5401650248527955, 0.624843513671861, 0.01, 0.05642784221346139,
        0.8123094334807228, 0.5288092050691132, 0.25, 0.7924350416955073,
        0.9196473209311538, 1e-17, 0.05550600113504629, 1e-300, 0.01, 0.73531555718748,
        0.8049252790347754, 0.6621167701451044]
    y = [0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0, 0, 1,
        1, 1]
    w = [9007199254740990.0, 9007199254740992.0, 9007199254740990.0, 9007199254740990.0,
        9007199254740990.0, 9007199254740992.0, 9007199254740992.0, 9007199254740990.0,
        9007199254740991.0, 9007199254740992.0, 9007199254740989.0, 9007199254740991.0,
        9007199254740992.0, 9007199254740989.0, 9007199254740989.0, 9007199254740989.0,
        9007199254740992.0, 9007199254740992.0, 9007199254740992.0, 9007199254740990.0,
        9007199254740991.0, 9007199254740991.0, 9007199254740990.0, 9007199254740989.0,
        9007199254740989.0, 9007199254740989.0, 9007199254740991.0, 9007199254740990.0,
        9007199254740991.0, 9007199254740991.0]
    line = calibration_slope_intercept(np.array(y), np.array(p), sample_weight=np.array(w))
    with localcontext() as ctx:
        ctx.prec = 60
        slope, fit_intercept = _mle(y, [_logit(v) for v in p], [Decimal(v) for v in w])
    # was 10.26418492769039 against 10.264184935432684
    assert line.slope == pytest.approx(slope, rel=1e-13, abs=0.0)
    assert line.fit_intercept == pytest.approx(fit_intercept, rel=1e-13, abs=0.0)


@pytest.mark.parametrize("clip", [1e-12, 2.0**-53, 2.0**-54, 1e-17, 1e-300, 5e-324])
def test_a_tiny_clip_clips_at_plus_minus_its_logit(clip):
    y = [0, 1, 0, 1, 1, 0, 1, 0]
    p = [0.0, 1.0, 0.3, 0.6, 0.8, 0.4, 0.0, 1.0]
    line = calibration_slope_intercept(np.array(y), np.array(p), clip=clip)
    with localcontext() as ctx:
        ctx.prec = 60
        end = (Decimal(clip) / (1 - Decimal(clip))).ln()
        x = [end if v == 0.0 else -end if v == 1.0 else _logit(v) for v in p]
        slope, _ = _mle(y, x, [Decimal(1)] * len(p))
    # clip = 1e-17 gave slope 0.0 (fit_intercept 0.0, gradient_norm 0.0): 1 - clip rounded to 1
    assert np.isfinite(line.slope) and line.slope > 0.0
    assert line.slope == pytest.approx(slope, rel=1e-12, abs=0.0)


# Attack 35 F0: rows near-separated by heavy weights, made non-separable only by a light row
# (p = 0.323, y = 1, weight 0.034).  The fit stopped where the gradient was within tol relative
# to the total weight, on the heavy rows' near-separation, blind to the rows that bound the
# slope: slope 3.4e10 (gradient_norm 2.6e-12) where the MLE is 85.2, with no error.  A fit is
# now the maximum only if a Newton step there moves no weighted row's logit by more than 1e-6
# (Platt's rule): the search goes on until it does (to the MLE at spans up to 1e37 here), and
# where float64 cannot take it there, it is an error.
_NEAR_SEPARATED = ([0, 0, 1, 1], [1e-17, 0.62, 0.99, 0.323])


def _profile_mle(y, x, w, digits=40):
    """The MLE by bisection on the profile likelihood's derivative (Decimals): for each slope b
    the intercept c solves sum w (sigmoid(c + b x) - y) = 0; b solves the profile's score.
    Slower than :func:`_mle`, but it needs no start near the maximum."""
    def root(f):  # of an increasing f
        lo, hi = Decimal(-1), Decimal(1)
        while f(lo) > 0:
            lo *= 2
        while f(hi) < 0:
            hi *= 2
        while hi - lo > Decimal(10) ** -digits * (1 + abs(lo)):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if f(mid) > 0 else (mid, hi)
        return (lo + hi) / 2

    def intercept(b):
        return root(lambda c: sum(wi * (_sig(c + b * xi) - yi) for yi, xi, wi in zip(y, x, w)))

    def profile_score(b):
        c = intercept(b)
        return sum(wi * (_sig(c + b * xi) - yi) * xi for yi, xi, wi in zip(y, x, w))

    b = root(profile_score)
    return float(b), float(intercept(b))


@pytest.mark.parametrize("w", [
    [10.0**15, 1e10, 10.0**14, 0.034],
    [10.0**33, 1e22, 10.0**30.8, 0.034],
    [3.16e37, 1e25, 1e35, 0.034],  # gave 2114 against 35.53
])
def test_a_light_row_that_bounds_the_slope_gives_the_mle(w):
    y, p = _NEAR_SEPARATED
    line = calibration_slope_intercept(np.array(y), np.array(p), sample_weight=np.array(w))
    with localcontext() as ctx:
        ctx.prec = 60
        slope, fit_intercept = _profile_mle(y, [_logit(v) for v in p], [Decimal(v) for v in w])
    assert line.slope == pytest.approx(slope, rel=1e-12, abs=0.0)  # 15.34, 31.49, 35.53
    assert line.fit_intercept == pytest.approx(fit_intercept, rel=1e-12, abs=0.0)


@pytest.mark.parametrize("w", [  # the slope it gave, and the MLE (_profile_mle, 120 digits)
    [1e299, 1e200, 1e287, 0.034],  # 3.43e10 against 85.23
    [10.0**37.5, 1e25, 10.0**35, 0.034],  # 2204 against 35.53
    [10.0**42, 1e28, 10.0**39.2, 0.034],  # 30116 against 39.57
    [10.0**120, 1e80, 10.0**112, 0.034],  # 121660 against 109.56
])
def test_a_light_row_lost_beside_heavy_ones_is_an_error_not_another_slope(w):
    y, p = _NEAR_SEPARATED
    with pytest.raises(ValueError, match=r"did not converge.*span a factor of .*cannot be "
                                         r"resolved in float64.*rescale sample_weight"):
        calibration_slope_intercept(np.array(y), np.array(p), sample_weight=np.array(w))


def test_a_light_row_lost_among_many_is_an_error():
    # attack 35's 17-row case: slope 8.2e10 against an MLE near 1e3
    p = [0.6201097901854827, 0.3231068120061924, 0.005957895029025592, 1e-17,
         0.8310171216815103, 0.7526193448309737, 0.02767311468643988, 0.6271425707069946, 0.01,
         0.5519186364119885, 0.3625116036249833, 0.9, 0.9386536140258573, 0.7, 0.99,
         0.8184222856355375, 0.26474697566693073]
    y = [0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0]
    w = [5.885716623367596e+202, 0.03430985341191987, 5.63360512144381e+66,
         2.0008962784764218e+299, 1.6317133370346194e+99, 2.428286487856439e+22,
         8.348014000392916e-31, 6.81479894556059e-101, 5.311946293616934e+139,
         2.509989355583314e-99, 1.746374187181866e+188, 2.1261644132844967e+36,
         6.241186853696335e+248, 2.9973572698342265e-31, 1.3086949162549644e+287,
         5.226726849841918e-230, 1.6854107799285528e-128]
    with pytest.raises(ValueError, match="cannot be resolved in float64"):
        calibration_slope_intercept(np.array(y), np.array(p), sample_weight=np.array(w))
