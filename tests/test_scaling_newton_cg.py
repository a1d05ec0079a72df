"""The Newton-CG polish of vector, matrix and structured scaling after L-BFGS-B.

Its Hessian-vector products (the kernel ``affine_hess_vec``) against their literal
twin, finite differences of the gradient and the explicit Hessian; the truncated
Newton search against scipy's ``trust-ncg`` fits; the polish where L-BFGS-B stops
short of ``tol``; the same fit for any ``n_jobs``.
"""

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize

from reference import parametric_matrix as ref
from venncal._kernels.parametric_matrix import affine_hess_vec, affine_softmax
from venncal._newton import minimize_convex_newton_cg
from venncal.parametric import (
    MatrixScalingCalibrator,
    StructuredMatrixScalingCalibrator,
    VectorScalingCalibrator,
)
from venncal.parametric._affine import _Sums, kronecker_preconditioner

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_scaling_optimal import _data  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from bench_parametric import _data as _bench_data  # noqa: E402

CASES = [
    (MatrixScalingCalibrator, {"l2_off_diagonal": 1e-3, "l2_intercept": 1e-3}),
    (MatrixScalingCalibrator, {"l2_off_diagonal": 0.0, "l2_intercept": 0.1}),
    (MatrixScalingCalibrator, {"l2_off_diagonal": 0.0, "l2_intercept": 0.0}),
    (StructuredMatrixScalingCalibrator,
     {"l2_diagonal": 1e-3, "l2_off_diagonal": 1e-2, "l2_intercept": 1e-3}),
    (VectorScalingCalibrator, {}),
]


def test_hess_vec_kernel_equals_its_literal_twin_differences_and_the_hessian():
    z, x, y, w = _data(0, n=70, K=4)
    w[:5] = 0.0
    K = 4
    rng = np.random.default_rng(2)
    W, b = rng.normal(size=(K, K)), rng.normal(size=K)
    dW, db = rng.normal(size=(K, K)), rng.normal(size=K)
    P = np.empty(x.shape)
    affine_softmax(x, W, b, P)
    out = np.empty((K, K + 1))
    affine_hess_vec(x, P, dW.T.copy(), db, w, 0, len(y), out)
    np.testing.assert_allclose(out, ref.affine_hess_vec(x, W, b, w, dW, db), rtol=1e-11,
                               atol=1e-12)
    # the explicit Hessian of the literal twin of affine_terms
    H = ref.affine_terms(x, W, b, y, w)[2]
    v = np.hstack([dW, db[:, None]]).ravel()
    np.testing.assert_allclose(out.ravel(), H @ v, rtol=1e-11, atol=1e-12)
    # central differences of the gradient along the direction
    h = 1e-5
    Gp = ref.affine_terms(x, W + h * dW, b + h * db, y, w)[1]
    Gm = ref.affine_terms(x, W - h * dW, b - h * db, y, w)[1]
    np.testing.assert_allclose(out, (Gp - Gm) / (2 * h), rtol=1e-6, atol=1e-7)
    # a part of the rows: the block's own sum
    part = np.empty((K, K + 1))
    affine_hess_vec(x, P, dW.T.copy(), db, w, 10, 40, part)
    np.testing.assert_allclose(part, ref.affine_hess_vec(x[10:40], W, b, w[10:40], dW, db),
                               rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize(("cls", "pens"), CASES)
def test_each_calibrators_hessian_products_are_its_hessian(cls, pens):
    z, x, y, w = _data(3, n=300, K=5)
    K = 5
    cal = cls()
    sums = _Sums(x, y.astype(np.intp), w, 2)
    rng = np.random.default_rng(4)
    with sums.blocks:
        m = cal._n_params(K, pens)
        theta = cal._start(K, pens) + 0.3 * rng.normal(size=m)
        _, _, H = cal._objective(sums, theta, True, pens)
        sums.curvature(*cal._lift(theta, K, pens))
        pen = cal._penalty_hessian(K, pens)
        Hv = np.column_stack([
            cal._pull(sums.hess_vec(*cal._lift(e, K, pens)), K, pens) + pen * e
            for e in np.eye(m)])
        np.testing.assert_allclose(Hv, H, rtol=1e-12, atol=1e-13)
        S = sums.curvature(*cal._lift(theta, K, pens))
        M = cal._preconditioner(S, sums.second_moment(), K, pens)
        Minv = np.column_stack([M(e) for e in np.eye(m)])
        Minv = (Minv + Minv.T) / 2
        assert np.linalg.eigvalsh(Minv).min() > 0  # positive definite


def test_kronecker_preconditioner_inverts_the_kronecker_product():
    rng = np.random.default_rng(5)
    A, B = rng.normal(size=(3, 3)), rng.normal(size=(4, 4))
    S, C = A @ A.T, B @ B.T
    inv = kronecker_preconditioner(S, C, 0.5)
    R = rng.normal(size=(3, 4))
    np.testing.assert_allclose(
        inv(R).ravel(), np.linalg.solve(np.kron(S, C) + 0.5 * np.eye(12), R.ravel()), rtol=1e-10)


@pytest.mark.parametrize(("cls", "pens"), CASES)
def test_newton_cg_alone_reaches_scipys_trust_ncg_fit(cls, pens):
    # From the start (no L-BFGS-B before it), to 1e-6 in every parameter.
    K = 4
    z, x, y, w = _data(6, n=500, K=K)
    cal = cls(tol=1e-10)
    sums = _Sums(x, y.astype(np.intp), w, 2)
    theta0 = cal._start(K, pens)
    with sums.blocks:
        res = cal._polish(sums, theta0, pens, 100)
    assert res.converged and res.grad_norm <= 1e-10
    if cls is MatrixScalingCalibrator:
        fun = ref.matrix_objective(x, y, w, pens["l2_off_diagonal"], pens["l2_intercept"],
                                   cal._free(K, pens))
    elif cls is StructuredMatrixScalingCalibrator:
        fun = ref.structured_objective(x, y, w, pens["l2_diagonal"], pens["l2_off_diagonal"],
                                       pens["l2_intercept"])
    else:
        fun = ref.vector_objective(x, y, w)
    theirs = minimize(lambda t: fun(t)[0], theta0, jac=lambda t: fun(t)[1],
                      hessp=lambda t, v: fun(t)[2] @ v, method="trust-ncg",
                      options={"gtol": 1e-11, "maxiter": 1000})
    t = theirs.x
    for _ in range(3):  # trust-ncg may stop near 1e-9: plain Newton steps (least squares)
        _, g, H = fun(t)
        t = t - np.linalg.lstsq(H, g, rcond=None)[0]
    assert np.max(np.abs(fun(t)[1])) < 1e-10
    np.testing.assert_allclose(res.x, t, rtol=0, atol=1e-6)
    assert res.f == pytest.approx(fun(t)[0], rel=1e-12, abs=0.0)


def test_newton_cg_minimises_a_quadratic_and_stops_at_tol():
    rng = np.random.default_rng(7)
    A = rng.normal(size=(6, 6))
    A = A @ A.T + np.eye(6)
    b = rng.normal(size=6)
    res, products = minimize_convex_newton_cg(
        lambda v: (0.5 * v @ A @ v - b @ v, A @ v - b),
        lambda v: (lambda d: A @ d, lambda r: r / np.diag(A)), np.zeros(6), tol=1e-12,
        max_iter=5)
    # truncated: each step's CG stops at 10 % of the gradient (sqrt(|g|) once it is small)
    assert res.converged and res.n_iter <= 5 and products <= 5 * 6
    np.testing.assert_allclose(res.x, np.linalg.solve(A, b), rtol=1e-10)
    start = np.linalg.solve(A, b)
    res, products = minimize_convex_newton_cg(
        lambda v: (0.5 * v @ A @ v - b @ v, A @ v - b),
        lambda v: (lambda d: A @ d, lambda r: r), start, tol=1e-6, max_iter=5)
    assert res.converged and res.n_iter == 0 and products == 0


def test_lbfgs_stopping_short_is_polished_to_tol_without_warning():
    # 3,000 x 20 logits with l2_off_diagonal=1: L-BFGS-B alone stopped at a gradient
    # of 1.2e-8 (> tol = 1e-8) and warned; the Newton-CG polish reaches tol.
    z, y = _bench_data(3000, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = MatrixScalingCalibrator(solver="lbfgs", l2_off_diagonal=1.0, max_iter=300)
        cal.fit(z, y)
    assert cal.converged_ and cal.grad_norm_ <= 1e-8 and cal.solver_ == "lbfgs"
    # the reported gradient is the true one at the returned parameters
    sums = _Sums(*_inputs(cal, z, y), 1)
    pens = cal._penalties()
    theta = np.hstack([cal.coef_, cal.intercept_[:, None]]).ravel()[cal._free(20, pens)]
    with sums.blocks:
        f, g, _ = cal._objective(sums, theta, False, pens)
    assert float(np.max(np.abs(g))) == cal.grad_norm_ and f == cal.loss_


def _inputs(cal, z, y):
    from venncal.parametric._affine import log_probabilities

    x = log_probabilities(z, "logit", None)
    return x, np.asarray(y, dtype=np.intp), np.ones(len(y))


@pytest.mark.parametrize("cls", [MatrixScalingCalibrator, StructuredMatrixScalingCalibrator])
def test_the_polished_fit_is_the_same_for_any_n_jobs(cls):
    # 9,000 rows: three blocks of the pool; a light max_iter so that the polish runs.
    z, y = _bench_data(9000, 6)
    fits = []
    for n_jobs in (1, 2, 3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fits.append(cls(solver="lbfgs", max_iter=25, n_jobs=n_jobs).fit(z, y))
    assert fits[0].n_iter_ <= 25
    for other in fits[1:]:
        np.testing.assert_array_equal(other.coef_, fits[0].coef_)
        np.testing.assert_array_equal(other.intercept_, fits[0].intercept_)
        assert other.grad_norm_ == fits[0].grad_norm_ and other.n_iter_ == fits[0].n_iter_


@pytest.mark.slow
@pytest.mark.parametrize("cls", [MatrixScalingCalibrator, StructuredMatrixScalingCalibrator])
def test_100_classes_converge_to_tol_without_warning(cls):
    # 10,100 parameters (L-BFGS-B, then the polish), the default light penalties.
    z, y = _bench_data(5000, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = cls().fit(z, y)
    assert cal.converged_ and cal.solver_ == "lbfgs" and cal.grad_norm_ <= 1e-8
