"""Matrix and structured scaling with penalties chosen by cross-validation (``"cv"`` or a grid)."""

import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import log_softmax
from sklearn.exceptions import ConvergenceWarning

import venncal
from venncal.parametric import MatrixScalingCalibrator, StructuredMatrixScalingCalibrator
from venncal.parametric._penalty_cv import default_grid, stratified_folds

CLASSES = [MatrixScalingCalibrator, StructuredMatrixScalingCalibrator]


def _known_matrix(seed, n=2000, K=4, sigma=0.3):
    """Logits, labels drawn from softmax(W x) with W = I + sigma * N(0, 1) off the diagonal."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, K)) * 2
    W = np.eye(K) + sigma * rng.normal(size=(K, K)) * (1 - np.eye(K))
    p = np.exp(log_softmax(log_softmax(z, axis=1) @ W.T, axis=1))
    y = np.minimum((p.cumsum(axis=1) < rng.random(n)[:, None]).sum(axis=1), K - 1)
    return z, y


def _small(seed=0, n=90, K=3):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, K)) * 2, np.arange(n) % K


@pytest.mark.parametrize("sigma", [0.03, 0.3])
def test_cv_picks_the_order_of_magnitude_of_the_known_spread(sigma):
    # The off-diagonal entries are N(0, sigma**2): the penalty that is the
    # Gaussian prior of that spread on a mean log loss of n rows is a
    # per-entry c* = 1 / (2 n sigma**2); CV lands within one power of ten.
    n, K = 2000, 4
    z, y = _known_matrix(1, n, K, sigma)
    cal = MatrixScalingCalibrator(l2_off_diagonal="cv").fit(z, y)
    chosen = cal.l2_off_diagonal_ / (K * (K - 1))
    assert abs(math.log10(chosen) - math.log10(1 / (2 * n * sigma**2))) <= 1.0
    assert cal.l2_intercept_ == 1e-3 and cal.converged_
    assert cal.cv_results_["log_loss"].min() == pytest.approx(
        cal.cv_results_["log_loss"][cal.cv_results_["l2_off_diagonal"] == cal.l2_off_diagonal_][0])


@pytest.mark.parametrize("cls", CLASSES)
def test_the_refit_is_the_fit_with_the_chosen_penalties_and_deterministic(cls):
    z, y = _known_matrix(2, n=600, K=3)
    a = cls(l2_off_diagonal="cv", l2_intercept=[1e-3, 1e-1, 10.0]).fit(z, y)
    b = cls(l2_off_diagonal="cv", l2_intercept=[10.0, 1e-3, 1e-1], n_jobs=1).fit(z, y)
    for name in ("coef_", "intercept_"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert a.l2_intercept_ in (1e-3, 1e-1, 10.0)
    assert a.l2_off_diagonal_ in default_grid(600, 6.0)
    fixed = cls(l2_off_diagonal=a.l2_off_diagonal_, l2_intercept=a.l2_intercept_, tol=1e-10)
    fixed.fit(z, y)
    np.testing.assert_allclose(a.coef_, fixed.coef_, atol=1e-6)
    np.testing.assert_allclose(a.predict_proba(z), fixed.predict_proba(z), atol=1e-7)
    assert fixed.cv_results_ is None and fixed.l2_off_diagonal_ == a.l2_off_diagonal_


def test_structured_scaling_chooses_its_three_penalties():
    z, y = _known_matrix(3, n=600, K=3, sigma=0.0)
    cal = StructuredMatrixScalingCalibrator(
        l2_diagonal="cv", l2_off_diagonal="cv", l2_intercept="cv").fit(z, y)
    # the truth is the identity map: the strongest penalties fit it best, or near
    assert cal.l2_off_diagonal_ / 6 >= 1e-1 and cal.l2_diagonal_ / 3 >= 1e-2
    assert set(cal.cv_results_) == {"l2_diagonal", "l2_off_diagonal", "l2_intercept", "log_loss"}
    assert len(cal.cv_results_["log_loss"]) <= 30


def test_the_folds_are_stratified_fixed_and_skip_zero_weights():
    codes = np.repeat([0, 1, 2], [10, 7, 5])
    w = np.ones(22)
    w[:3] = 0.0
    folds = stratified_folds(codes, w, 3)
    np.testing.assert_array_equal(folds, stratified_folds(codes, w, 3))
    for k in range(3):
        per = np.bincount(folds[(codes == k) & (w > 0)], minlength=3)
        assert per.max() - per.min() <= 1


@pytest.mark.parametrize("cls", CLASSES)
def test_too_few_rows_for_the_folds_is_refused(cls):
    z, y = _small(n=30)
    w = np.ones(30)
    w[y == 2] = 0.0
    w[2] = 1.0
    with pytest.raises(ValueError, match=r"cv=5 needs at least 5 rows of positive weight.*"
                                         r"class 2 has 1"):
        cls(l2_off_diagonal="cv").fit(z, y, sample_weight=w)
    cls(l2_off_diagonal="cv", cv=2).fit(*_small(n=12))  # 4 rows per class


BAD = st.one_of(
    st.sampled_from(["CV", "", "auto", [], [0.0], [-1.0], [math.nan], [math.inf], [[1.0]],
                     [1.0] * 65, True, -1e-300, math.inf, None, ["a"], {"cv": 1}]),
    st.lists(st.floats(max_value=0.0), min_size=1, max_size=3),
)


@pytest.mark.parametrize("cls", CLASSES)
@given(value=BAD, name=st.sampled_from(["l2_off_diagonal", "l2_intercept"]))
def test_a_bad_penalty_gets_a_clear_error(cls, value, name):
    with pytest.raises(ValueError, match=f"{name} must be"):
        cls(**{name: value}).fit(*_small())


@pytest.mark.parametrize("cv", [1, 0, 2.0, True, "5", None])
def test_a_bad_cv_gets_a_clear_error(cv):
    with pytest.raises(ValueError, match="cv must be an integer >= 2"):
        MatrixScalingCalibrator(l2_off_diagonal="cv", cv=cv).fit(*_small())


EXTREME_GRIDS = st.lists(st.sampled_from([1e-300, 1e-10, 1.0, 1e10, 1e300]), min_size=1,
                         max_size=3)


@pytest.mark.parametrize("cls", CLASSES)
@given(grid=EXTREME_GRIDS)
@settings(max_examples=12)  # each example is a cross-validation: the thorough twin is slow
def test_extreme_grids_fit_finite_maps(cls, grid):
    check_extreme_grid(cls, grid)


@pytest.mark.slow
@pytest.mark.parametrize("cls", CLASSES)
@given(grid=EXTREME_GRIDS)
@settings(max_examples=40)  # the default profile's count, as before the twin
def test_extreme_grids_fit_finite_maps_thorough(cls, grid):
    check_extreme_grid(cls, grid)


def check_extreme_grid(cls, grid):
    z, y = _small(1, n=45)
    # 1e-300 pins nothing in floating point: converged_ or a ConvergenceWarning, never silence
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        cal = cls(l2_off_diagonal=grid, l2_intercept=grid[::-1]).fit(z, y)
    assert cal.converged_ or any(issubclass(c.category, ConvergenceWarning) for c in caught)
    assert cal.l2_off_diagonal_ in grid and cal.l2_intercept_ in grid
    assert np.isfinite(cal.coef_).all() and np.isfinite(cal.loss_)
    p = cal.predict_proba(z)
    assert np.isfinite(p).all()
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("weights", [None, 1e-300, 1e300, 2.0**53 + 1])
def test_weights_at_any_scale_choose_the_same_penalties(cls, weights):
    z, y = _small(4, n=120)
    w = None if weights is None else np.full(120, weights)
    cal = cls(l2_off_diagonal="cv").fit(z, y, sample_weight=w)
    ref = cls(l2_off_diagonal="cv").fit(z, y)
    assert cal.l2_off_diagonal_ == ref.l2_off_diagonal_
    np.testing.assert_allclose(cal.coef_, ref.coef_, atol=1e-9)


@pytest.mark.parametrize("cls", CLASSES)
def test_chosen_penalties_are_saved_and_loaded(cls, tmp_path):
    z, y = _small(5, n=120)
    cal = cls(l2_off_diagonal="cv", l2_intercept=[1e-2, 1.0]).fit(z, y)
    venncal.save(cal, tmp_path / "m.json")
    back = venncal.load(tmp_path / "m.json")
    assert back.l2_off_diagonal == "cv" and back.l2_off_diagonal_ == cal.l2_off_diagonal_
    assert back.l2_intercept_ == cal.l2_intercept_
    np.testing.assert_array_equal(back.predict_proba(z), cal.predict_proba(z))


def test_a_tampered_penalty_is_refused(tmp_path):
    from test_persist import seal

    z, y = _small(6)
    venncal.save(MatrixScalingCalibrator().fit(z, y), tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    for value, match in ((-1.0, "l2_off_diagonal_ must be a finite float >= 0"),
                         (0.5, "must equal the fixed penalty l2_off_diagonal=0.001")):
        doc["state"]["l2_off_diagonal_"] = value
        (tmp_path / "bad.json").write_text(json.dumps(seal(doc)))
        with pytest.raises(ValueError, match=match):
            venncal.load(tmp_path / "bad.json")


# Saved by the code before the penalties were fitted attributes (commit 4ecfede).
OLD_MATRIX = json.loads("".join(r"""
{"format":"venncal.calibrator","format_version":3,"venncal_version":"0.1.0","class":"venncal.par
ametric.MatrixScalingCalibrator","params":{"classes":null,"l2_intercept":0.001,"l2_off_diagonal"
:0.001,"max_iter":500,"n_jobs":null,"score":"logit","solver":"auto","tol":1e-08},"state":{"class
es_":{"type":"ndarray","dtype":"<i8","shape":[3],"crc32":1334598860,"data":[0,1,2]},"coef_":{"ty
pe":"ndarray","dtype":"<f8","shape":[3,3],"crc32":2249888058,"data":[0.005626168913117015,0.0723
8360322723596,0.0968014281554534,0.058180944274328295,-0.3120925946564104,-0.09680142815552277,-
0.058180944274311655,-0.07238360322740249,-0.08512227522634759]},"intercept_":{"type":"ndarray",
"dtype":"<f8","shape":[3],"crc32":3681494788,"data":[0.5375817897337047,-0.3721850090914909,-0.1
6539678064218674]},"loss_":1.0648413538130554,"grad_norm_":1.2167483600528106e-11,"n_iter_":7,"c
onverged_":true,"solver_":"newton"},"crc32":409908135}
""".split("\n")))
OLD_MATRIX_PROBA = np.array([
    [0.402324688457811, 0.27228713834538143, 0.32538817319680763],
    [0.41139309869469204, 0.2621508937362423, 0.32645600756906573],
    [0.34093837970311114, 0.2568221234448932, 0.40223949685199567],
    [0.43664285289830174, 0.22917536253615242, 0.33418178456554587],
])


def test_a_model_saved_before_the_fitted_penalties_loads(tmp_path):
    (tmp_path / "old.json").write_text(json.dumps(OLD_MATRIX))
    back = venncal.load(tmp_path / "old.json")
    assert back.l2_off_diagonal_ == 1e-3 and back.l2_intercept_ == 1e-3
    z, _ = _small(7, n=60)
    # to the last bits: the log-softmax of the logits now keeps the top class's digits (log1p)
    np.testing.assert_allclose(back.predict_proba(z[:4]), OLD_MATRIX_PROBA, rtol=2.0**-50, atol=0)


def test_cv_on_tiny_logits_does_not_walk_on_the_losss_rounding(monkeypatch):
    """On logits of 1e-6 the log-probabilities are near-constant and the penalised loss is
    held to ~1e-11 only: the line search accepted steps on its rounding, 500 Newton steps of
    ~28 values each per fold fit (99,037 objective values, 16 s here; 150 s at K = 6 before).
    The search now stops after STALL_STEPS steps that lower neither value nor gradient."""
    from sklearn.exceptions import ConvergenceWarning

    calls = []
    real = venncal.MatrixScalingCalibrator._objective
    monkeypatch.setattr(venncal.MatrixScalingCalibrator, "_objective",
                        lambda self, *a, **k: calls.append(1) or real(self, *a, **k))
    rng = np.random.default_rng(0)
    y = rng.integers(0, 6, 300)
    z = rng.normal(size=(300, 6))
    z[np.arange(300), y] += 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = venncal.MatrixScalingCalibrator(l2_off_diagonal="cv", l2_intercept="cv").fit(
            z * 1e-6, y)
    assert len(calls) < 20_000
    assert np.isfinite(model.loss_) and model.loss_ < np.log(6)
