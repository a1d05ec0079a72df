"""Temperature scaling against its definition (tests/reference/parametric.py) and its edges."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from reference.parametric import (
    temperature_bisection,
    temperature_grad,
    temperature_loss,
)
from venncal.parametric import TemperatureCalibrator, VectorScalingCalibrator


def _logits(seed, n=300, K=4, scale=3.0, true_t=2.0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, K)) * scale
    p = np.exp(z / true_t - (z / true_t).max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(K, p=row) for row in p])
    return z, y


@pytest.mark.parametrize("scale", [1e-6, 1.0, 3.0, 1e3])
@pytest.mark.parametrize("K", [2, 3, 10])
def test_loss_equals_a_200_step_bisection_on_the_definition(scale, K):
    z, y = _logits(K, n=200, K=K, scale=scale, true_t=0.5 * scale)
    w = np.random.default_rng(1).integers(0, 4, len(y)).astype(float)
    cal = TemperatureCalibrator().fit(z, y, sample_weight=w)
    beta = temperature_bisection(z, y, w)
    exact = temperature_loss(z, y, w, beta)
    assert cal.converged_
    assert abs(cal.loss_ - exact) <= 1e-10 * exact
    assert abs(temperature_loss(z, y, w, cal.inverse_temperature_) - exact) <= 1e-10 * exact
    assert cal.inverse_temperature_ == pytest.approx(beta, rel=1e-6, abs=0.0)
    assert abs(cal.inverse_temperature_ * temperature_grad(z, y, w, cal.inverse_temperature_)) < 1e-9


def test_recovers_a_known_temperature_and_keeps_the_ranking():
    z, y = _logits(0, n=20_000, K=5, scale=4.0, true_t=4.0)
    cal = TemperatureCalibrator().fit(z, y)
    assert cal.temperature_ == pytest.approx(4.0, rel=0.05, abs=0.0)
    p = cal.predict_proba(z)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=5 * 2.0**-52)
    np.testing.assert_array_equal(p.argmax(axis=1), z.argmax(axis=1))
    np.testing.assert_array_equal(cal.predict(z), cal.classes_[z.argmax(axis=1)])


def test_scale_and_shift_invariance():
    z, y = _logits(2)
    base = TemperatureCalibrator().fit(z, y)
    scaled = TemperatureCalibrator().fit(z * 8.0, y)  # a power of two: exact
    assert scaled.temperature_ == pytest.approx(8.0 * base.temperature_, rel=1e-12, abs=0.0)
    shifted = TemperatureCalibrator().fit(z + np.arange(len(y))[:, None] * 0.25, y)
    assert shifted.inverse_temperature_ == pytest.approx(base.inverse_temperature_, rel=1e-12,
                                                         abs=0.0)


def test_probabilities_act_through_their_logarithms_and_zeros_stay_zero():
    z, y = _logits(3, K=3)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p[:50, 2] = 0.0
    p[:50] /= p[:50].sum(axis=1, keepdims=True)
    y[:50] = np.where(y[:50] == 2, 0, y[:50])
    # eps=0: no clipping, the behaviour before eps (the default clips: test_proba_clip.py)
    cal = TemperatureCalibrator(score="proba", eps=0.0).fit(p, y)
    with np.errstate(divide="ignore"):
        logp = np.log(p)
    beta = temperature_bisection(logp, y, np.ones(len(y)))
    assert cal.inverse_temperature_ == pytest.approx(beta, rel=1e-6, abs=0.0)
    out = cal.predict_proba(p)
    assert (out[:50, 2] == 0.0).all() and (out[50:] > 0).all()
    y_bad = y.copy()
    y_bad[0] = 2
    with pytest.raises(ValueError, match=r"row 0 \(from 0\) gives its label 2 probability 0"):
        TemperatureCalibrator(score="proba", eps=0.0).fit(p, y_bad)


def test_labels_in_any_coding_follow_the_columns():
    z, y = _logits(4, K=3)
    base = TemperatureCalibrator().fit(z, y)
    names = np.array(["cat", "dog", "eel"])
    same = TemperatureCalibrator().fit(z, names[y])
    assert same.inverse_temperature_ == base.inverse_temperature_
    np.testing.assert_array_equal(same.classes_, names)
    order = np.array([9, 5, 7])  # columns labelled 9, 5, 7
    given = TemperatureCalibrator(classes=order).fit(z, order[y])
    assert given.inverse_temperature_ == base.inverse_temperature_
    np.testing.assert_array_equal(given.classes_, order)
    with pytest.raises(ValueError, match="pass classes="):
        TemperatureCalibrator().fit(z[y != 2], y[y != 2])
    absent = TemperatureCalibrator(classes=[0, 1, 2]).fit(z[y != 2], y[y != 2])
    assert absent.converged_


def test_weights_are_frequencies_at_any_scale():
    z, y = _logits(5, n=120)
    k = np.random.default_rng(0).integers(0, 4, len(y))
    weighted = TemperatureCalibrator().fit(z, y, sample_weight=k.astype(float))
    repeated = TemperatureCalibrator().fit(np.repeat(z, k, axis=0), np.repeat(y, k))
    assert weighted.inverse_temperature_ == pytest.approx(repeated.inverse_temperature_,
                                                          rel=1e-12, abs=0.0)
    for factor in (2.0**-1060, 2.0**1000):  # subnormal and huge weights: the same fit
        scaled = TemperatureCalibrator().fit(z, y, sample_weight=k * factor)
        assert scaled.inverse_temperature_ == weighted.inverse_temperature_
    tiny = TemperatureCalibrator().fit(z, y, sample_weight=np.where(k > 0, 1e-310, 0.0) + 0.0)
    ones = TemperatureCalibrator().fit(z[k > 0], y[k > 0])
    assert tiny.inverse_temperature_ == pytest.approx(ones.inverse_temperature_, rel=1e-12, abs=0.0)


def test_float32_logits_are_read_as_their_float64_values():
    z, y = _logits(6)
    z32 = z.astype(np.float32)
    a = TemperatureCalibrator().fit(z32, y)
    b = TemperatureCalibrator().fit(z32.astype(np.float64), y)
    assert a.inverse_temperature_ == b.inverse_temperature_
    np.testing.assert_array_equal(a.predict_proba(z32), b.predict_proba(z32.astype(np.float64)))


def test_dlpack_arrays_are_accepted():
    z, y = _logits(7)

    class OnlyDLPack:  # what a torch or jax CPU tensor offers
        def __init__(self, arr):
            self._arr = arr

        def __dlpack__(self, **kwargs):
            return self._arr.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self._arr.__dlpack_device__()

    cal = TemperatureCalibrator().fit(OnlyDLPack(z), y)
    np.testing.assert_array_equal(
        cal.predict_proba(OnlyDLPack(z)), TemperatureCalibrator().fit(z, y).predict_proba(z)
    )


def test_separable_scores_are_refused_and_useless_scores_warn():
    z, y = _logits(8, K=3)
    with pytest.raises(ValueError, match="no temperature minimises it"):
        TemperatureCalibrator().fit(z, z.argmax(axis=1))
    with pytest.warns(UserWarning, match="infinite temperature"):
        cal = TemperatureCalibrator().fit(z, z.argmin(axis=1))
    assert cal.inverse_temperature_ == 0.0 and cal.temperature_ == np.inf
    np.testing.assert_array_equal(cal.predict_proba(z), np.full(z.shape, 1 / 3))


def test_bad_input_gets_a_clear_error():
    z, y = _logits(9, K=3)
    with pytest.raises(ValueError, match="spans more than the largest double.*below -1.8e308"):
        VectorScalingCalibrator().fit(np.array([[1e308, -1e308, 0.0]] * 3), [0, 1, 2])
    bad = z.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="row 3"):
        TemperatureCalibrator().fit(bad, y)
    with pytest.raises(ValueError, match="rows summing to 1"):
        TemperatureCalibrator(score="proba").fit(np.full((3, 3), 0.5), [0, 1, 2])
    with pytest.raises(ValueError, match="score"):
        TemperatureCalibrator(score="margin").fit(z, y)
    with pytest.raises(ValueError, match="shape"):
        TemperatureCalibrator().fit(z[:, 0], y)
    with pytest.raises(ValueError, match="lengths"):
        TemperatureCalibrator().fit(z, y[:-1])
    with pytest.raises(ValueError, match="sample_weight"):
        TemperatureCalibrator().fit(z, y, sample_weight=-np.ones(len(y)))
    fitted = TemperatureCalibrator().fit(z, y)
    with pytest.raises(ValueError, match="shape"):
        fitted.predict_proba(z[:, :2])


def test_too_few_evaluations_warn_and_say_so():
    z, y = _logits(10)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        cal = TemperatureCalibrator(max_iter=2).fit(z, y)
    assert not cal.converged_


def test_agrees_with_scikit_learn_temperature_scaling():
    from sklearn.calibration import _TemperatureScaling

    z, y = _logits(11, n=2000, K=4)
    ours = TemperatureCalibrator().fit(z, y)
    theirs = _TemperatureScaling().fit(z, y)
    assert ours.inverse_temperature_ == pytest.approx(float(theirs.beta_), rel=1e-6, abs=0.0)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from([1e-300, 1e-6, 1.0, 1e6, 1e300]),
    st.sampled_from([0.0, 1e-310, 1e-300, 1.0, 2.0**53, 1e308]),
)
def test_edges_stay_exact_or_refuse(seed, scale, heavy):
    rng = np.random.default_rng(seed)
    n, K = 40, 3
    z = rng.normal(size=(n, K)) * scale
    y = rng.integers(0, K, n)
    w = np.ones(n)
    w[: n // 4] = heavy
    if not (w > 0).any():
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            cal = TemperatureCalibrator().fit(z, y, sample_weight=w)
    except ValueError as exc:
        assert "no temperature minimises it" in str(exc)
        return
    assert cal.converged_
    p = cal.predict_proba(z)
    assert np.isfinite(p).all() and (p >= 0).all()
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    if cal.inverse_temperature_ > 0:
        exact = temperature_loss(z, y, w, temperature_bisection(z, y, w))
        assert abs(cal.loss_ - exact) <= 1e-10 * max(exact, 1e-300)


def test_the_fit_is_the_same_for_any_number_of_threads():
    from venncal.parametric._temperature import BLOCK_ROWS

    z, y = _logits(12, n=3 * BLOCK_ROWS + 17, K=3)
    fits = [TemperatureCalibrator(n_jobs=j).fit(z, y) for j in (1, 2, 3)]
    assert len({f.inverse_temperature_ for f in fits}) == 1
    assert len({f.loss_ for f in fits}) == 1


def test_save_and_load_bit_for_bit(tmp_path):
    import venncal

    z, y = _logits(13, K=3)
    names = np.array(["a", "b", "c"])
    cal = TemperatureCalibrator(classes=names[::-1]).fit(z, names[::-1][y])
    venncal.save(cal, tmp_path / "t.json")
    back = venncal.load(tmp_path / "t.json")
    assert back.inverse_temperature_ == cal.inverse_temperature_
    assert back.temperature_ == cal.temperature_ and back.converged_ is True
    np.testing.assert_array_equal(back.predict_proba(z), cal.predict_proba(z))
    np.testing.assert_array_equal(back.classes_, cal.classes_)


def test_guide_examples():
    import doctest
    from pathlib import Path

    guide = Path(__file__).resolve().parent.parent / "docs" / "parametric.md"
    if not guide.exists():
        pytest.skip("docs/parametric.md is not next to the tests")
    result = doctest.testfile(str(guide), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted >= 6


def test_misleading_scores_give_infinite_temperature_with_the_sample_start():
    z = (np.random.default_rng(5).normal(size=(40_000, 3)) * 3).astype(np.float32)
    y = z.argmin(axis=1)  # the label always has the lowest score: the derivative at 0 is > 0
    with pytest.warns(UserWarning, match="infinite temperature"):
        cal = TemperatureCalibrator().fit(z, y)
    assert cal.inverse_temperature_ == 0.0 and cal.converged_
    np.testing.assert_array_equal(cal.predict_proba(z[:5]), np.full((5, 3), 1 / 3))


def test_many_rows_take_few_passes_and_any_thread_count_agrees():
    z, y = _logits(14, n=40_000, K=6, scale=4.0, true_t=2.0)
    fits = [TemperatureCalibrator(n_jobs=j).fit(z, y) for j in (1, 2, 3)]
    assert len({(f.inverse_temperature_, f.loss_) for f in fits}) == 1
    assert fits[0].converged_ and fits[0].n_iter_ <= 4  # 6 or more from the old start
    p = [TemperatureCalibrator(n_jobs=j).fit(z, y).predict_proba(z[:5000]) for j in (1, 2)]
    np.testing.assert_array_equal(p[0], p[1])


def test_logits_near_the_largest_double_fit_without_overflow_warning():
    # Regression: the scale-free start averaged gaps of about 1e307 and overflowed
    # (RuntimeWarning, an error under the suite's filterwarnings) before the search began.
    rng = np.random.default_rng(0)
    z = rng.normal(size=(200, 3)) * 1e307
    y = rng.integers(0, 3, 200)
    y[:3] = [0, 1, 2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = TemperatureCalibrator().fit(z, y)
    assert cal.converged_ and np.isfinite(cal.predict_proba(z)).all()


@pytest.mark.parametrize("light", [1e-10, 1e-6, 1e-3])
def test_a_loss_flat_to_every_digit_still_pins_the_minimiser(light):
    # attack 17 F5: two rows of logits 0, 1, 2 and a light row spanning 2e300. Below
    # beta ~ 1e-16 the derivative rounds to 0 (the loss is flat to every digit) down to
    # beta ~ 3.7e-298, where the wide row starts to count. |beta * L'| <= tol held at
    # 7e-12 and the fit stopped there, "converged", predicting certainty on rows of its
    # own scale; now the stop also asks that the minimiser be pinned within 1e-6 of beta.
    Z = np.array([[0.0, 1.0, 2.0], [0.0, 1.0, 2.0], [0.0, 2e300, 0.0]])
    y = np.array([0, 2, 1])
    w = np.array([1.0, 1.0, light])
    cal = TemperatureCalibrator().fit(Z, y, sample_weight=w)
    beta = temperature_bisection(Z, y, w)
    assert 3e-298 < beta < 4e-298
    assert cal.converged_
    assert cal.inverse_temperature_ == pytest.approx(beta, rel=2e-6, abs=0.0)
    np.testing.assert_allclose(cal.predict_proba([[0.0, 1e298, 0.0]]),
                               [[0.023, 0.954, 0.023]], atol=1e-3)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1e100, 1e200, 1e300]),
       st.sampled_from([1e-10, 1e-3, 1.0]))
def test_rows_of_very_different_scales_fit_the_bisection(seed, wide, light):
    # Rows of ordinary logits beside light rows spanning ``wide``: the fitted beta is within
    # 2e-6 of a 200-step bisection on the literal derivative (or the fit refuses clearly).
    rng = np.random.default_rng(seed)
    n, K = 12, 3
    z = rng.normal(size=(n, K)) * 2
    z[: n // 3] *= wide
    y = rng.integers(0, K, n)
    w = np.ones(n)
    w[: n // 3] = light
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            cal = TemperatureCalibrator(classes=[0, 1, 2]).fit(z, y, sample_weight=w)
    except ValueError as exc:
        assert "no temperature minimises it" in str(exc)
        return
    assert cal.converged_
    beta = temperature_bisection(z, y, w)
    assert cal.inverse_temperature_ == pytest.approx(beta, rel=2e-6, abs=0.0)


def test_a_flat_loss_out_of_evaluations_says_why_truly():
    # The attack 17 F5 data with too few evaluations to pin the minimiser: |beta L'| is within
    # tol at the stop, and the warning says so (never "X > tol" with X <= tol).
    Z = np.array([[0.0, 1.0, 2.0], [0.0, 1.0, 2.0], [0.0, 2e300, 0.0]])
    y = np.array([0, 2, 1])
    w = np.array([1.0, 1.0, 1e-10])
    with pytest.warns(ConvergenceWarning, match=r"is within tol=1e-12, but the loss is so flat "
                      r"there that the minimiser is not yet pinned within 1e-06 of beta"):
        cal = TemperatureCalibrator(max_iter=12).fit(Z, y, sample_weight=w)
    assert not cal.converged_
    assert abs(cal.inverse_temperature_ * cal.grad_) <= 1e-12
    z, y = _logits(10)
    with pytest.warns(ConvergenceWarning, match=r"\|beta \* gradient\| = [0-9.e+-]+ > tol=1e-12"):
        cal = TemperatureCalibrator(max_iter=2).fit(z, y)
    assert abs(cal.inverse_temperature_ * cal.grad_) > 1e-12


@pytest.mark.parametrize("scale, light", [(1e-20, 1e-300), (1.0, 1e-308)])
def test_an_unbounded_bracket_does_not_pin_the_minimiser(scale, light):
    # attack 19 F3: while no point of positive derivative was known, hi - lo <= rel_step * hi
    # read inf <= inf, so a flat point counted as pinned: beta 1 (or 33), "converged", silent
    z = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]) * scale
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cal = TemperatureCalibrator(score="logit").fit(z, [1, 0, 0], sample_weight=[1, 1, light])
    assert cal.converged_ or any(issubclass(w.category, ConvergenceWarning) for w in caught)
    assert cal.inverse_temperature_ * scale > 300  # far past the old stop (1 and 33)


@pytest.mark.parametrize("heavy", [1e6, 1e12, 1e15, 1e37, 1e299])
def test_rows_on_an_exponential_tail_fit_the_bisection_in_few_evaluations(heavy):
    # Near-separated rows of heavy weight beside a row of weight 1e-5 of them (sitting 23):
    # the loss falls along an exponential tail from the start (beta = 1 / mean gap = 2.2e5)
    # to the minimiser 2.5, where Halley's steps kept one length (4.1 from beta = 877 on),
    # and the search ran out of its 200 evaluations at beta = 101 (weights 1e15) with a
    # ConvergenceWarning.  A step longer than half the one before now cuts the bracket.
    x = np.log([1e-17, 0.62, 0.99, 0.323]) - np.log1p(-np.array([1e-17, 0.62, 0.99, 0.323]))
    Z, y = np.column_stack([np.zeros(4), x]), np.array([0, 0, 1, 1])
    w = np.array([heavy, heavy * 1e-5, heavy * 1e-1, 0.034])
    cal = TemperatureCalibrator().fit(Z, y, sample_weight=w)
    beta = temperature_bisection(Z, y, w)
    assert cal.converged_ and cal.n_iter_ <= 40
    assert cal.inverse_temperature_ == pytest.approx(beta, rel=2e-6, abs=0.0)


def test_label_gaps_below_the_doubles_reciprocal():
    """Attack 45 F1: mean gaps below 1/1.8e308 started the search at beta = 1, doubled once per
    evaluation (2**199 after 200: uniform predictions, a warning with a wrong reason); now it
    starts at the largest double. Where the minimiser is past it, or the slope rounds to 0,
    the fit refuses and says to rescale."""
    e = 1e-309
    cal = TemperatureCalibrator(classes=[0, 1]).fit(np.array([[e, 0.0], [0.0, e]]), [0, 0],
                                                    sample_weight=np.array([1001.0, 999.0]))
    exact = math.log(1001 / 999) / e  # 2.0000006666670178e306
    assert cal.converged_
    assert abs(cal.inverse_temperature_ / exact - 1) < 1e-5
    with pytest.raises(ValueError, match=r"less than 1/1.8e308 .* near or past .* positive constant"):
        TemperatureCalibrator(classes=[0, 1, 2]).fit(  # minimiser 6.95e308
            np.array([[e, 0.0, 0.0], [0.0, e, 0.0]]), [0, 0], sample_weight=np.array([1001.0, 999.0]))
    with pytest.raises(ValueError, match=r"less than 1/1.8e308"):  # it returned beta = 0
        TemperatureCalibrator(classes=[0, 1]).fit(
            np.array([[5e-324, 0.0], [5e-324, 0.0], [0.0, 5e-324]]), [0, 0, 0])


@pytest.mark.parametrize(("gap", "ntop"), [(1e-307, 10**5), (2.225e-308, 50), (5e-309, 2)])
def test_a_minimiser_between_half_the_largest_double_and_it(gap, ntop):
    """Attack 46 F8: minimisers in (9e307, 1.8e308) were refused as "near or past 1.8e308":
    the bisection's midpoint 0.5 (lo + hi) overflowed, and the refusal took any beta above
    half the largest double for one past it.  Exact: sigma(-beta gap) = 1 / (ntop + 1)."""
    z = np.array([[0.0, -gap]] * (ntop + 1))
    y = np.array([0] * ntop + [1])
    cal = TemperatureCalibrator().fit(z, y)
    exact = math.log(ntop) / gap
    assert exact > 2.0**1023 and cal.converged_
    assert abs(cal.inverse_temperature_ / exact - 1) < 1e-6


@pytest.mark.parametrize(("e", "bound"), [(1021, 7.9), (1022, 3.9)])
def test_rows_spanning_more_than_the_doubles(e, bound):
    """Attack 46 F4: rows spanning more than 1.8e308 were refused ("its softmax is 0 or 1 to
    every digit"), though their inverse temperature is an ordinary double: the fit is exactly
    equivariant, beta(2**e z) = 2**-e beta(z), and so are the predictions."""
    rng = np.random.default_rng(0)
    base = np.clip(rng.normal(size=(200, 5)) * 3, -bound, bound)  # 2**e base stays finite
    p = np.exp(base / 2 - (base / 2).max(axis=1, keepdims=True))
    y = np.array([rng.choice(5, p=row / row.sum()) for row in p])
    ref_cal = TemperatureCalibrator().fit(base, y)
    z = np.ldexp(base, e)
    with np.errstate(over="ignore"):
        assert not np.isfinite(z.max(axis=1) - z.min(axis=1)).all()
    cal = TemperatureCalibrator().fit(z, y)
    assert cal.converged_
    assert cal.inverse_temperature_ == pytest.approx(
        math.ldexp(ref_cal.inverse_temperature_, -e), rel=1e-9, abs=0.0)
    np.testing.assert_allclose(cal.predict_proba(z), ref_cal.predict_proba(base), rtol=0,
                               atol=1e-11)
    assert cal.loss_ == pytest.approx(ref_cal.loss_, rel=1e-12, abs=0.0)


def test_a_row_spanning_near_the_largest_double_keeps_the_minimiser_at_zero():
    """Attack 45 F4: the kernel's sums of K products (each up to a row's spread) overflowed for a
    row spanning ~1e308, made g(0) = -inf, and the search 'converged' on the overflow (a
    subnormal beta, row 0 at 0.357 where the exact minimiser 0 gives 0.05). Such rows are fitted
    at 2**-k times the scores (beta times 2**k, exactly)."""
    K = 20
    z = np.zeros((4, K))
    z[0, 0] = 1e308
    z[1:, :] = np.arange(K) * 0.1
    with pytest.warns(UserWarning, match="smallest at infinite temperature"):
        cal = TemperatureCalibrator(classes=np.arange(K)).fit(z, [1, 0, 1, K - 1])
    assert cal.inverse_temperature_ == 0.0
    np.testing.assert_array_equal(cal.predict_proba(z[:1]), np.full((1, K), 1 / K))
    z = np.array([[1.7e308, 0, 0], [0, 1.7e308, 0], [0, 0, 1], [1, 0, 0]])
    for w in (None, np.array([1e-300, 1e-300, 1, 1])):
        with pytest.warns(UserWarning, match="smallest at infinite temperature"):
            cal = TemperatureCalibrator().fit(z, [1, 0, 2, 0], sample_weight=w)
        assert cal.inverse_temperature_ == 0.0 and cal.grad_ > 0.0
    # a spread of 1e308 with a finite positive minimiser: the same beta as at 2**-10 the scores
    rng = np.random.default_rng(0)
    z = rng.normal(size=(200, 5))
    y = np.array([rng.choice(5, p=np.exp(r) / np.exp(r).sum()) for r in z])
    small = TemperatureCalibrator().fit(z, y)
    big = TemperatureCalibrator().fit(z * 2.0**1017, y)
    assert big.inverse_temperature_ == pytest.approx(small.inverse_temperature_ * 2.0**-1017,
                                                     rel=1e-6, abs=0.0)
    assert big.loss_ == pytest.approx(small.loss_, rel=1e-9)


def test_a_slope_past_the_doubles_at_zero_gives_zero_not_an_overflow():
    # attack 51 F1: the slope at beta = 0 is 2.39e308 in the scores' unit (math.ldexp overflowed)
    with pytest.warns(UserWarning, match="smallest at infinite temperature"):
        cal = TemperatureCalibrator(classes=[0, 1, 2]).fit(
            np.array([[1.79e308, 1.79e308, -1.79e308]]), np.array([2]))
    assert cal.inverse_temperature_ == 0.0 and cal.grad_ == np.finfo(float).max
    assert cal.loss_ == pytest.approx(math.log(3), rel=1e-15)


def test_a_row_loss_past_the_doubles_of_a_small_weight_is_finite(tmp_path):
    # attack 51 F3: the row [1e308, -1e308] of weight 1e-320 has loss 5.4e309 (overflowed to
    # inf before its weight), and load refused the saved model
    import venncal

    z = np.array([[0, 1], [1e308, -1e308], [0, 1.0]])
    cal = TemperatureCalibrator().fit(z, np.array([1, 1, 0]), sample_weight=[1.0, 1e-320, 1e-300])
    assert cal.inverse_temperature_ == pytest.approx(26.93788507, rel=1e-8)
    assert cal.loss_ == pytest.approx(5.5875e-11, rel=1e-4, abs=0.0)
    venncal.save(cal, tmp_path / "m.json")
    assert venncal.load(tmp_path / "m.json").loss_ == cal.loss_


def test_weights_that_vanish_in_float64_are_told():
    # attack 51 F2: a weight below 2**-1074 of the largest counts as 0; beside logits near
    # 1e308 its row's loss is not negligible: a warning, and refusals say it
    z = np.array([[0, 1], [1e308, -1e308], [0, 1.0]])
    y = np.array([1, 1, 0])
    with pytest.warns(UserWarning, match="2 row.* of positive weight below 2..-1022"):
        TemperatureCalibrator().fit(z, y, sample_weight=[1e300, 1e-300, 1e-10])
    with pytest.raises(ValueError, match="largest score.*1 row.* count as weight 0"):
        TemperatureCalibrator(classes=[0, 1]).fit(z[:2], y[:2], sample_weight=[1e300, 1e-300])
    # ordinary logits: such a row is negligible, and nothing is said (with 1e-10 for the last
    # weight, 1e-310 of the largest, it keeps 44 bits and its row is most of the loss: told)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TemperatureCalibrator().fit(np.array([[0, 1], [1, 0], [0, 1.0]]), y,
                                    sample_weight=[1e300, 1e-300, 1.0])


def test_weights_rounded_to_a_subnormal_are_told():
    """Attack 54 F7: a weight of 5 * 2**-1000 beside weights of 2**75 is 2.5 * 2**-1074 once
    scaled, rounded to 2 * 2**-1074; beside a row spanning 3.4e308 it moved beta by 46 %, and
    only weights rounded to 0 were told.  A weight scaled exactly (4 * 2**-1000) is silent."""
    rng = np.random.default_rng(3)
    n = 30
    s = rng.uniform(-1, 1, n) * 1e-14
    y = (rng.random(n) < 1 / (1 + np.exp(-1e14 * s))).astype(int)
    z = np.vstack([[1.7e308, -1.7e308], np.column_stack([np.zeros(n), s])])
    Y = np.r_[1, y]
    for w0 in (5 * 2.0**-1000, 3 * 2.0**-1000):
        with pytest.warns(UserWarning, match="1 row.* keep only a few bits"):
            TemperatureCalibrator().fit(z, Y, sample_weight=np.r_[w0, np.full(n, 2.0**75)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TemperatureCalibrator().fit(z, Y, sample_weight=np.r_[4 * 2.0**-1000, np.full(n, 2.0**75)])


def test_a_rounded_weight_that_pulls_the_minimiser_is_told():
    """Attack 56 F8: a weight of 1.2346 * 2**-1030 beside 2**40 keeps 4 bits once scaled; at
    logits of 1e124 beside others of 1e-200 its loss is negligible but its pull on the slope
    sets beta (1.3 % off): told, as a weight held exactly (2**-1030) is not."""
    import math

    rng = np.random.default_rng(1)
    n = 40
    Z = rng.normal(size=(n, 3))
    y = np.array([rng.choice(3, p=np.exp(2 * r) / np.exp(2 * r).sum()) for r in Z])
    Zx = np.vstack([Z * 1e-200, [1e124, -1e124, 0.0]])
    yx = np.r_[y, 2]
    with pytest.warns(UserWarning, match="keep only a few bits"):
        TemperatureCalibrator().fit(Zx, yx, np.r_[np.full(n, 2.0**40), math.ldexp(1.2345678901, -1030)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TemperatureCalibrator().fit(Zx, yx, np.r_[np.full(n, 2.0**40), math.ldexp(1.0, -1030)])


@pytest.mark.parametrize("r, told", [(1e-13, False), (1e-12, False), (1e-10, True)])
def test_the_rounded_weight_warning_is_not_early(r, told):
    """Attack 57 F6: the caution fired where the rounding moved beta by 1e-15, 100x below the
    search's own error; its loss bound also overflowed (beta spread past the doubles)."""
    d, W = 1e-200, 1.3 * 2.0**-1030
    z = np.array([[0, d]] * 4 + [[0, r * (2.0**40 * d) / W]])
    y = np.array([1, 1, 1, 0, 0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        TemperatureCalibrator().fit(z, y, sample_weight=np.array([2.0**40] * 4 + [W]))
    assert any("keep only a few bits" in str(c.message) for c in caught) == told


def test_tiny_logits_are_scaled_up_before_the_fit():
    """Attack 57 A0: logits near 1e-300 with weights spanning 1e300 (none rounded): the slope's
    terms were subnormal, beta 3.57e302 for an exact 6.7316813453370825e302 (Decimal), 47 %
    low, converged_ True.  The logits are now scaled up by a power of two, as large ones are
    scaled down (beta scales back exactly)."""
    from pathlib import Path

    d = np.load(Path(__file__).parent / "data" / "temperature_tiny_logits.npy")
    z, y, w = d[:, :2], d[:, 2].astype(int), d[:, 3]
    keep = w >= w.max() * 2.0**-1022
    model = TemperatureCalibrator().fit(z[keep], y[keep], sample_weight=w[keep])
    assert model.inverse_temperature_ == pytest.approx(6.7316813453370825e302, rel=2e-6)
    up = TemperatureCalibrator().fit(np.ldexp(z[keep], 600), y[keep], sample_weight=w[keep])
    assert np.ldexp(up.inverse_temperature_, 600) == pytest.approx(6.7316813453370825e302, rel=2e-6)
