"""The ECE's gaps from exact bin sums of ``w (y - p)`` (issue 22, attack 39 F3).

Each bin's gap ``|frac_pos - mean_pred|`` was the difference of two rounded
means: where they agree to their last digits the gap had no relative precision
(``ece([0, 1], [0.5, 0.5 + 2**-53])`` was 0, the exact ECE 2**-54).  It now
comes from the exact sum of ``w (y - p)`` over the bin, rounded once
(``venncal._kernels.exact_sum.bin_residuals``, checked bit for bit against its
fraction twin), and the ECEs (binary, top-label, classwise) and the MCE match
the exact rational definition to a few ulps relative, at the edges too.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference import diagnostics as ref
from reference.multiclass_metrics_naive import binned_errors
from venncal._kernels.exact_sum import bin_residuals
from venncal.metrics import calibration_bins, classwise_ece, ece, mce, top_label_ece

#: Predictions at the edges: 0, 1, subnormal, near 1, one ulp apart at 1/2, ordinary.
P_EDGE = [0.0, 1.0, 5e-324, 1e-310, 2.0**-1022, 1 - 2.0**-53, 0.5, 0.5 + 2.0**-53,
          0.5 - 2.0**-54, 0.7, 0.1, 1 / 3, 2.0**-60]
#: Weights as the ECE passes them to the kernel: each bin's divided by a power of two, below 1.
W_EDGE = [1.0, 0.5, 0.75, 2.0**-1074, 1e-310, 2.0**-600, 1 - 2.0**-53, 0.1]


def _exact_ece(y, p, w, n_bins, strategy="uniform"):
    pairs = [(float(pi), int(yi), Fraction(float(wi))) for yi, pi, wi in zip(y, p, w)]
    return binned_errors(pairs, n_bins, strategy)


def _close(got, want, ulps=64):
    # relative, and a few steps of the subnormals where the ECE is one (1e-310 of the weight:
    # its spacing 2**-1074 is more than 64 ulps relative there)
    assert abs(got - want) <= ulps * 2.0**-52 * abs(want) + 4 * 2.0**-1074, (got, want)


@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from(W_EDGE), st.booleans(),
                          st.sampled_from(P_EDGE)), min_size=1, max_size=20),
       st.sampled_from([1.0, 2.0**600]))
def test_bin_residuals_equal_their_fraction_twin(rows, scale):
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    w = np.array([r[1] for r in rows])
    y = np.array([float(r[2]) for r in rows])
    p = np.array([r[3] for r in rows])
    got = bin_residuals(ids, w, y, p, 3, scale)
    want = ref.bin_residuals(ids, w, y, p, 3, scale)
    assert [g.hex() for g in got] == [float(x).hex() for x in want]


@pytest.mark.parametrize("seed", range(3))
def test_bin_residuals_random_tied_constant(seed):
    rng = np.random.default_rng(seed)
    n = 400
    for p in (rng.random(n), np.round(rng.random(n), 1), np.full(n, 0.3)):
        y = (rng.random(n) < p).astype(float)
        ids = rng.integers(0, 5, n)
        for w in (np.ones(n), rng.random(n), 2.0 ** -rng.integers(0, 1074, n).astype(float)):
            got = bin_residuals(ids, w, y, p, 5, 2.0**600)
            want = ref.bin_residuals(ids, w, y, p, 5, 2.0**600)
            assert [g.hex() for g in got] == [float(x).hex() for x in want]


def test_the_gap_of_two_means_one_ulp_apart():
    """The regression: 0 before (both means rounded to 0.5); the exact ECE is 2**-54."""
    y, p = [0, 1], [0.5, 0.5 + 2.0**-53]
    assert ece(y, p) == 2.0**-54
    assert mce(y, p) == 2.0**-54
    assert calibration_bins(y, p).gap[5] == 2.0**-54


def test_a_bin_whose_means_agree_to_the_last_digit():
    """Ten rows near 0.7 with seven positives: the gap is 1e-16-ish, now to a few ulps."""
    y = np.array([1] * 7 + [0] * 3)
    p = 0.7 + np.array([1, -2, 3, 0, 1, -1, 2, 0, 0, 1]) * 2.0**-53
    want, want_m = _exact_ece(y, p, np.ones(10), 10)
    assert want > 0
    _close(ece(y, p), want, ulps=4)
    _close(mce(y, p), want_m, ulps=4)


@given(st.integers(1, 12), st.lists(st.integers(-4, 4), min_size=2, max_size=12),
       st.lists(st.sampled_from([1.0, 3.0, 2.0**-1000, 1e300, 0.25]), min_size=12,
                max_size=12), st.sampled_from(["uniform", "quantile"]))
def test_ece_matches_the_exact_definition_where_the_means_cancel(m, offsets, weights, strategy):
    """Rows at ``m/12`` plus a few ulps, ``m`` of 12 weight-units positive: every gap cancels."""
    n = len(offsets)
    q = m / 12
    p = np.clip(q + np.array(offsets) * np.spacing(q), 0.0, 1.0)
    y = (np.arange(n) < round(m * n / 12)).astype(int)
    w = np.array(weights[:n])
    want, want_m = _exact_ece(y, p, w, 3, strategy)
    _close(ece(y, p, n_bins=3, strategy=strategy, sample_weight=w), want)
    _close(mce(y, p, n_bins=3, strategy=strategy, sample_weight=w), want_m)


@given(st.lists(st.tuples(st.booleans(), st.sampled_from(P_EDGE),
                          st.sampled_from([1.0, 2.0, 1e-310, 1e300, 2.0**53 + 2, 0.1])),
                min_size=1, max_size=25),
       st.integers(1, 6))
def test_ece_matches_the_exact_definition_at_the_edges(rows, n_bins):
    y = np.array([int(r[0]) for r in rows])
    p = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows])
    want, want_m = _exact_ece(y, p, w, n_bins)
    _close(ece(y, p, n_bins=n_bins, sample_weight=w), want)
    _close(mce(y, p, n_bins=n_bins, sample_weight=w), want_m)


def test_top_label_and_classwise_ece_keep_the_cancelled_gap():
    """The multiclass ECEs bin through the same gaps."""
    proba = np.array([[0.5, 0.25, 0.25], [0.5 + 2.0**-53, 0.25 - 2.0**-53, 0.25]])
    y = [1, 0]  # top label: the first row wrong, the second right
    assert top_label_ece(y, proba, classes=[0, 1, 2]) == 2.0**-54
    want = Fraction(0)
    for k in range(3):
        yk = [int(c == k) for c in y]
        want += Fraction(_exact_ece(yk, proba[:, k], [1.0, 1.0], 10)[0])
    _close(classwise_ece(y, proba, classes=[0, 1, 2]), float(want / 3), ulps=4)
