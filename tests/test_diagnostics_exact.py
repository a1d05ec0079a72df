"""The exact cumulative path of the KS and Kuiper tests (issue 22).

``venncal._kernels.exact_sum`` (correctly rounded running sums, exact dot
products) against its literal twins in ``tests/reference/diagnostics.py``
(fractions, rounded once) bit for bit, on random, tied, constant and extreme
inputs; and the two tests against their twins, bit for bit, where huge weights
cancel beside small ones.
"""

from __future__ import annotations

from decimal import Decimal, localcontext

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference import diagnostics as ref
from venncal._kernels.exact_sum import exact_dot, run_sums
from venncal.metrics import ks_calibration_test, kuiper_calibration_test

#: Terms at the edges (the kernel's sums stay below 2**1020): huge, subnormal, 2**53 and its
#: neighbours, ordinary values; and signs.
EDGE = [2.0**1010, 2.0**1000 + 2.0**948, 1e-310, 5e-324, 2.0**53, 2.0**53 - 1, 2.0**53 + 2,
        1.0, 0.1, 1 / 3, 2.0**-53, 2.0**-1022, 0.0]
TERMS = st.builds(lambda x, s: s * x, st.sampled_from(EDGE), st.sampled_from([1.0, -1.0]))


def _positions(n, draw_bits):
    """Every run end ``n - 1`` and the positions flagged in ``draw_bits``."""
    return np.array([i for i in range(n) if i == n - 1 or draw_bits[i]], dtype=np.int64)


def _check(r, last):
    r = np.asarray(r, dtype=float)
    got = run_sums(r, last)
    want = ref.run_sums(r, last)
    assert [float(g).hex() for g in got] == [float(x).hex() for x in want]


@given(st.lists(st.tuples(TERMS, st.booleans()), min_size=1, max_size=24),
       st.booleans())
def test_run_sums_equal_the_exact_prefix_sums_at_the_edges(rows, cancel):
    r = [x for x, _ in rows]
    if cancel:  # a run that cancels exactly, then the small terms again
        r = r + [-x for x in r[::-1]] + r[: len(r) // 2]
    bits = [b for _, b in rows] * 3
    _check(r, _positions(len(r), bits))


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-2.0**1000,
                          max_value=2.0**1000), min_size=1, max_size=30),
       st.lists(st.booleans(), min_size=30, max_size=30))
def test_run_sums_equal_the_exact_prefix_sums_on_any_floats(r, bits):
    _check(r, _positions(len(r), bits))


@pytest.mark.parametrize("seed", range(4))
def test_run_sums_random_tied_constant(seed):
    rng = np.random.default_rng(seed)
    n = 300
    cases = [rng.normal(size=n), np.round(rng.normal(size=n), 1), np.full(n, 0.1),
             rng.normal(size=n) * 2.0 ** rng.integers(-1074, 990, n).astype(float)]
    for r in cases:
        last = np.sort(rng.choice(n, 40, replace=False)).astype(np.int64)
        _check(r, last)
        _check(r, np.arange(n, dtype=np.int64))


def test_run_sums_long_expansions_are_compressed_and_stay_exact():
    """Terms 2**(53 k) one bit apart in span: the exact sum needs ~38 components (compression)."""
    r = [2.0 ** (53 * k - 1074) for k in range(39)] + [1.0, -(2.0**990), 3.0 * 2.0**-1074]
    r = r + [-x for x in r[::2]] + r[1::3]
    _check(r, np.arange(len(r), dtype=np.int64))
    rng = np.random.default_rng(1)
    for _ in range(20):
        perm = rng.permutation(len(r))
        _check(np.asarray(r)[perm], np.arange(len(r), dtype=np.int64))


def test_run_sums_break_ties_by_the_rest():
    """The rounding of an expansion whose top two components sit on a midpoint."""
    one, half_ulp, tiny = 1.0, 2.0**-53, 2.0**-200
    for rest in (tiny, -tiny, 0.0):
        for base in (one, 1.0 + 2.0**-52, -one, 2.0):
            for lo in (half_ulp * abs(base), -half_ulp * abs(base) / 2, half_ulp * abs(base) / 2):
                _check([base, lo, rest], np.array([2], dtype=np.int64))
                _check([rest, lo, base], np.array([2], dtype=np.int64))


@given(st.lists(st.tuples(TERMS, TERMS), min_size=1, max_size=16))
def test_exact_dot_equals_the_exact_sum_of_products(pairs):
    a = np.array([abs(x) if abs(x) < 2.0**400 else 2.0**400 for x, _ in pairs])
    b = np.array([y if abs(y) < 2.0**400 else -(2.0**400) for _, y in pairs])
    assert exact_dot(a, b).hex() == ref.exact_dot(a, b).hex()


# -- the tests themselves --------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::venncal.WeightScaleWarning")
def test_a_small_deviation_beside_a_cancelling_huge_run_is_kept():
    """Issue 22: KS was 0 here (the deviation of weight 1 lost in 1e308 - 1e308)."""
    stat, _ = ks_calibration_test([0, 0, 1], [0.5, 0.5, 0.5], sample_weight=[1, 1e308, 1e308])
    assert stat == ref.ks([0, 0, 1], [0.5, 0.5, 0.5], [1, 1e308, 1e308])[0]
    # 0.5 / sqrt(0.25 * (1 + 2 * 1e308)) in 50 digits (2e308 itself overflows to inf, which made
    # this line compare with 0 and pass whatever the statistic was, under approx's hidden abs)
    with localcontext() as ctx:
        ctx.prec = 50
        exact = Decimal("0.5") / (Decimal("0.25") * (1 + 2 * Decimal(1e308))).sqrt()
    assert stat == pytest.approx(float(exact), rel=1e-15, abs=0.0)


@pytest.mark.filterwarnings("ignore::venncal.WeightScaleWarning")
def test_kuiper_beside_a_cancelling_huge_run_is_exact():
    """Issue 22: Kuiper was 8.5e-155 (twice the exact 4.2e-155) with rows of weight 1e308."""
    y, p, w = [0, 1, 0, 1], [0.5, 0.5, 0.3, 0.7], [1e308, 1e308, 1, 1]
    stat, _ = kuiper_calibration_test(y, p, sample_weight=w)
    assert stat == ref.kuiper(y, p, w)[0]
    # The path is 0, -0.3, -0.3, -0.3 + (1 - 0.7) (the two 1e308 rows cancel), so the range
    # is 0.3 over the root of the variance 2 * 1e308 * 0.25 + 0.3 * 0.7 + 0.7 * 0.3, in 50 digits
    # from the floats given.  (This line read 0.6 / sqrt(0.25 * 2e308 + 0.42), twice the value and
    # with 2e308 = inf, i.e. 0: it passed on anything below 1e-12.)
    with localcontext() as ctx:
        ctx.prec = 50
        d = [Decimal(v) for v in (0.3, 0.7, 1e308)]
        low, high = -d[0], max(Decimal(0), -d[0] + (1 - d[1]))
        var = 2 * d[2] * Decimal("0.25") + d[0] * (1 - d[0]) + d[1] * (1 - d[1])
        exact = (high - low) / var.sqrt()
    assert stat == pytest.approx(float(exact), rel=1e-15, abs=0.0)


WEIGHTS = st.sampled_from([1e-310, 1e-300, 1.0, 0.1, 1e308, 2.0**53 - 1, 2.0**53])
FORECASTS = st.sampled_from([1e-310, 0.25, 0.5, 0.7, 1 / 3, 1 - 2**-53])


@pytest.mark.filterwarnings("ignore::venncal.WeightScaleWarning")
@given(st.lists(st.tuples(st.booleans(), FORECASTS, WEIGHTS), min_size=2, max_size=12),
       st.randoms(use_true_random=False))
def test_cumulative_tests_equal_their_twins_to_the_bit(rows, rnd):
    y = np.array([r[0] for r in rows])
    p = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows])
    for mine, twin in ((ks_calibration_test, ref.ks), (kuiper_calibration_test, ref.kuiper)):
        try:
            want = twin(y, p, w)
        except ValueError:
            with pytest.raises(ValueError):
                mine(y, p, sample_weight=w)
            continue
        assert mine(y, p, sample_weight=w).statistic == want[0]
        perm = list(range(len(rows)))
        rnd.shuffle(perm)
        assert mine(y[perm], p[perm], sample_weight=w[perm]).statistic == want[0]


@pytest.mark.filterwarnings("ignore::venncal.WeightScaleWarning")  # the replicates' small totals
@pytest.mark.parametrize("tiny", [1e-300, 1e-310, 1e-321])
@pytest.mark.parametrize("weighted", [False, True])
def test_bootstrap_spiegelhalter_keeps_its_digits_at_subnormal_forecasts(tiny, weighted):
    # The bootstrap's Spiegelhalter column sums made row terms (and their products with the
    # weights) subnormal: 5e-15 relative off at 1e-310, every digit gone near 1e-321. Each
    # replicate must equal spiegelhalter_test (exact sums) on its count weights.
    from venncal.metrics import bootstrap_intervals, spiegelhalter_test

    rng = np.random.default_rng(7)
    n, n_boot = 40, 30
    p = rng.uniform(0.1, 1.0, n) * tiny
    y = np.zeros(n, dtype=int)
    y[:2] = rng.integers(0, 2, 2) if tiny > 1e-305 else 0
    w = rng.uniform(0.01, 1.0, n) if weighted else None
    got = bootstrap_intervals(y, p, metrics=["spiegelhalter_z"], n_boot=n_boot,
                              confidence=0.9, seed=3, sample_weight=w)["spiegelhalter_z"]
    draws = np.random.default_rng(3)
    base = np.ones(n) if w is None else w
    values = [spiegelhalter_test(y, p, sample_weight=base * np.bincount(
        draws.integers(0, n, size=n, dtype=np.int32), minlength=n)).statistic
        for _ in range(n_boot)]
    low, high = ref.percentile_interval(values, 0.9)
    assert got[0] == pytest.approx(low, rel=1e-13, abs=0.0)
    assert got[1] == pytest.approx(high, rel=1e-13, abs=0.0)


def test_bootstrap_does_not_warn_about_its_own_replicate_weights():
    # the fresh attack of 2026-11-26 (H3): ordinary weights (1, one 3) gave a WeightScaleWarning
    # per replicate ("sums to 75 over 184 rows"), about the bootstrap's internally scaled
    # weights; `venncal evaluate --bootstrap` printed 60 such lines. Warnings are errors here.
    from venncal.metrics import bootstrap_intervals

    rng = np.random.default_rng(0)
    p = rng.random(184)
    y = rng.random(184) < p
    w = np.ones(184)
    w[3] = 3.0
    got = bootstrap_intervals(y, p, metrics=["ks", "kuiper", "calibration_slope", "smooth_ece"],
                              sample_weight=w, n_boot=30)
    assert all(lo <= hi for lo, hi in got.values())
