"""The Jumper kernel against its literal twins (tests/reference/jumper_naive.py) and the paper."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from reference import jumper_naive as ref

from venncal._kernels.jumper import jumper_run

E5 = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])


def quadratic_table(p, eps=E5):
    return np.ascontiguousarray(p + np.asarray(eps)[:, None] * (p * (1.0 - p)))


def run(p, y, table, rates, state=None):
    """Call the kernel on a fresh (or the given) state; return (log10 S, p', state)."""
    p = np.ascontiguousarray(p, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.bool_)
    rates = np.asarray(rates, dtype=np.float64)
    R, K = rates.shape[0], table.shape[0]
    if state is None:
        state = (np.full((R, K), 1.0 / K), np.zeros(R), np.zeros(R))
    w, hi, lo = (a.copy() for a in state)
    log10_s = np.empty(p.shape[0])
    proba = np.empty(p.shape[0])
    jumper_run(p, y, np.ascontiguousarray(table), rates, w, hi, lo, log10_s, proba)
    return log10_s, proba, (w, hi, lo)


def log10_loss(proba, y):
    return -math.fsum(np.log10(np.where(y, proba, 1.0 - proba)))


def random_stream(seed, n, lo=0.05, hi=0.95, bias=0.0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(lo, hi, n)
    y = rng.random(n) < np.clip(p + bias, 0.0, 1.0)
    return p, y


def as_floats(decimals, log10=False):
    return np.array([float(d.log10()) if log10 else float(d) for d in decimals])


# ------------------------------------------------------------- against the twins


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("J", [1.0, 0.3, 0.01, 1e-4])
def test_jumper_matches_algorithms_1_and_2_step_by_step(seed, J):
    p, y = random_stream(seed, 80, bias=0.15 * (seed - 1.5))
    table = quadratic_table(p)
    log10_s, proba, _ = run(p, y, table, [J])
    assert_allclose(log10_s, as_floats(ref.jumper_martingale(p, y, table, J), log10=True),
                    rtol=0, atol=1e-13)
    assert_allclose(proba, as_floats(ref.jumper_predictor(p, y, table, J)), rtol=1e-14)


@pytest.mark.parametrize("seed", range(3))
def test_mean_jumper_matches_its_definition(seed):
    rates = [1.0, 0.1, 0.01, 0.001]
    p, y = random_stream(seed, 60, bias=0.2)
    rng = np.random.default_rng(seed)
    table = np.ascontiguousarray(rng.uniform(0.01, 0.99, (3, 60)))  # any family table
    log10_s, proba, _ = run(p, y, table, rates)
    assert_allclose(log10_s, as_floats(ref.mean_jumper_martingale(p, y, table, rates),
                                       log10=True), rtol=0, atol=1e-13)
    assert_allclose(proba, as_floats(ref.mean_jumper_predictor(p, y, table, rates)), rtol=1e-14)


def test_one_rate_mean_jumper_is_the_jumper_bit_for_bit():
    p, y = random_stream(7, 300)
    table = quadratic_table(p)
    a = run(p, y, table, [0.05])
    b = run(p, y, table, [0.05, 0.05])  # the average of two equal martingales
    assert_allclose(b[0], a[0], rtol=0, atol=1e-13)
    assert_array_equal(b[1], a[1])


# ------------------------------------------------------- exact at any magnitude


@pytest.mark.parametrize("rates", [[0.01], [1.0, 0.1, 0.01, 0.001]])
def test_beyond_float_range_against_decimal_reference(rates):
    # Labels are mostly 1 where the base says ~0.1: S grows to ~10^1300.
    p, y = random_stream(11, 5000, lo=0.02, hi=0.3, bias=0.7)
    table = quadratic_table(p)
    log10_s, proba, _ = run(p, y, table, rates)
    expected = ref.mean_jumper_martingale(p, y, table, rates)
    assert float(expected[-1].log10()) > 1000
    assert_allclose(log10_s, as_floats(expected, log10=True), rtol=1e-12, atol=1e-12)
    # The identity log10 S_N = L_base - L_Jumper, with losses summed exactly.
    assert log10_s[-1] == pytest.approx(log10_loss(p, y) - log10_loss(proba, y), rel=1e-9)
    ref_proba = ref.mean_jumper_predictor(p[:400], y[:400], table[:, :400], rates)
    assert_allclose(proba[:400], as_floats(ref_proba), rtol=1e-13)


def test_capital_far_below_float_range():
    # Base forecasts are right, the family is all wrong: S falls below 10^-1000.
    p, y = random_stream(12, 8000)
    table = np.vstack([1.0 - p, np.full_like(p, 0.5)])
    log10_s, proba, _ = run(p, y, table, [1.0])
    expected = ref.jumper_martingale(p, y, table, 1.0)
    assert float(expected[-1].log10()) < -1000
    assert log10_s[-1] == pytest.approx(float(expected[-1].log10()), rel=1e-12)
    assert log10_s[-1] == pytest.approx(log10_loss(p, y) - log10_loss(proba, y), rel=1e-9)


@pytest.mark.parametrize("rates", [[0.01], [1.0, 0.1, 0.01, 0.001]])
def test_log_loss_identity_on_long_streams(rates):
    p, y = random_stream(3, 200_000, lo=0.1, hi=0.9, bias=0.1)
    log10_s, proba, _ = run(p, y, quadratic_table(p), rates)
    assert log10_s[-1] > 1000
    assert log10_s[-1] == pytest.approx(log10_loss(p, y) - log10_loss(proba, y), rel=1e-9)


# ------------------------------------------------------------ paper's statements


def test_jump_rate_one_predicts_the_family_average():
    # J = 1 redraws the state uniformly at every step: p'_n is the plain
    # average of f_eps(p_n) and S_n is the product of B_avg / B_p.  With E
    # symmetric about 0 the quadratic family averages to p: p' = p, S = 1.
    p, y = random_stream(5, 500)
    log10_s, proba, _ = run(p, y, quadratic_table(p), [1.0])
    assert_allclose(proba, p, rtol=1e-15)
    assert_allclose(log10_s, 0.0, atol=1e-12)
    table = quadratic_table(p, eps=[0.0, 1.0])  # not symmetric: learns nothing, but moves
    log10_s, proba, _ = run(p, y, table, [1.0])
    assert_allclose(proba, table.mean(axis=0), rtol=1e-15)
    b = np.where(y, table.mean(axis=0), 1 - table.mean(axis=0)) / np.where(y, p, 1 - p)
    assert_allclose(log10_s, np.cumsum(np.log10(b)), atol=1e-12)


@pytest.mark.parametrize("J", [1.0, 0.5, 0.01])
def test_mixing_step_preserves_total_capital(J):
    # When all experts agree, moving capital between them (line 4) must not
    # change it: S is the elementary martingale of that one function.
    p, y = random_stream(6, 400, bias=0.2)
    f = np.clip(p + 0.1, 0, 1)
    log10_s, _, (w, _, _) = run(p, y, np.vstack([f, f, f]), [J])
    b = np.where(y, f, 1 - f) / np.where(y, p, 1 - p)
    assert_allclose(log10_s, np.cumsum(np.log10(b)), atol=1e-12)
    # and the capital's distribution over the experts stays normalised.
    p, y = random_stream(8, 400)
    _, _, (w, _, _) = run(p, y, quadratic_table(p), [J, J / 3])
    assert_allclose(w.sum(axis=1), 1.0, rtol=1e-14)


def regret_bound(n, k, K, J):
    """Algorithm 1's prior on a path with k switches, as printed (uniform redraw)."""
    stay = 1 - J + J / K
    return math.log(K) + k * math.log(K / J) + (n - k - 1) * math.log(1 / stay)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("J", [0.5, 0.05, 0.001])
def test_section_4_regret_bound_against_random_switching(seed, J):
    rng = np.random.default_rng(seed)
    n, K = 300, 5
    p, y = random_stream(seed, n, bias=0.3 * (seed % 3 - 1))
    table = quadratic_table(p)
    _, proba, _ = run(p, y, table, [J])
    loss = -math.fsum(np.log(np.where(y, proba, 1 - proba)))
    for switches in (0, 1, 5, 50, n - 1):
        theta = np.repeat(rng.integers(0, K, switches + 1), np.diff(
            np.r_[0, np.sort(rng.choice(np.arange(1, n), switches, replace=False)), n]))
        k = int(np.count_nonzero(theta[1:] != theta[:-1]))
        f = table[theta, np.arange(n)]
        expert_loss = -math.fsum(np.log(np.where(y, f, 1 - f)))
        assert loss <= expert_loss + regret_bound(n, k, K, J) + 1e-9


def test_printed_bound_needs_log_K_per_switch():
    # Section 4 prints k log(|E| - 1) + (n - k - 1) log 1/(1 - J): the bound of
    # Herbster and Warmuth's fixed share, which jumps only to *other* experts.
    # Algorithm 1 redraws from all of E, so a switch costs log(|E|/J).  Two
    # constant experts and alternating labels break the printed bound.
    n, J = 200, 0.5
    y = np.arange(n) % 2 == 1
    p = np.full(n, 0.5)
    table = np.vstack([np.full(n, 0.01), np.full(n, 0.99)])
    _, proba, _ = run(p, y, table, [J])
    loss = -math.fsum(np.log(np.where(y, proba, 1 - proba)))
    expert_loss = -n * math.log(0.99)  # theta follows the labels, k = n - 1
    k = n - 1
    printed = math.log(2) + k * math.log(2 - 1) + k * math.log(1 / J)
    assert loss > expert_loss + printed
    assert loss <= expert_loss + regret_bound(n, k, 2, J)


def test_mean_jumper_loss_within_log_rates_of_the_best_rate():
    rates = [1.0, 0.1, 0.01, 0.001]
    for seed in range(4):
        p, y = random_stream(seed, 3000, bias=0.1 * seed)
        table = quadratic_table(p)
        mean = log10_loss(run(p, y, table, rates)[1], y)
        best = min(log10_loss(run(p, y, table, [J])[1], y) for J in rates)
        assert mean <= best + math.log10(len(rates)) + 1e-9


def test_continuing_a_stream_is_bit_exact():
    p, y = random_stream(9, 1000, bias=0.2)
    table = quadratic_table(p)
    rates = [1.0, 0.1, 0.01]
    whole = run(p, y, table, rates)
    first = run(p[:377], y[:377], table[:, :377], rates)
    second = run(p[377:], y[377:], table[:, 377:], rates, state=first[2])
    assert_array_equal(np.r_[first[0], second[0]], whole[0])
    assert_array_equal(np.r_[first[1], second[1]], whole[1])
    for a, b in zip(second[2], whole[2], strict=True):
        assert_array_equal(a, b)


def test_expert_with_zero_probability_and_a_dead_martingale():
    # One expert says 0 for a label that happens: it loses its capital, the
    # others keep theirs.  When all say 0, S becomes 0 for good.
    p = np.array([0.5, 0.5, 0.5])
    y = np.array([True, True, False])
    table = np.array([[0.0, 0.0, 0.0], [0.5, 0.5, 0.5]])
    log10_s, proba, _ = run(p, y, table, [0.5])
    assert np.isfinite(log10_s).all()
    table = np.array([[0.0, 0.5, 0.5], [0.0, 0.5, 0.5]])
    log10_s, proba, _ = run(p, y, table, [0.5, 1.0])
    assert (log10_s == -np.inf).all()
    assert_allclose(proba, [0.0, 0.5, 0.5])


def test_mean_jumper_keeps_a_rate_far_behind_exactly():
    # A rate 10^1000 behind the others is tracked exactly, not lost to
    # underflow: each rate's state evolves as if it ran alone.
    p, y = random_stream(13, 3000, bias=0.2)
    table = quadratic_table(p)
    behind = -1000 * math.log(10)
    state = (np.full((2, 5), 0.2), np.array([0.0, behind]), np.zeros(2))
    log10_s, _, (w, hi, lo) = run(p, y, table, [1.0, 0.3], state=state)
    alone = run(p, y, table, [0.3], state=(np.full((1, 5), 0.2), np.array([behind]), np.zeros(1)))
    assert_array_equal(w[1], alone[2][0][0])
    assert hi[1] == alone[2][1][0]
    assert lo[1] == alone[2][2][0]
    assert_allclose(log10_s, np.logaddexp(0.0, alone[0] * math.log(10)) / math.log(10)
                    - math.log10(2), rtol=1e-13, atol=1e-13)
