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


def test_one_variable_search_pins_a_minimiser_below_a_flat_stretch():
    # f(x) = x^2 / 2 + 1e-300 * exp(-x / 1e-298) (convex): f' = x - 1e-2 exp(-x / 1e-298),
    # minimiser 6.75e-296. From x = 1, |x f'| <= 1e-12 holds at x ~ 1e-6, some 1e289 times
    # too high (the search stopped at 9.5e-7 before): it must not stop there.
    from venncal._newton import minimize_convex_nonnegative

    import math

    def terms(x):
        e = math.exp(-x / 1e-298)
        return (0.5 * x * x + 1e-300 * e, x - 1e-2 * e, 1.0 + 1e-2 * e / 1e-298,
                -(1e-2 * e / 1e-298) / 1e-298)

    m = minimize_convex_nonnegative(terms, start=1.0, tol=1e-12, max_iter=200)
    # the root of x = 1e-2 exp(-x / 1e-298), by bisection in units of 1e-298
    lo, hi = 0.0, 1000.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if mid < 1e-2 * 1e298 * math.exp(-mid) else (lo, mid)
    root = 0.5 * (lo + hi) * 1e-298
    assert m.converged and m.n_iter < 100
    assert m.x == pytest.approx(root, rel=1e-6, abs=0.0)
    # an ordinary quadratic stops where it did (the pin costs nothing): one Halley step
    q = minimize_convex_nonnegative(lambda x: ((x - 3.0) ** 2, 2 * (x - 3.0), 2.0, 0.0),
                                    start=1.0, tol=1e-12, max_iter=50)
    assert q.converged and q.x == 3.0 and q.n_iter == 2
