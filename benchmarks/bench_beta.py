"""Beta calibration ("abm") beside betacal and scikit-learn, against an independent tight fit.

    python benchmarks/bench_beta.py venncal|betacal|sklearn

Five seeds of 3,000 rows: scores ``s`` uniform in [0.001, 0.999], labels drawn from
``logit(p) = 2 ln s - 0.5 ln(1 - s) + 0.3``.  Each fit's parameters ``(a, b, c)`` are
compared with scipy's L-BFGS-B on the same unregularised objective (``ftol=1e-16``,
``gtol=1e-13``): the largest absolute parameter difference and the excess mean log loss,
and the fit's wall time (the first seed includes imports and numba loading).
``betacal`` is not a venncal dependency: run that one in a virtualenv that has it
(``pip install betacal``); it prints one JSON line per tool.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit


def data(seed, n=3000):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.001, 0.999, n)
    y = rng.uniform(size=n) < expit(2.0 * np.log(s) - 0.5 * np.log1p(-s) + 0.3)
    return s, y.astype(int)


def loss(t, X, y):
    u = X @ t[:2] + t[2]
    return float(np.mean(np.where(y == 1, np.logaddexp(0, -u), np.logaddexp(0, u))))


def grad(t, X, y):
    r = expit(X @ t[:2] + t[2]) - y
    return np.r_[X.T @ r, r.sum()] / len(y)


def independent(X, y):
    return minimize(loss, np.zeros(3), args=(X, y), jac=grad, method="L-BFGS-B",
                    options={"ftol": 1e-16, "gtol": 1e-13, "maxiter": 10000}).x


def fit(which, s, X, y):
    if which == "venncal":
        from venncal import BetaCalibrator
        c = BetaCalibrator().fit(s, y)
        return np.array([c.a_, c.b_, c.c_])
    if which == "betacal":
        from betacal import BetaCalibration
        lr = BetaCalibration("abm").fit(s, y).calibrator_.lr_
        return np.r_[lr.coef_[0], lr.intercept_]
    from sklearn.linear_model import LogisticRegression
    c = LogisticRegression(C=np.inf).fit(X, y)
    return np.r_[c.coef_[0], c.intercept_]


def main(which: str) -> None:
    rows = []
    for seed in range(5):
        s, y = data(seed)
        X = np.column_stack([np.log(s), -np.log1p(-s)])
        ref = independent(X, y)
        t0 = time.perf_counter()
        theta = fit(which, s, X, y)
        rows.append({"seed": seed, "max_abs_diff": float(np.max(np.abs(theta - ref))),
                     "loss_excess": loss(theta, X, y) - loss(ref, X, y),
                     "seconds": time.perf_counter() - t0})
    print(which, json.dumps(rows))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "venncal")
