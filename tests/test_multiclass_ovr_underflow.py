"""One-vs-rest with a sigmoid base where every class's probability underflows (attack 39 F1).

Platt scaling's ``q_k = 1 / (1 + exp(a_k m_k + b_k))`` is 0 in float64 past
``a_k m_k + b_k = 745`` while ``log q_k`` is finite: the row's normalised
probabilities are ``softmax(log q)``, not ``1 / K``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venncal import (BetaCalibrator, IsotonicCalibrator, OneVsRestCalibrator, PlattCalibrator,
                     VennAbersCalibrator)


def _margins(seed=0, n=300, K=3, shift=2.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    m = rng.normal(size=(n, K))
    m[np.arange(n), y] += shift
    return m, y


def _literal(cal, x):
    """``softmax(log q)`` with ``log q_k = -log(1 + exp(a_k m_k + b_k))``, in exact-enough float64."""
    a = np.array([c.a_ for c in cal.calibrators_])
    b = np.array([c.b_ for c in cal.calibrators_])
    with np.errstate(over="ignore"):
        logq = -np.logaddexp(0.0, a * x + b)
    logq -= logq.max(axis=1, keepdims=True)
    e = np.exp(logq)
    return e / e.sum(axis=1, keepdims=True)


@pytest.fixture(scope="module")
def platt():
    m, y = _margins()
    return OneVsRestCalibrator(PlattCalibrator(), score="margin").fit(m, y)


def test_rows_that_underflow_are_normalised_from_the_logs(platt):
    x = np.array([[-370.0, -465.0, -376.0], [-368.0, -460.0, -375.0],
                  [-1000.0, -1010.0, -1020.0], [-300.0, -310.0, -320.0], [0.5, 0.1, -2.0]])
    got = platt.predict_proba(x)
    # before: the first three rows were [1/3, 1/3, 1/3]
    np.testing.assert_allclose(got[0], [0.00507541, 0.00460106, 0.99032353], rtol=1e-6)
    np.testing.assert_allclose(got, _literal(platt, x), rtol=1e-12, atol=0.0)
    np.testing.assert_array_equal(got.sum(axis=1) > 0, True)
    # rows that do not underflow are q / sum q, as before, bit for bit
    q = np.stack([c.predict_proba(x[4:, k])[:, 1] for k, c in enumerate(platt.calibrators_)], 1)
    np.testing.assert_array_equal(got[4:], q / q.sum(axis=1, keepdims=True))


def test_a_class_that_underflows_beside_small_ones_keeps_its_ratio(platt):
    # q's near 1e-300 (normal) beside one that underflows: its share is 1e-63, not 0
    x = np.array([[-355.0, -355.0, -355.0]])
    got = platt.predict_proba(x)
    assert got[0, 0] > 0.0
    np.testing.assert_allclose(got, _literal(platt, x), rtol=1e-12, atol=0.0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e5, 1e5), min_size=3, max_size=3), st.floats(-2000.0, 0.0))
def test_any_row_matches_the_literal_softmax(platt, row, shift):
    x = np.array([row]) + shift
    np.testing.assert_allclose(platt.predict_proba(x), _literal(platt, x), rtol=1e-9, atol=1e-300)


def test_a_beta_base_is_normalised_from_the_logs_too():
    rng = np.random.default_rng(1)
    K, n = 3, 400
    y = rng.integers(0, K, n)
    z = rng.normal(size=(n, K))
    z[np.arange(n), y] += 1.5
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    cal = OneVsRestCalibrator(BetaCalibrator()).fit(p, y)
    x = np.array([[5e-324, 5e-324, 1.0 - 2**-53]])  # softmax outputs at the doubles' edge
    logs = np.array([c._log_p1(x[:, k]) for k, c in enumerate(cal.calibrators_)])[:, 0]
    got = cal.predict_proba(x)[0]
    e = np.exp(logs - logs.max())
    np.testing.assert_allclose(got, e / e.sum(), rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("base", [IsotonicCalibrator(), VennAbersCalibrator()])
def test_ratio_bases_keep_their_rule(base):
    # isotonic: a row of zeros is 1/K; Venn-Abers has no log rule (its q is a ratio of weights)
    m, y = _margins(2)
    cal = OneVsRestCalibrator(base, score="margin").fit(m, y)
    assert all(c._log_p1(np.array([0.0])) is None for c in cal.calibrators_)
    x = np.array([[-50.0, -50.0, -50.0]])
    q = np.stack([c.predict_proba(x[:, k])[:, 1] for k, c in enumerate(cal.calibrators_)], 1)
    want = np.full((1, 3), 1 / 3) if q.sum() == 0 else q / q.sum()
    np.testing.assert_array_equal(cal.predict_proba(x), want)


def test_a_negated_sigmoid_base_normalises_from_the_logs_too(platt):
    """NegatedScoreCalibrator(PlattCalibrator()) on minus the margins is Platt on the margins,
    bit for bit, where every q_k underflows (it gave [1/3, 1/3, 1/3]: the wrapper had no logs)."""
    from venncal import NegatedScoreCalibrator

    m, y = _margins()
    negated = OneVsRestCalibrator(NegatedScoreCalibrator(PlattCalibrator()), score="margin")
    negated.fit(-m, y)
    x = np.array([[-370.0, -465.0, -376.0], [-3700.0, -4650.0, -3760.0], [0.5, 0.1, -2.0]])
    got = negated.predict_proba(-x)
    np.testing.assert_array_equal(got, platt.predict_proba(x))
    assert not np.allclose(got[1], 1 / 3)
