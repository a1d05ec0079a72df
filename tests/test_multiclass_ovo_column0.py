"""One-vs-one coupling takes each pair calibrator's column 0, not ``1 - column 1``.

A class of weight 1 against classes of weight 1e20 has pairwise probabilities
near 1e-21 that ``1 - r`` rounds to 0 (isotonic) or to 2**-53 (BBQ); the
coupled probability of that class must keep them (attack 13, F3).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from reference import multiclass as ref

from venncal import OneVsOneCalibrator, VennAbersCalibrator
from venncal.baselines import BBQCalibrator, IsotonicCalibrator
from venncal.multiclass import couple
from venncal.multiclass._scores import pair_parts, pair_scores

QUERIES = np.array([[0.05, 0.5, 0.45], [0.1, 0.2, 0.7]])


def _rare_class_data():
    rng = np.random.default_rng(1)
    p = rng.dirichlet([1, 1, 1], 300)
    y = np.array([rng.choice(3, p=row) for row in p])
    return p, y, np.where(y == 0, 1.0, 1e20)


def _exact(cal, x, method):
    """The coupling in Fractions of the pair calibrators' own two columns."""
    first, second = cal.pairs_[:, 0], cal.pairs_[:, 1]
    b = pair_scores(pair_parts(x, cal.score), cal.score, first, second)
    cols = [c.predict_proba(q) for c, q in zip(cal.calibrators_, b, strict=True)]
    K = 3
    out = []
    for t in range(x.shape[0]):
        R = [[Fraction(0)] * K for _ in range(K)]
        for q, (i, j) in enumerate(zip(first.tolist(), second.tolist(), strict=True)):
            R[i][j] = Fraction(float(cols[q][t, 0]))
            R[j][i] = Fraction(float(cols[q][t, 1]))
        if method == "normalize":
            p = [sum(R[i]) for i in range(K)]
        else:  # price
            p = [Fraction(0) if any(R[i][j] == 0 for j in range(K) if j != i)
                 else 1 / (sum(1 / R[i][j] for j in range(K) if j != i) - (K - 2))
                 for i in range(K)]
        total = sum(p)
        out.append([float(v / total) for v in p])
    return np.array(out)


@pytest.mark.parametrize("method", ["normalize", "price"])
@pytest.mark.parametrize("base", [IsotonicCalibrator, BBQCalibrator])
def test_rare_class_keeps_its_pairwise_probabilities(base, method):
    p, y, w = _rare_class_data()
    cal = OneVsOneCalibrator(base(), coupling=method).fit(p, y, sample_weight=w)
    got = cal.predict_proba(QUERIES)
    want = _exact(cal, QUERIES, method)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    if method == "normalize":  # 0.0 (isotonic) or 7.4e-17 (BBQ) from 1 - column 1
        assert (got[:, 0] > 0).all() and (got[:, 0] < 1e-20).all()


def test_wu_lin_weng_keeps_the_rare_class():
    p, y, w = _rare_class_data()
    cal = OneVsOneCalibrator(BBQCalibrator(), coupling="wu-lin-weng").fit(p, y, sample_weight=w)
    got = cal.predict_proba(QUERIES)
    assert (got[:, 0] >= 0).all() and (got[:, 0] < 1e-20).all()  # was 7e-17 from 1 - r
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=0, atol=1e-15)


@pytest.mark.parametrize("method", ["normalize", "price", "wu-lin-weng"])
def test_couple_with_column0_equals_its_formula(method):
    rng = np.random.default_rng(15)
    K = 4
    first, second = np.triu_indices(K, 1)
    r = rng.uniform(0.02, 0.98, size=(20, len(first)))
    r0 = (1.0 - r) * rng.uniform(0.9, 1.1, size=r.shape)  # column 0 need not be 1 - r
    got = couple(r.T, first, second, K, method, r0=r0.T)
    want = np.array([ref.couple_row(a, K, method, b) for a, b in zip(r, r0, strict=True)])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="r0 must have the shape of r"):
        couple(r.T, first, second, K, method, r0=r0)


@pytest.mark.parametrize("method", ["normalize", "price", "wu-lin-weng"])
def test_default_column0_is_one_minus_r_bit_for_bit(method):
    rng = np.random.default_rng(3)
    first, second = np.triu_indices(3, 1)
    r = rng.uniform(0.0, 1.0, size=(3, 9))
    want = couple(r, first, second, 3, method)
    assert np.array_equal(couple(r, first, second, 3, method, r0=1.0 - r), want)


@pytest.mark.parametrize("merge", ["log", "brier"])
def test_venn_abers_pairs_use_their_predict_proba(merge):
    # the fast table path gives the same column 0 as each calibrator's predict_proba
    p, y, w = _rare_class_data()
    cal = OneVsOneCalibrator(VennAbersCalibrator(merge=merge), coupling="normalize")
    cal.fit(p, y, sample_weight=w)
    x = np.vstack([QUERIES, np.random.default_rng(2).dirichlet([1, 1, 1], 40)])
    got = cal.predict_proba(x)
    want = _exact(cal, x, "normalize")
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


@pytest.mark.parametrize("merge", ["log", "brier"])
def test_venn_abers_table_path_column0_is_predict_proba_bit_for_bit(merge):
    p, y, w = _rare_class_data()
    cal = OneVsOneCalibrator(VennAbersCalibrator(merge=merge)).fit(p, y, sample_weight=w)
    rng = np.random.default_rng(4)
    x = np.vstack([QUERIES, rng.dirichlet([1, 1, 1], 200), rng.dirichlet([0.05] * 3, 200),
                   [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1 / 3] * 3]])
    first, second = cal.pairs_[:, 0], cal.pairs_[:, 1]
    b = pair_scores(pair_parts(x, cal.score), cal.score, first, second)
    cols = [c.predict_proba(q) for c, q in zip(cal.calibrators_, b, strict=True)]
    r0, r1 = cal._binary_proba(x, column0=True)
    assert np.array_equal(r1, np.stack([v[:, 1] for v in cols]))
    assert np.array_equal(r0, np.stack([v[:, 0] for v in cols]))
    # below and above every table (p0 = 0 below: q0 = 1 there)
    z = np.array([[1.0, 1e-300, 1e-300], [1e-300, 1.0, 1e-300], [1e-300, 1e-300, 1.0]])
    b = pair_scores(pair_parts(z, cal.score), cal.score, first, second)
    cols = [c.predict_proba(q) for c, q in zip(cal.calibrators_, b, strict=True)]
    r0, r1 = cal._binary_proba(z, column0=True)
    assert np.array_equal(r0, np.stack([v[:, 0] for v in cols]))
