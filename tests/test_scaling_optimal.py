"""Vector, matrix and structured scaling: kernels against their literal twins, fits against scipy.

The independent fits minimise plain numpy objectives (tests/reference/parametric_matrix.py)
with scipy's trust-region solver ("trust-exact") to a gradient of 1e-12.
"""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import log_softmax

from reference import parametric_matrix as ref
from venncal._kernels.parametric_matrix import (
    affine_terms,
    expand_hessian,
    log_softmax_rows,
    vector_terms,
)
from venncal.parametric import (
    MatrixScalingCalibrator,
    StructuredMatrixScalingCalibrator,
    TemperatureCalibrator,
    VectorScalingCalibrator,
)


def _data(seed, n=400, K=3, scale=2.0):
    """Logits whose labels follow a random affine map of their log-probabilities."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, K)) * scale
    x = log_softmax(z, axis=1)
    W = np.eye(K) * rng.uniform(0.4, 1.5, K) + 0.2 * rng.normal(size=(K, K))
    u = x @ W.T + 0.3 * rng.normal(size=K)
    p = np.exp(log_softmax(u, axis=1))
    y = np.minimum((p.cumsum(axis=1) < rng.random(n)[:, None]).sum(axis=1), K - 1)
    w = rng.integers(0, 4, n).astype(float)
    w[y == y[0]] += 1.0  # never all zero for a class
    for k in range(K):
        w[np.flatnonzero(y == k)[:1]] = 1.0
    return z, x, y, w


def _scipy_fit(fun, theta0):
    res = minimize(lambda t: fun(t)[0], theta0, jac=lambda t: fun(t)[1],
                   hess=lambda t: fun(t)[2], method="trust-exact", options={"gtol": 1e-12})
    theta = res.x
    for _ in range(3):  # polish by plain Newton steps (numpy's least-squares solve)
        _, g, H = fun(theta)
        theta = theta - np.linalg.lstsq(H, g, rcond=None)[0]
    assert np.max(np.abs(fun(theta)[1])) < 1e-10
    return theta


def test_kernels_equal_their_literal_twins():
    z, x, y, w = _data(0, n=60, K=4)
    w[:5] = 0.0
    rng = np.random.default_rng(1)
    K = 4
    W, b = rng.normal(size=(K, K)), rng.normal(size=K)
    G, T = np.zeros((K, K + 1)), np.zeros((K * (K + 1) // 2, (K + 1) * (K + 2) // 2))
    f = affine_terms(x, W.T.copy(), b, y.astype(np.intp), w, 0, len(y), G, T, True)
    f0, G0, H0 = ref.affine_terms(x, W, b, y, w)
    assert f == pytest.approx(f0, rel=1e-13, abs=0.0)
    np.testing.assert_allclose(G, G0, rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(expand_hessian(T, K), H0, rtol=1e-11, atol=1e-12)
    a = rng.uniform(0.5, 2, K)
    g, H = np.zeros(2 * K), np.zeros((2 * K, 2 * K))
    f = vector_terms(x, a, b, y.astype(np.intp), w, 0, len(y), g, H, True)
    f0, g0, H0 = ref.vector_terms(x, a, b, y, w)
    assert f == pytest.approx(f0, rel=1e-13, abs=0.0)
    np.testing.assert_allclose(g, g0, rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(np.triu(H), np.triu(H0), rtol=1e-11, atol=1e-12)
    out = np.empty(z.shape)
    log_softmax_rows(z, z.max(axis=1), out)
    np.testing.assert_allclose(out, ref.log_probabilities(z), rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("K", [2, 3, 5])
@pytest.mark.parametrize("score", ["logit", "proba"])
def test_vector_scaling_is_the_optimum(K, score):
    z, x, y, w = _data(K, K=K)
    scores = z if score == "logit" else np.exp(x)
    cal = VectorScalingCalibrator(score=score, tol=1e-11).fit(scores, y, sample_weight=w)
    assert cal.converged_ and cal.solver_ == "newton" and cal.grad_norm_ <= 1e-11
    theta = _scipy_fit(ref.vector_objective(x, y, w), np.r_[np.ones(K), np.zeros(K - 1)])
    np.testing.assert_allclose(cal.scale_, theta[:K], rtol=0, atol=1e-6)
    np.testing.assert_allclose(cal.intercept_, np.r_[theta[K:], 0.0], rtol=0, atol=1e-6)


@pytest.mark.parametrize(("K", "l2_off", "l2_b"),
                         [(2, 0.0, 0.0), (3, 1e-3, 1e-3), (3, 0.0, 0.1), (4, 0.1, 0.0),
                          (4, 0.0, 0.0), (5, 1e-2, 1e-2)])
def test_matrix_scaling_is_the_optimum(K, l2_off, l2_b):
    z, x, y, w = _data(10 + K, K=K)
    cal = MatrixScalingCalibrator(l2_off_diagonal=l2_off, l2_intercept=l2_b, tol=1e-11)
    cal.fit(z, y, sample_weight=w)
    assert cal.converged_ and cal.grad_norm_ <= 1e-11
    free = cal._free(K)
    theta = _scipy_fit(ref.matrix_objective(x, y, w, l2_off, l2_b, free), cal._start(K))
    full = np.zeros(K * (K + 1))
    full[free] = theta
    np.testing.assert_allclose(cal.coef_, full.reshape(K, K + 1)[:, :K], rtol=0, atol=1e-6)
    np.testing.assert_allclose(cal.intercept_, full.reshape(K, K + 1)[:, K], rtol=0, atol=1e-6)
    assert cal.loss_ == pytest.approx(ref.matrix_objective(x, y, w, l2_off, l2_b, free)(theta)[0],
                                      rel=1e-12, abs=0.0)


@pytest.mark.parametrize("K", [2, 3, 4])
def test_structured_scaling_is_the_optimum(K):
    z, x, y, w = _data(20 + K, K=K)
    cal = StructuredMatrixScalingCalibrator(score="proba", tol=1e-11)
    cal.fit(np.exp(x), y, sample_weight=w)
    assert cal.converged_
    theta0 = np.zeros(1 + K * K + K)
    theta0[0] = 1.0
    theta = _scipy_fit(ref.structured_objective(x, y, w, 1e-3, 1e-2, 1e-3), theta0)
    assert cal.shared_scale_ == pytest.approx(theta[0], abs=1e-6)
    W = theta[0] * np.eye(K) + theta[1:1 + K * K].reshape(K, K)
    np.testing.assert_allclose(cal.coef_, W, rtol=0, atol=1e-6)
    np.testing.assert_allclose(cal.intercept_, theta[1 + K * K:], rtol=0, atol=1e-6)


@pytest.mark.parametrize("cls", [MatrixScalingCalibrator, StructuredMatrixScalingCalibrator,
                                 VectorScalingCalibrator])
def test_lbfgs_reaches_the_newton_fit(cls):
    z, x, y, w = _data(30, n=600, K=4)
    newton = cls(solver="newton", tol=1e-11).fit(z, y, sample_weight=w)
    lbfgs = cls(solver="lbfgs").fit(z, y, sample_weight=w)
    assert lbfgs.solver_ == "lbfgs" and lbfgs.converged_ and lbfgs.grad_norm_ <= 1e-8
    assert lbfgs.loss_ == pytest.approx(newton.loss_, rel=1e-12, abs=0.0)
    # The parameters agree to about grad_norm_ / (the Hessian's smallest
    # eigenvalue): the light default penalties leave a flat direction
    # (eigenvalue ~1e-4) along which the predictions barely move.
    np.testing.assert_allclose(lbfgs.predict_proba(z), newton.predict_proba(z), atol=1e-7)


def test_auto_solver_switches_to_lbfgs_above_256_parameters():
    z, x, y, w = _data(31, n=500, K=16, scale=1.0)
    y[:16] = np.arange(16)
    cal = MatrixScalingCalibrator(l2_off_diagonal=1.0, l2_intercept=1.0).fit(z, y)
    assert cal.solver_ == "lbfgs" and cal.converged_ and cal.grad_norm_ <= 1e-8
    assert VectorScalingCalibrator().fit(z, y).solver_ == "newton"


def test_two_classes_agree_with_beta_calibration_and_each_other():
    # K = 2 on probabilities: vector scaling is Beta calibration's "abm" form,
    # logit q = a ln p - b ln(1 - p) + c, with a = scale_[1], b = -scale_[0]...
    z, x, y, w = _data(40, n=500, K=2)
    p = np.exp(x)
    vec = VectorScalingCalibrator(score="proba", tol=1e-11).fit(p, y, sample_weight=w)
    feats = np.column_stack([x[:, 1], x[:, 0], np.ones(len(y))])

    def beta(theta):  # the binary log loss of sigmoid(feats @ theta), its gradient and Hessian
        s = feats @ theta
        q = 1.0 / (1.0 + np.exp(-s))
        wn = w / w.sum()
        f = float(wn @ (np.logaddexp(0.0, s) - y * s))
        return f, feats.T @ (wn * (q - y)), feats.T @ (feats * (wn * q * (1 - q))[:, None])

    a, minus_b, c = _scipy_fit(beta, np.array([1.0, -1.0, 0.0]))
    assert vec.scale_[1] == pytest.approx(a, abs=1e-6)
    assert vec.scale_[0] == pytest.approx(-minus_b, abs=1e-6)
    assert -vec.intercept_[0] == pytest.approx(c, abs=1e-6)
    # Unregularised matrix scaling has the same three free differences for K = 2.
    mat = MatrixScalingCalibrator(score="proba", l2_off_diagonal=0, l2_intercept=0, tol=1e-11)
    mat.fit(p, y, sample_weight=w)
    np.testing.assert_allclose(mat.predict_proba(p), vec.predict_proba(p), atol=1e-9)


def test_structured_scaling_with_large_penalties_is_temperature_scaling():
    z, x, y, w = _data(41, n=800, K=4)
    temp = TemperatureCalibrator().fit(z, y, sample_weight=w)
    sms = StructuredMatrixScalingCalibrator(l2_diagonal=1e9, l2_off_diagonal=1e9,
                                            l2_intercept=1e9).fit(z, y, sample_weight=w)
    assert sms.shared_scale_ == pytest.approx(temp.inverse_temperature_, rel=1e-5, abs=0.0)
    np.testing.assert_allclose(sms.predict_proba(z), temp.predict_proba(z), atol=1e-6)
