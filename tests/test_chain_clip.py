"""``ChainedCalibrator``'s ``point="clip"`` and ``"cap"``: Venn-Abers guards the first stage."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from reference.naive import ivap_from_summary

import venncal
from venncal import (
    ChainedCalibrator,
    CrossVennAbersCalibrator,
    OneVsOneCalibrator,
    OneVsRestCalibrator,
    PlattCalibrator,
    TemperatureCalibrator,
    VennAbersCalibrator,
)


def _binary(n=600, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n)
    return s, (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(int)


def _classes(n=900, K=4, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, K)) * 3
    p = np.exp(z / 2) / np.exp(z / 2).sum(axis=1, keepdims=True)
    return z, np.array([rng.choice(K, p=r) for r in p])


@pytest.mark.parametrize("fitting", ["same", "split"])
def test_binary_clip_is_the_first_stage_inside_the_interval_and_its_nearest_end_outside(fitting):
    s, y = _binary()
    chain = ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator(), fitting=fitting,
                              random_state=0, point="clip").fit(s, y)
    t = np.linspace(-4, 4, 301)
    q = chain.transform(t)
    p0, p1 = chain.predict_interval(t).T
    got = chain.predict_proba(t)
    np.testing.assert_array_equal(got[:, 1], np.clip(q, p0, p1))
    low = got[:, 1] <= 0.5  # column 0 is 1 - p there; above, the complement of its case
    np.testing.assert_array_equal(got[low, 0], 1.0 - got[low, 1])
    assert np.all(np.abs((got[:, 0] - 1.0) + got[:, 1]) <= 2.0**-53)
    assert np.all((p0 <= got[:, 1]) & (got[:, 1] <= p1))
    inside = (p0 <= q) & (q <= p1)
    assert inside.any() and (~inside).any()  # both cases are exercised
    np.testing.assert_array_equal(got[inside, 1], q[inside])
    # the intervals are those of the default chain
    default = ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator(), fitting=fitting,
                                random_state=0).fit(s, y)
    np.testing.assert_array_equal(default.predict_interval(t), chain.predict_interval(t))
    np.testing.assert_array_equal(chain.predict(t), chain.classes_[np.argmax(got, axis=1)])


def test_cross_clip_uses_the_mean_of_the_fold_first_stages():
    s, y = _binary()
    chain = ChainedCalibrator(PlattCalibrator(), CrossVennAbersCalibrator(), fitting="cross",
                              cv=3, random_state=0, point="clip").fit(s, y)
    t = np.linspace(-3, 3, 50)
    q = chain.transform(t).mean(axis=1)
    p0, p1 = chain.predict_interval(t).T
    np.testing.assert_array_equal(chain.predict_proba(t)[:, 1], np.clip(q, p0, p1))


def test_multiclass_clip_clips_each_class_then_renormalises():
    z, y = _classes()
    then = OneVsRestCalibrator(VennAbersCalibrator(), score="proba")
    chain = ChainedCalibrator(TemperatureCalibrator(), then, point="clip").fit(z, y)
    q = chain.transform(z[:200])
    iv = chain.predict_interval(z[:200])
    c = np.clip(q, iv[..., 0], iv[..., 1])
    got = chain.predict_proba(z[:200])
    np.testing.assert_allclose(got, c / c.sum(axis=1, keepdims=True), rtol=0, atol=0)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-15)


def test_clip_refuses_second_stages_without_one_interval_per_class():
    z, y = _classes()
    ovo = OneVsOneCalibrator(VennAbersCalibrator(), score="proba")
    with pytest.raises(ValueError, match="only a one-vs-rest second stage"):
        ChainedCalibrator(TemperatureCalibrator(), ovo, point="clip").fit(z, y)
    s, yb = _binary()
    with pytest.raises(ValueError, match="gives no intervals"):
        ChainedCalibrator(PlattCalibrator(), PlattCalibrator(), point="clip").fit(s, yb)
    with pytest.raises(ValueError, match="point"):
        ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator(), point="mean").fit(s, yb)


def test_clip_chain_saves_and_loads_bit_for_bit_and_default_files_are_unchanged(tmp_path):
    s, y = _binary()
    chain = ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator(), point="clip").fit(s, y)
    venncal.save(chain, tmp_path / "c.json")
    back = venncal.load(tmp_path / "c.json")
    t = np.linspace(-3, 3, 40)
    np.testing.assert_array_equal(back.predict_proba(t), chain.predict_proba(t))
    plain = ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator()).fit(s, y)
    venncal.save(plain, tmp_path / "p.json")
    assert '"point"' not in (tmp_path / "p.json").read_text()


def _heavy(seed, heavy, n=400):
    """Scores and labels with class 1 rows of weight ``heavy``: probabilities near 1."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n) * 3
    y = (rng.random(n) < 1 / (1 + np.exp(-3 * s))).astype(int)
    return s, y, np.where(y == 1, heavy, 1.0)


def _exact_clip_complement(first, first_c, p0, p1):
    """``1 - clip(first, p0, p1)`` exactly; the first stage's exact value from its closer column."""
    f = 1 - Fraction(first_c) if first > 0.5 else Fraction(first)
    return 1 - min(max(f, p0), p1)


@pytest.mark.parametrize("heavy", [1e20, 1e10, 1e3, 1.0])
@pytest.mark.parametrize("fitting", ["same", "split"])
def test_binary_clip_column_0_is_the_complement_of_its_case_exactly(fitting, heavy):
    # Column 0 near 1 (attack 13 F7): the first stage's column 0 where it is kept, 1 - p0 or
    # 1 - p1 of the second stage's weights where clipped, against exact Venn-Abers of
    # then_'s summary; main returned 1.0 - p (0.0 at 1e20; 4e-5 relative at 1e10).
    s, y, w = _heavy(3, heavy)
    chain = ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator(), fitting=fitting,
                              random_state=0, point="clip").fit(s, y, sample_weight=w)
    t = np.array([-6.0, -2.0, 0.0, 0.3, 1.0, 2.0, 5.0, 9.0, 14.0])
    got = chain.predict_proba(t)
    first = chain.transform(t)
    first_c = chain.first_.predict_proba(t)[:, 0]
    then = chain.then_
    p0, p1 = ivap_from_summary(then.scores_, then.weights_, then.positive_weights_, first,
                               exact=True, b=then.negative_weights_)
    np.testing.assert_array_equal(got[:, 1], np.clip(first, *chain.predict_interval(t).T))
    for i in range(t.shape[0]):
        if got[i, 1] <= 0.5:
            assert got[i, 0] == 1.0 - got[i, 1]
            continue
        exact = _exact_clip_complement(first[i], first_c[i], p0[i], p1[i])
        # the complements are correctly rounded quotients (2 ulps in double-double mode)
        assert abs(Fraction(got[i, 0]) - exact) <= 2 * Fraction(math.ulp(float(exact))), (
            i, got[i, 0], float(exact))
        if exact > 0:
            assert got[i, 0] > 0


def test_cross_clip_column_0_keeps_the_folds_complements():
    s, y, w = _heavy(3, 1e10)
    chain = ChainedCalibrator(PlattCalibrator(), CrossVennAbersCalibrator(), fitting="cross",
                              cv=3, random_state=0, point="clip").fit(s, y, sample_weight=w)
    t = np.array([0.3, 1.0, 2.0, 9.0])
    got = chain.predict_proba(t)
    x = chain.transform(t)
    first = x.mean(axis=1)
    high = chain.predict_interval(t)[:, 1]
    assert np.all(first > high)  # lowered to GM(p1) near 1: column 0 is 1 - GM(p1)
    q1 = np.array([
        [float(1 - v) for v in ivap_from_summary(c.scores_, c.weights_, c.positive_weights_,
                                                 x[:, k], exact=True, b=c.negative_weights_)[1]]
        for k, c in enumerate(chain.then_.calibrators_)
    ])
    expected = -np.expm1(np.mean(np.log1p(-q1), axis=0))
    np.testing.assert_allclose(got[:, 0], expected, rtol=1e-13)
    # main's 1.0 - p was off by 1e-6 .. 2e-5 relative here
    assert np.all(np.abs(got[:, 0] - (1.0 - got[:, 1])) > 1e-7 * got[:, 0])


@pytest.mark.parametrize("seed", range(4))
def test_pair_complements_are_the_exact_complements_of_the_venn_abers_pair(seed):
    # 1 - p0 from q0_, 1 - p1 from the mirrored summary: each within 2 ulps of exact
    from venncal.chain._complements import pair_complements

    rng = np.random.default_rng(seed)
    n = 60
    s = np.round(rng.normal(size=n), 1)  # ties
    y = (rng.random(n) < 1 / (1 + np.exp(-3 * s))).astype(int)
    w = np.where(y == 1, [1e20, 1e10, 7.5, 1.0][seed], rng.uniform(0.5, 2.0, n))
    cal = VennAbersCalibrator().fit(s, y, sample_weight=w)
    q = np.concatenate([np.unique(s), [-9.0, 9.0, 0.05, 1.15]])
    low_c, high_c = pair_complements(cal, q, cal.predict_interval(q))
    p0, p1 = ivap_from_summary(cal.scores_, cal.weights_, cal.positive_weights_, q, exact=True,
                               b=cal.negative_weights_)
    for got, exact in ((low_c, [1 - v for v in p0]), (high_c, [1 - v for v in p1])):
        for g, e in zip(got.tolist(), exact, strict=True):
            assert abs(Fraction(g) - e) <= 2 * Fraction(math.ulp(float(e))), (g, float(e))


@pytest.mark.parametrize("light", [1.0, 3.0, 0.1])
def test_pair_complements_are_exact_where_the_negative_weight_is_not_a_double(light):
    # A light class tied with a heavy one: w - a rounds (1e20 - 3 is not a double), so
    # the mirrored summary the chain used to build was another model and it fell back
    # to 1.0 - p1 (0.0 where the exact 1 - p1 is about 1e-20).  q1_ is computed by the
    # upper table's own sweep, which adds w and -a exactly.
    from venncal.chain._complements import pair_complements

    s = np.array([0.0, 0.0, 1.0, 2.0])
    y = np.array([1, 0, 1, 1])
    cal = VennAbersCalibrator().fit(s, y, sample_weight=np.array([light, 1e20, 1.0, 1.0]))
    w0, a0 = cal.weights_[0], cal.positive_weights_[0]
    assert Fraction(w0 - a0) != Fraction(w0) - Fraction(a0)  # w - a is not a double
    q = np.array([-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0])
    interval = cal.predict_interval(q)
    low_c, high_c = pair_complements(cal, q, interval)
    p0, p1 = ivap_from_summary(cal.scores_, cal.weights_, cal.positive_weights_, q, exact=True,
                               b=cal.negative_weights_)
    for got, exact in ((low_c, [1 - v for v in p0]), (high_c, [1 - v for v in p1])):
        for g, e in zip(got.tolist(), exact, strict=True):
            assert abs(Fraction(g) - e) <= 2 * Fraction(math.ulp(float(e))), (g, float(e))
    np.testing.assert_array_equal(high_c, cal.q1_[np.searchsorted(cal.scores_, q).clip(0, 2)]
                                  * (q <= cal.scores_[-1]))


def _drifting_folds(n=400, seed=0):
    """Two user folds whose class rates differ (0.9 against 0.1): their CVAP pairs are unordered."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n)
    folds = np.arange(n) % 2
    y = np.where(folds == 0, rng.random(n) < 0.9, rng.random(n) < 0.1).astype(int)
    return s, y, folds


@pytest.mark.parametrize("fitting", ["cross", "same"])
def test_clip_into_an_unordered_cvap_pair_clips_into_its_min_and_max(fitting):
    # attack 19 F1: np.clip(q, p0, p1) with p0 > p1 answered p1 for every q
    s, y, folds = _drifting_folds()
    chain = ChainedCalibrator(PlattCalibrator(), CrossVennAbersCalibrator(), fitting=fitting,
                              point="clip").fit(s, y, folds=folds)
    t = np.linspace(-3, 3, 61)
    q = chain.transform(t)
    q = q.mean(axis=1) if q.ndim == 2 else q
    iv = chain.predict_interval(t)
    low, high = iv.min(axis=1), iv.max(axis=1)
    unordered = iv[:, 0] > iv[:, 1]
    assert unordered.sum() > 20  # the case of the finding
    got = chain.predict_proba(t)
    np.testing.assert_array_equal(got[:, 1], np.clip(q, low, high))
    inside = (low <= q) & (q <= high)
    assert inside.any()
    np.testing.assert_array_equal(got[inside, 1], q[inside])  # kept where it lies between the ends
    assert np.all(np.abs((got[:, 0] - 1.0) + got[:, 1]) <= 2.0**-53)


def test_clip_column_0_of_an_unordered_pair_is_the_complement_of_the_end_it_took():
    s, y, folds = _drifting_folds(seed=1)
    y = 1 - y
    chain = ChainedCalibrator(PlattCalibrator(), CrossVennAbersCalibrator(), fitting="cross",
                              point="clip").fit(s, y, folds=folds)
    t = np.linspace(-4, 4, 81)
    first = chain.transform(t).mean(axis=1)
    iv = chain.predict_interval(t)
    got = chain.predict_proba(t)
    near = (got[:, 1] > 0.5) & (iv[:, 0] > iv[:, 1])
    assert near.sum() > 10
    high, low = iv[:, 0], iv[:, 1]  # swapped
    raised, lowered = first < low, first > high
    # where raised to the (swapped) low end p1, column 0 is 1 - p1; where lowered to p0, 1 - p0
    np.testing.assert_allclose(got[near & raised, 1], low[near & raised], rtol=0, atol=0)
    np.testing.assert_allclose(got[near & lowered, 1], high[near & lowered], rtol=0, atol=0)
    np.testing.assert_allclose(got[near, 0], 1.0 - got[near, 1], rtol=1e-12, atol=0)


def test_multiclass_clip_into_unordered_cvap_pairs_clips_into_their_min_and_max():
    rng = np.random.default_rng(3)
    n, K = 600, 3
    z = rng.normal(size=(n, K))
    folds = np.arange(n) % 2
    y = np.where(folds == 0, rng.choice(K, size=n, p=[0.8, 0.1, 0.1]),
                 rng.choice(K, size=n, p=[0.1, 0.1, 0.8]))
    then = OneVsRestCalibrator(CrossVennAbersCalibrator(), score="proba")
    chain = ChainedCalibrator(TemperatureCalibrator(), then, fitting="cross",
                              point="clip").fit(z, y, folds=folds)
    q = chain.transform(z[:100]).mean(axis=1)
    iv = chain.predict_interval(z[:100])
    assert (iv[..., 0] > iv[..., 1]).any()
    c = np.clip(q, iv.min(axis=-1), iv.max(axis=-1))
    np.testing.assert_array_equal(chain.predict_proba(z[:100]), c / c.sum(axis=1, keepdims=True))


def test_multiclass_cap_lowers_each_class_to_its_upper_end_and_never_raises():
    z, y = _classes(n=300, K=5, seed=2)  # about 60 rows per class
    then = OneVsRestCalibrator(VennAbersCalibrator(), score="proba")
    chain = ChainedCalibrator(TemperatureCalibrator(), then, point="cap").fit(z, y)
    q = chain.transform(z[:200])
    iv = chain.predict_interval(z[:200])
    c = np.minimum(q, iv[..., 1])
    got = chain.predict_proba(z[:200])
    np.testing.assert_array_equal(got, c / c.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-15)
    below = q < iv[..., 0]
    assert below.any()  # clip would raise these; cap leaves them (up to the renormalisation)
    assert np.all(got[below] >= q[below] * (1 - 2.0**-50))  # up to the sum's rounding
    clip = ChainedCalibrator(TemperatureCalibrator(), then, point="clip").fit(z, y)
    np.testing.assert_array_equal(clip.predict_interval(z[:200]), iv)  # the same intervals


@pytest.mark.parametrize("fitting", ["same", "split", "cross"])
def test_cap_is_clip_for_one_score_per_row(fitting):
    s, y = _binary(seed=4)
    then = CrossVennAbersCalibrator() if fitting == "cross" else VennAbersCalibrator()
    t = np.linspace(-5, 5, 101)
    got = [ChainedCalibrator(PlattCalibrator(), then, fitting=fitting, cv=3, random_state=0,
                             point=point).fit(s, y).predict_proba(t) for point in ("cap", "clip")]
    np.testing.assert_array_equal(got[0], got[1])


def test_cap_refuses_what_clip_refuses_and_round_trips(tmp_path):
    z, y = _classes()
    ovo = OneVsOneCalibrator(VennAbersCalibrator(), score="proba")
    with pytest.raises(ValueError, match="point='cap'.*only a one-vs-rest second stage"):
        ChainedCalibrator(TemperatureCalibrator(), ovo, point="cap").fit(z, y)
    s, yb = _binary()
    with pytest.raises(ValueError, match="point='cap'.*gives no intervals"):
        ChainedCalibrator(PlattCalibrator(), PlattCalibrator(), point="cap").fit(s, yb)
    then = OneVsRestCalibrator(VennAbersCalibrator(), score="proba")
    chain = ChainedCalibrator(TemperatureCalibrator(), then, point="cap").fit(z, y)
    venncal.save(chain, tmp_path / "c.json")
    back = venncal.load(tmp_path / "c.json")
    assert back.point == "cap"
    np.testing.assert_array_equal(back.predict_proba(z[:50]), chain.predict_proba(z[:50]))
