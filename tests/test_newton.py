"""The parametric calibrators' Newton core in several variables (venncal/_newton.py)."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from venncal._newton import minimize_convex


def _logistic(X, y):
    def terms(beta):
        z = X @ beta
        f = -np.mean(y * log_expit(z) + (1 - y) * log_expit(-z))
        p = expit(z)
        g = X.T @ (p - y) / len(y)
        H = (X * (p * (1 - p))[:, None]).T @ X / len(y)
        return f, g, H
    return terms


@pytest.mark.parametrize("seed", range(5))
def test_logistic_regression_reaches_the_optimum(seed):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=300), rng.normal(size=300) ** 2, np.ones(300)])
    y = (rng.random(300) < expit(X @ [1.5, -0.7, 0.3])).astype(float)
    m = minimize_convex(_logistic(X, y), np.zeros(3), tol=1e-12)
    assert m.converged and m.grad_norm <= 1e-12
    ref = minimize(lambda b: _logistic(X, y)(b)[0], np.zeros(3),
                   jac=lambda b: _logistic(X, y)(b)[1], method="BFGS", tol=1e-14)
    np.testing.assert_allclose(m.x, ref.x, rtol=1e-6, atol=1e-7)
    assert m.f <= ref.fun + 1e-15


def test_separable_data_is_reported_not_converged():
    X = np.column_stack([np.arange(-5.0, 5.0), np.ones(10)])
    y = (X[:, 0] > 0).astype(float)
    m = minimize_convex(_logistic(X, y), np.zeros(2), tol=1e-12, max_iter=40)
    assert not m.converged


def test_singular_hessian_is_damped():
    # A duplicated column: the Hessian is singular; the gradient still goes to 0.
    rng = np.random.default_rng(1)
    x = rng.normal(size=200)
    X = np.column_stack([x, x, np.ones(200)])
    y = (rng.random(200) < expit(x)).astype(float)
    m = minimize_convex(_logistic(X, y), np.zeros(3), tol=1e-10)
    one = minimize_convex(_logistic(X[:, 1:], y), np.zeros(2), tol=1e-12)
    assert m.grad_norm <= 1e-10 and one.converged
    np.testing.assert_allclose([m.x[0] + m.x[1], m.x[2]], one.x, rtol=1e-7, atol=1e-9)


def test_already_at_the_minimum_takes_no_step():
    m = minimize_convex(lambda x: (float(x @ x), 2 * x, 2 * np.eye(2)), np.zeros(2))
    assert m.converged and m.n_iter == 0
