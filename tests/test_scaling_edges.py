"""Vector, matrix and structured scaling: invariances, labels, weights, threads, persistence, errors."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import log_softmax
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

import venncal
from venncal.parametric import (
    MatrixScalingCalibrator,
    StructuredMatrixScalingCalibrator,
    VectorScalingCalibrator,
)
from venncal.parametric._blocks import BLOCK_ROWS

CLASSES = [VectorScalingCalibrator, MatrixScalingCalibrator, StructuredMatrixScalingCalibrator]


def _params(cal):
    return [getattr(cal, n) for n in ("scale_", "coef_", "intercept_") if hasattr(cal, n)]


def _logits(seed, n=300, K=3):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, K)) * 2
    p = np.exp(log_softmax(z * 0.6 + np.resize([0.0, 0.4, -0.3], K), axis=1))
    y = np.minimum((p.cumsum(axis=1) < rng.random(n)[:, None]).sum(axis=1), K - 1)
    return z, y


@pytest.mark.parametrize("cls", CLASSES)
def test_a_constant_added_to_a_logit_row_changes_nothing(cls):
    z, y = _logits(0)
    base = cls().fit(z, y)
    shift = np.random.default_rng(1).normal(size=(len(y), 1)) * 50
    moved = cls().fit(z + shift, y)
    for a, b in zip(_params(base), _params(moved)):
        np.testing.assert_allclose(a, b, atol=1e-9)
    np.testing.assert_allclose(base.predict_proba(z), moved.predict_proba(z + shift), atol=1e-12)
    # probabilities softmax(z) with score="proba" are the same model
    p = np.exp(log_softmax(z, axis=1))
    proba = cls(score="proba").fit(p, y)
    for a, b in zip(_params(base), _params(proba)):
        np.testing.assert_allclose(a, b, atol=1e-9)


@pytest.mark.parametrize("cls", CLASSES)
def test_labels_in_any_coding_follow_the_columns(cls):
    z, y = _logits(2)
    base = cls().fit(z, y)
    names = np.array(["cat", "dog", "eel"])
    same = cls().fit(z, names[y])
    for a, b in zip(_params(base), _params(same)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(same.predict(z), names[base.predict_proba(z).argmax(axis=1)])
    order = np.array([9, 5, 7])
    given_ = cls(classes=order).fit(z, order[y])
    np.testing.assert_array_equal(given_.classes_, order)
    for a, b in zip(_params(base), _params(given_)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("cls", CLASSES)
def test_a_class_absent_from_y_is_refused(cls):
    z, y = _logits(3)
    keep = y != 2
    with pytest.raises(ValueError, match="pass classes="):
        cls().fit(z[keep], y[keep])
    with pytest.raises(ValueError, match=r"class\(es\) \[2\] have no row of positive weight"):
        cls(classes=[0, 1, 2]).fit(z[keep], y[keep])
    w = np.where(y == 2, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"\[2\] have no row of positive weight"):
        cls().fit(z, y, sample_weight=w)


@pytest.mark.parametrize("cls", CLASSES)
def test_a_class_whose_weights_vanish_beside_the_largest_is_named_truly(cls):
    # attack 17 F6: rows of weight 1e-300 beside one of 1e308 have positive weight, but it
    # vanishes when the weights are scaled to the largest; the message must not say "no row
    # of positive weight"
    z, y = _logits(5, n=40)
    y[5] = 0
    w = np.full(40, 1e-300)
    w[5] = 1e308
    with pytest.raises(ValueError, match=r"class\(es\) \[1, 2\] have no row of weight above "
                       r"2\*\*-1074 times the largest weight \(1e\+308; theirs are at most "
                       r"1e-300\)") as info:
        cls().fit(z, y, sample_weight=w)
    assert "positive weight" not in str(info.value)
    w[y == 2] = 0.0  # one class at weight 0, one vanishing: the message is about both
    with pytest.raises(ValueError, match=r"\[1, 2\] have no row of weight above 2\*\*-1074"):
        cls().fit(z, y, sample_weight=w)


@pytest.mark.parametrize("cls", CLASSES)
def test_weights_are_frequencies_at_any_scale(cls):
    z, y = _logits(4, n=150)
    k = np.random.default_rng(0).integers(0, 4, len(y))
    k[:3] = 1
    y[:3] = [0, 1, 2]
    weighted = cls(tol=1e-11).fit(z, y, sample_weight=k.astype(float))
    repeated = cls(tol=1e-11).fit(np.repeat(z, k, axis=0), np.repeat(y, k))
    for a, b in zip(_params(weighted), _params(repeated)):
        np.testing.assert_allclose(a, b, atol=1e-7)
    for factor in (2.0**-1060, 2.0**1000):  # subnormal and huge weights: the same fit
        scaled = cls(tol=1e-11).fit(z, y, sample_weight=k * factor)
        for a, b in zip(_params(weighted), _params(scaled)):
            np.testing.assert_array_equal(a, b)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from(CLASSES),
    st.sampled_from([1e-6, 1.0, 30.0]),
    st.sampled_from([0.0, 1e-310, 1e-300, 1.0, 2.0**53 - 1, 1e308]),
)
def test_edges_converge_or_warn_and_predict_probabilities(seed, cls, scale, heavy):
    rng = np.random.default_rng(seed)
    n, K = 40, 3
    z = rng.normal(size=(n, K)) * scale
    y = rng.integers(0, K, n)
    y[:K] = np.arange(K)
    w = np.ones(n)
    w[K: K + n // 4] = heavy
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cal = cls().fit(z, y, sample_weight=w)
    warned = any(issubclass(c.category, ConvergenceWarning) for c in caught)
    assert cal.converged_ != warned
    assert cal.converged_ == (cal.grad_norm_ <= cal.tol) or cal.solver_ == "newton"
    p = cal.predict_proba(z)
    assert np.isfinite(p).all() and (p >= 0).all()
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-14)
    if cal.converged_ and heavy in (1e-310, 1e-300):  # negligible rows: as if absent
        w2 = np.where(w == heavy, 0.0, w)
    elif cal.converged_ and heavy >= 1.0:  # the same ratios at ordinary scale
        w2 = w / heavy
    else:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        other = cls().fit(z, y, sample_weight=w2)
    if other.converged_:
        # Two fits that each stop at a gradient norm below tol = 1e-8 agree only as far as
        # the curvature allows: on nearly constant logits (scale 1e-6) the scales are barely
        # determined, and hypothesis found fits stopping at 9.2e-9 and 8.6e-11 whose
        # probabilities differ by 1.9e-6 (seed 76009694, weights 2**53 - 1).
        np.testing.assert_allclose(p, other.predict_proba(z), atol=1e-5)


@pytest.mark.parametrize("cls", CLASSES)
def test_the_fit_is_the_same_for_any_number_of_threads(cls):
    z, y = _logits(5, n=3 * BLOCK_ROWS + 17)
    fits = [cls(n_jobs=j).fit(z, y) for j in (1, 2, 3)]
    for other in fits[1:]:
        for a, b in zip(_params(fits[0]), _params(other)):
            np.testing.assert_array_equal(a, b)
        assert other.loss_ == fits[0].loss_


@pytest.mark.parametrize("cls", CLASSES)
def test_save_and_load_bit_for_bit(cls, tmp_path):
    z, y = _logits(6)
    names = np.array(["a", "b", "c"])
    cal = cls(classes=names[::-1]).fit(z, names[::-1][y])
    venncal.save(cal, tmp_path / "m.json")
    back = venncal.load(tmp_path / "m.json")
    assert type(back) is cls and back.converged_ is True and back.solver_ == cal.solver_
    np.testing.assert_array_equal(back.predict_proba(z), cal.predict_proba(z))
    np.testing.assert_array_equal(back.classes_, cal.classes_)
    assert f"venncal.parametric.{cls.__name__}" in venncal._registry.CLASS_SCORE_CALIBRATORS
    assert getattr(venncal, cls.__name__) is cls and cls.__name__ in venncal.parametric.__all__


def test_a_tampered_model_is_refused(tmp_path):
    import json

    from test_persist import seal

    z, y = _logits(7)
    venncal.save(MatrixScalingCalibrator().fit(z, y), tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    doc["state"]["solver_"] = "sgd"
    (tmp_path / "bad.json").write_text(json.dumps(seal(doc)))
    with pytest.raises(ValueError, match="solver_ must be"):
        venncal.load(tmp_path / "bad.json")
    doc["state"]["solver_"] = "newton"
    doc["state"]["intercept_"] = {"type": "ndarray", "dtype": "<f8", "shape": [2],
                                  "data": [0.0, 1.0]}
    (tmp_path / "bad.json").write_text(json.dumps(seal(doc)))
    with pytest.raises(ValueError, match="intercept_ must be"):
        venncal.load(tmp_path / "bad.json")


@pytest.mark.parametrize("cls", CLASSES)
def test_float32_and_dlpack_inputs(cls):
    z, y = _logits(8)
    z32 = z.astype(np.float32)
    a = cls().fit(z32, y)
    b = cls().fit(z32.astype(np.float64), y)
    for u, v in zip(_params(a), _params(b)):
        np.testing.assert_array_equal(u, v)

    class OnlyDLPack:
        def __init__(self, arr):
            self._arr = arr

        def __dlpack__(self, **kwargs):
            return self._arr.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self._arr.__dlpack_device__()

    np.testing.assert_array_equal(cls().fit(OnlyDLPack(z), y).predict_proba(OnlyDLPack(z)),
                                  cls().fit(z, y).predict_proba(z))


@pytest.mark.parametrize("cls", CLASSES)
def test_non_convergence_warns_and_is_reported(cls):
    z, y = _logits(9)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        cal = cls(max_iter=1, solver="newton").fit(z, y)
    assert not cal.converged_ and cal.n_iter_ == 1 and cal.grad_norm_ > cal.tol
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        cal = cls(max_iter=2, solver="lbfgs").fit(z, y)
    assert not cal.converged_


def test_separable_classes_warn_rather_than_return_a_map():
    z, _ = _logits(10)
    with pytest.warns(ConvergenceWarning, match="separable"):
        cal = VectorScalingCalibrator().fit(z, z.argmax(axis=1))
    assert not cal.converged_


def test_bad_input_gets_a_clear_error():
    z, y = _logits(11)
    p = np.exp(log_softmax(z, axis=1))
    p[4] = [0.5, 0.5, 0.0]
    with pytest.raises(ValueError, match=r"row 4 \(from 0\) has a probability 0"):
        MatrixScalingCalibrator(score="proba", eps=0.0).fit(p, y)
    with pytest.raises(ValueError, match="l2_diagonal"):
        StructuredMatrixScalingCalibrator(l2_diagonal=0.0).fit(z, y)
    with pytest.raises(ValueError, match="l2_off_diagonal"):
        MatrixScalingCalibrator(l2_off_diagonal=-1.0).fit(z, y)
    with pytest.raises(ValueError, match="solver"):
        VectorScalingCalibrator(solver="sgd").fit(z, y)
    with pytest.raises(ValueError, match="shape"):
        VectorScalingCalibrator().fit(z[:, 0], y)
    fitted = VectorScalingCalibrator().fit(z, y)
    with pytest.raises(ValueError, match="shape"):
        fitted.predict_proba(z[:, :2])
    assert clone(fitted).get_params() == fitted.get_params()


def test_separable_classes_warn_with_the_gradient_within_tol_and_say_so():
    # Found by the new-user check (digits logits): the gradient fell within tol
    # while the Newton step stayed long (parameters growing without bound), and
    # the warning read "did not converge ... the gradient's largest component is
    # 9.14e-09 (tol=1e-08)", as if the gradient were the problem.
    import warnings as _warnings

    from sklearn.exceptions import ConvergenceWarning

    from venncal.parametric import MatrixScalingCalibrator

    rng = np.random.default_rng(0)
    y = np.arange(60) % 3
    z = rng.normal(size=(60, 3))
    z[np.arange(60), y] += 6.0
    with _warnings.catch_warnings(record=True) as caught:
        _warnings.simplefilter("always")
        m = MatrixScalingCalibrator(score="logit").fit(z, y)
    texts = [str(c.message) for c in caught if issubclass(c.category, ConvergenceWarning)]
    assert not m.converged_ and m.grad_norm_ <= m.tol
    assert len(texts) == 1 and "is within tol=1e-08" in texts[0] and "step" in texts[0]


@pytest.mark.parametrize("cls", [VectorScalingCalibrator, MatrixScalingCalibrator])
def test_a_class_lighter_than_tol_is_named_in_the_warning(cls):
    # A class at 1e-100 of the weight: every gradient in its parameters is about 1e-100, so
    # the absolute tol cannot pin them and the fit stops unconverged; the warning names the
    # class as the reason beside separation and penalties.
    z, y = _logits(6)
    w = np.where(y == 2, 1e-100, 1.0)
    with pytest.warns(ConvergenceWarning, match=r"class\(es\) \[2\] each hold less than "
                      r"tol=1e-08 of the total weight \(the most: [0-9.]+e-10[01]\)"):
        cal = cls().fit(z, y, sample_weight=w)
    assert not cal.converged_


def _plain_softmax(x, W, b):
    """The kernels' arithmetic before the change: b + sum of products in order, then softmax."""
    u = [float(b[k]) for k in range(len(b))]
    for k in range(len(b)):
        for a in range(len(x)):
            u[k] += float(W[k][a]) * float(x[a])
    e = [np.exp(v - max(u)) for v in u]
    total = 0.0
    for v in e:
        total += v
    return [v / total for v in e]


@pytest.mark.parametrize("kernel", ["vector", "affine"])
def test_rows_past_the_float_range_are_one_hot_not_nan(kernel):
    # attack 18 F3: a converged vector scaling with scale_ [0.94, -1.51, 0.68] gave NaN for the
    # logits [1.5e308, 0, 0] (an entry of scale * x + b past the range, inf - inf in the softmax)
    from venncal._kernels.parametric_matrix import affine_softmax, vector_softmax

    x = np.array([[0.0, -1.5e308, -1.5e308], [-1e308, -1e308, 0.0], [-1.0, -2.0, -3.0]])
    scale, b = np.array([0.94, -1.51, 0.68]), np.array([0.1, 0.2, 0.3])
    W = np.diag(scale) if kernel == "vector" else np.array(
        [[2.0, -2.0, 0.0], [0.5, -1.51, 0.0], [-2.0, 0.0, 1.0]])
    out = np.empty_like(x)
    (vector_softmax(x, scale, b, out) if kernel == "vector" else affine_softmax(x, W, b, out))
    assert np.isfinite(out).all()
    if kernel == "vector":  # row 1: 0.94 (-1e308) against -1.51 (-1e308) = 1.5e308: class 1
        expected = [[0, 1, 0], [0, 1, 0]]
    else:  # row 0: 3e308 (class 0) beats 2.27e308; row 1: -2e308 + 2e308 (NaN before) for
        expected = [[1, 0, 0], [0, 0, 1]]  # class 0, 1.01e308 for class 1, 2e308 for class 2
    np.testing.assert_array_equal(out[:2], expected)
    # a row inside the range: the plain softmax, bit for bit
    np.testing.assert_array_equal(out[2], _plain_softmax(x[2], W, b))


def test_classes_tied_past_the_range_share_the_row():
    from venncal._kernels.parametric_matrix import vector_softmax

    out = np.empty((1, 3))
    vector_softmax(np.array([[0.0, -1.5e308, -1.5e308]]), np.array([1.0, -1.51, -1.51]),
                   np.zeros(3), out)
    np.testing.assert_array_equal(out, [[0.0, 0.5, 0.5]])


@pytest.mark.parametrize("name", ["VectorScalingCalibrator", "MatrixScalingCalibrator",
                                  "StructuredMatrixScalingCalibrator"])
def test_calibrators_predict_finite_rows_for_logits_near_the_range(name):
    import venncal.parametric as parametric

    rng = np.random.default_rng(0)
    z = rng.normal(size=(300, 3)) * 3
    y = np.argmax(z + rng.gumbel(size=z.shape) * 2, axis=1)
    cal = getattr(parametric, name)(score="logit").fit(z, y)
    huge = np.array([[1.5e308, 0.0, 0.0], [0.0, 0.0, 1.7e308], [1e308, 1e308, -0.5e308]])
    p = cal.predict_proba(huge)
    assert np.isfinite(p).all() and np.all(np.abs(p.sum(axis=1) - 1) <= 1e-15)


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("rows", [np.zeros((6, 3)), np.tile([1.0, -2.0, 0.5], (6, 1)),
                                  np.tile([1.0, -2.0, 0.5], (6, 1)) + np.arange(6)[:, None]])
def test_scores_the_same_on_every_row_are_refused_as_unidentified(cls, rows):
    # attack 29 F4: constant logits fitted with a "separable classes" ConvergenceWarning (or
    # none) and mapped other scores arbitrarily ([0, 5, 0]: 0.96, 0.0 or 0.003 for class 1).
    # Rows of weight 0 do not count, and one row that differs makes the fit possible.
    y = np.array([0, 0, 0, 1, 1, 2])
    with pytest.raises(ValueError, match="the same on every calibration row .* not identified"):
        cls().fit(rows, y)
    with pytest.raises(ValueError, match="not identified"):
        cls().fit(np.r_[rows, [[3.0, 0.0, 0.0]]], np.r_[y, 0], sample_weight=np.r_[np.ones(6), 0])


def test_tied_rows_give_temperature_no_reason_but_their_own():
    # attack 29 F4: all-tied rows were refused as "the scores separate the classes"
    from venncal.parametric import TemperatureCalibrator

    with pytest.raises(ValueError, match=r"every row's scores are tied .* log 3 at every"):
        TemperatureCalibrator().fit(np.zeros((6, 3)), [0, 0, 0, 1, 1, 2])
    with pytest.raises(ValueError, match="the scores separate the classes"):  # still separable
        TemperatureCalibrator().fit(np.r_[np.zeros((3, 3)), np.eye(3)], [0, 1, 2, 0, 1, 2])


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize(("K", "scale"), [(10, 1000.0), (3, 1e5), (10, 1.0)])
def test_overconfident_logits_fit_from_temperature_scaling(cls, K, scale):
    """Attack 45 F2: logits ~1000x overconfident saturate every softmax at the identity map,
    where the Newton steps stalled (vector scaling: loss 435 after 6 steps, not converged, a
    warning blaming separability). The fit now starts at temperature scaling's beta times the
    identity; each map contains temperature scaling, so its loss is at most that one's."""
    rng = np.random.default_rng(0)
    z = rng.normal(size=(1000, K))
    y = np.array([rng.choice(K, p=np.exp(r) / np.exp(r).sum()) for r in z])
    temperature = venncal.TemperatureCalibrator().fit(z * scale, y).loss_
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        cal = cls().fit(z * scale, y)
    assert cal.converged_
    assert cal.loss_ <= temperature + 1e-9


@pytest.mark.parametrize("cls", CLASSES)
def test_logits_too_close_to_tell_apart_are_named_in_the_refusal(cls):
    """Attack 45 F3: logits of 1e-300 differ on every row, but their log-probabilities round to
    -ln 3 alike; the refusal said only that the scores are the same."""
    rng = np.random.default_rng(5)
    z = rng.normal(size=(60, 3)) * 2e-300
    y = np.concatenate([np.arange(3), rng.integers(0, 3, 57)])
    with pytest.raises(ValueError, match=r"log-probabilities as float64 rounds them.*positive "
                                         r"constant, or fit TemperatureCalibrator"):
        cls().fit(z, y)


def test_vector_scaling_is_the_same_fit_at_any_scale_of_the_logits():
    """Its objective has no penalty on the scales: log-probabilities below -2**16 are fitted in
    units of a power of two, so tol means the same at every scale (at 1e10 it was never met:
    200 iterations, a ConvergenceWarning, though the loss was right). Past 2**16 the log-softmax
    of s z is s (z - max z) to the doubles' precision, so every such scale is one problem."""
    z, y = _logits(3, n=400)
    fits = []
    for scale in (2.0**20, 2.0**40, 2.0**300):
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            fits.append(VectorScalingCalibrator().fit(z * scale, y))
        assert fits[-1].converged_
        np.testing.assert_array_equal(fits[-1].scale_ * scale, fits[0].scale_ * 2.0**20)
        np.testing.assert_array_equal(fits[-1].intercept_, fits[0].intercept_)
        np.testing.assert_array_equal(fits[-1].predict_proba(z * scale),
                                      fits[0].predict_proba(z * 2.0**20))


@pytest.mark.parametrize("cls", CLASSES)
def test_logits_past_2_to_the_480_are_refused_not_saved_unloadable(cls):
    """Attack 45 F8: logits of 3e307 gave loss_ = inf: save wrote it, load refused it."""
    z, y = _logits(4, n=60)
    with pytest.raises(ValueError, match=r"log-probabilities reach .*multiply the logits"):
        cls().fit(z * 1e300, y)


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("scale", [1e-8, 1e-12])
def test_tiny_logits_reach_temperature_scalings_loss(cls, scale):
    """Attack 46 F7: on logits of 1e-12 the fits stopped near the identity (every gradient
    component below tol), at a loss of 1.088 where temperature scaling, which each map contains
    with no penalty, reaches 0.527 (with l2_*="cv": converged_ True, no warning). A fit above
    temperature scaling's loss is fitted again from beta I, and the better kept."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    z = rng.normal(size=(200, 3))
    z[np.arange(200), y] += 1.5
    temperature = venncal.TemperatureCalibrator().fit(z * scale, y).loss_
    with warnings.catch_warnings():  # (penalties by "cv" too, checked by hand: slow here)
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.filterwarnings("ignore", "VectorScaling.*lose digits", UserWarning)  # 1e-12
        cal = cls().fit(z * scale, y)
    assert cal.loss_ <= temperature * (1 + 1e-5)


@pytest.mark.parametrize(("seed", "K"), [(2, 5), (1, 4), (3, 3)])
@pytest.mark.parametrize("scale", [1e-7, 1e-9, 1e-12])
def test_vector_scaling_of_tiny_logits_reaches_its_optimum(seed, K, scale):
    """Attack 47 F1: on logits of 1e-9 vector scaling "converged" silently at a loss of 1.216
    where its own family reaches 0.923 (the fit at scale 1e-5, mapped): in the logits' unit the
    gradient (deviations of x from -ln K of 1e-9, scales near 1e9) was below tol, and its
    rounding above it, far from the optimum.  It now fits x centred per column and scaled by a
    power of two (exactly the same objective): the loss is the family's optimum, to the
    precision x keeps at that scale (deviations of 1e-9 rounded to 2e-16: 1e-6 of the loss)."""
    rng = np.random.default_rng(seed)
    y = rng.choice(K, 300)
    z = rng.normal(size=(300, K))
    z[np.arange(300), y] += 1.5
    z = z * rng.uniform(0.3, 3, K) + rng.normal(size=K)
    best = VectorScalingCalibrator().fit(z * 1e-6, y).loss_  # the optimum, to 1e-6 of it
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cal = VectorScalingCalibrator().fit(z * scale, y)
    assert cal.converged_
    # loss_ is the loss of the stored (a, b), in x's own unit: what predict_proba gives
    p = cal.predict_proba(z * scale)
    assert -np.mean(np.log(p[np.arange(300), y])) == pytest.approx(cal.loss_, rel=1e-12)
    # x = log_softmax(z) keeps the logits' deviations to 2e-16 / scale (relative), and (a, b)
    # (a near 1 / scale, b near ln(K) / scale) lose about as much: silent down to 1e-9;
    # at 1e-12, where the stored map loses more than 1e-6 of the loss, a warning says so
    if scale >= 1e-9:
        assert not caught
        assert abs(cal.loss_ - best) <= 1e-6 * best
    else:
        assert all("lose digits" in str(c.message) for c in caught)
        assert caught or abs(cal.loss_ - best) <= 1e-5 * best


@pytest.mark.parametrize(("seed", "K"), [(2, 5), (1, 4), (0, 3)])
@pytest.mark.parametrize("scale", [1e-6, 1e-9, 1e-12, 1e10])
def test_unpenalised_matrix_scaling_of_extreme_logits_is_right_or_says_so(seed, K, scale):
    """Attack 47 F1: unpenalised matrix scaling on logits of 1e-9 "converged" silently at a loss
    of 0.964 where vector scaling, which it contains, reaches 0.865.  It is fitted in vector
    scaling's frame (exact without penalties); near-uniform scores leave one direction of W
    fixed only by rounding, and a fit that lands there warns instead of being silent."""
    rng = np.random.default_rng(seed)
    y = rng.choice(K, 300)
    z = rng.normal(size=(300, K))
    z[np.arange(300), y] += 1.5
    z = z * rng.uniform(0.3, 3, K) + rng.normal(size=K)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vec = VectorScalingCalibrator().fit(z * scale, y)
        cal = MatrixScalingCalibrator(l2_off_diagonal=0.0, l2_intercept=0.0).fit(z * scale, y)
    if not caught:
        assert cal.converged_ and cal.loss_ <= vec.loss_ * (1 + 1e-9)
    p = cal.predict_proba(z * scale)
    assert -np.mean(np.log(p[np.arange(300), y])) == pytest.approx(cal.loss_, rel=1e-12)


def test_a_class_of_constant_probability_is_fitted_quietly():
    """Attack 47 F4: a class of probability 0.2 on every row (renormalised, its logarithm varies
    in its last bit) warned "did not converge ... raise the penalties" at the optimum, for vector
    scaling, which has no penalty; fitted in the frame, that column was first taken as a signal
    (its rounding amplified 2**53 times: a scale of 1e15).  It is constant: the fit is the
    optimum (scipy BFGS, gtol 1e-12: 0.9736260545865143), converged, with no warning."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 300)
    t = rng.uniform(0.05, 0.95, 300)
    t = np.where(y == 0, np.clip(t + 0.2, 0, 0.99), np.clip(t - 0.1, 0.01, 1))
    P = np.column_stack([0.8 * t, 0.8 * (1 - t), np.full(300, 0.2)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = VectorScalingCalibrator(score="proba").fit(P, y)
    assert cal.converged_ and abs(cal.scale_[2]) < 10
    assert cal.loss_ == pytest.approx(0.9736260545865143, rel=1e-12)


def _attack51_f7():
    rng = np.random.default_rng(3)
    for _ in range(11):  # the attack's eleventh draw
        n = int(rng.integers(30, 80))
        K = int(rng.integers(2, 4))
        scale = float(rng.choice([1e-9, 1e-10, 1e-11, 1e-12, 3e-13]))
        z = rng.normal(size=(n, K)) * scale
        if rng.random() < 0.5:
            z[:, 0] = scale * 0.5
        u = z / scale
        y = np.array([rng.choice(K, p=np.exp(r - r.max()) / np.exp(r - r.max()).sum())
                      for r in u * 0.8])
        y[:K] = np.arange(K)
    return z, y


@pytest.mark.parametrize("cls", [VectorScalingCalibrator, "matrix"])
def test_stored_parameters_that_round_the_logits_are_told(cls):
    """Attack 51 F7: scales near 3e15 cancelling an intercept near 4e15 hold the logits to
    +-0.5; the float64 loss of the stored map happened to be lower than the fit's, and the
    one-sided check said nothing (predictions 0.053 off the stored map)."""
    z, y = _attack51_f7()
    make = (lambda: venncal.MatrixScalingCalibrator(l2_off_diagonal=0, l2_intercept=0)
            ) if cls == "matrix" else cls
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # told too, or not: the path's luck
        with pytest.warns(UserWarning, match=r"logits held to \+-[0-9.]+: they lose digits"):
            make().fit(z, y)


def test_a_flat_column_that_varies_beyond_rounding_is_told():
    """Attack 51 F6: logits 2e-14 apart give log-probabilities that vary by 90 ulps: taken as
    constant (a constant map, converged) without a word."""
    rng = np.random.default_rng(0)
    n = 400
    for sc in (1e-12, 5e-14, 2e-14):
        d = rng.normal(size=n) * sc
        z = np.column_stack([np.zeros(n), d])
        y = (rng.random(n) < 1 / (1 + np.exp(-d / sc))).astype(int)
    with pytest.warns(UserWarning, match=r"class\(es\) \[0, 1\] vary only within 2\*\*-44"):
        VectorScalingCalibrator().fit(z, y)
    # the same logits times 1e10 carry the signal: fitted, near temperature scaling's loss
    best = venncal.TemperatureCalibrator().fit(z * 1e10, y).loss_
    assert VectorScalingCalibrator().fit(z * 1e10, y).loss_ <= best * (1 + 1e-9)
