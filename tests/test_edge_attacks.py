"""Attacks 14 and 15 (issue 22): silent wrong answers of the class-0 work, each against an exact value.

Attack 14: F1 isotonic means near 1 inverted by an ulp (a saved model did not
load); F3 a model read from an old file kept predicting ``1.0 - p`` after a
new fit; F4 Price's coupling overflowed ``1 / r`` for pairwise probabilities
near 1e-308; F5 CVAP's lower end ``1.0 - GM(1 - p0)`` rounded a small ``p0``
to 0.  (F2, the light class tied with a heavy one: test_ivap_negatives.py.)
Attack 15: F1 isotonic complements raised by an ulp after pairing (a saved
model did not load); F2 Price's coupling of a row whose values are all
subnormal.
"""

from __future__ import annotations

import io
import math
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference.naive import ivap_from_summary

import venncal
from venncal import persist
from venncal import ChainedCalibrator, CrossVennAbersCalibrator, OneVsOneCalibrator
from venncal.baselines import IsotonicCalibrator
from venncal.enir import ENIRCalibrator
from venncal.multiclass import couple

MODELS = Path(__file__).parent / "data" / "models"


def _round_trip(cal):
    buf = io.StringIO()
    venncal.save(cal, buf)
    buf.seek(0)
    return venncal.load(buf)


@pytest.mark.parametrize("interpolation", ["nearest", "linear"])
def test_isotonic_values_near_one_stay_ordered_and_the_model_loads(interpolation):
    # Two blocks with means 1 - 2**-52 and 1 - 2**-53 (exact); main gave them swapped.
    w = [1.4494344058864502e16, 3.0, 4.504298210577528e16, 7.0]
    s, y = [0.0, 0.0, 1.0, 1.0], [1, 0, 1, 0]
    cal = IsotonicCalibrator(interpolation=interpolation).fit(s, y, sample_weight=w)
    assert (np.diff(cal.values_) >= 0).all()
    exact = [Fraction(w[0]) / (Fraction(w[0]) + 3), Fraction(w[2]) / (Fraction(w[2]) + 7)]
    for got, e in zip(cal.values_.tolist(), exact, strict=True):
        assert abs(Fraction(got) - e) <= Fraction(2.0**-52)  # 2 ulps below 1
    back = _round_trip(cal)
    t = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
    np.testing.assert_array_equal(back.predict_proba(t), cal.predict_proba(t))


@pytest.mark.parametrize(
    ("path", "make", "s", "y", "w"),
    [
        ("isotonic-linear-weighted.v1.json", lambda: IsotonicCalibrator(interpolation="linear"),
         [0.0, 0.0, 1.0, 1.0], [1, 0, 1, 0], [1e20, 1.0, 1e20, 3.0]),
        ("enir.v1.json", ENIRCalibrator, [0.0, 0.0, 1.0, 1.0], [1, 0, 1, 0],
         [2.0**52 - 1, 1.0, 2.0**53 - 1, 1.0]),
    ],
)
def test_a_refit_of_a_model_read_from_an_old_file_is_a_fresh_fit(path, make, s, y, w):
    old = venncal.load(MODELS / path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old.fit(s, y, sample_weight=w)
        fresh = make().set_params(**old.get_params()).fit(s, y, sample_weight=w)
    t = np.array([0.0, 0.25, 0.5, 1.0])
    np.testing.assert_array_equal(old.predict_proba(t), fresh.predict_proba(t))
    np.testing.assert_array_equal(_round_trip(old).predict_proba(t), old.predict_proba(t))
    assert "_complements_derived" not in old.__dict__


@pytest.mark.parametrize("r0", [1e-300, 1e-308, 2e-308, 1e-310, 5e-324])
def test_price_coupling_keeps_a_class_whose_pairwise_probability_is_near_the_float_minimum(r0):
    # K = 3, class 0 has probability r0 against each of the others, which tie.
    first, second = np.array([0, 0, 1]), np.array([1, 2, 2])
    r = np.array([[1.0 - r0], [1.0 - r0], [0.5]])
    r0s = np.array([[r0], [r0], [0.5]])
    got = couple(r, first, second, 3, "price", r0=r0s)[0]
    # exact Price: v_i = 1 / (sum_{j != i} 1/r_ij - (K - 2)), normalised
    R = {(0, 1): Fraction(r0), (0, 2): Fraction(r0), (1, 2): Fraction(1, 2)}
    R.update({(j, i): 1 - v for (i, j), v in list(R.items())})
    R[(1, 0)] = R[(2, 0)] = Fraction(1.0 - r0)
    v = [1 / (sum(1 / R[(i, j)] for j in range(3) if j != i) - 1) for i in range(3)]
    exact = [x / sum(v) for x in v]
    for g, e in zip(got.tolist(), exact, strict=True):
        assert abs(Fraction(g) - e) <= Fraction(2.0**-52) * e + Fraction(5e-324), (g, float(e))
    assert got[0] == float(exact[0]) or got[0] > 0  # (0 where the exact rounds to 0)


def test_price_coupling_of_ordinary_rows_is_unchanged():
    rng = np.random.default_rng(3)
    first, second = np.triu_indices(4, 1)
    r = rng.uniform(0.01, 0.99, size=(6, 50))
    got = couple(r, first, second, 4, "price")
    inv = np.zeros((50, 4))
    np.add.at(inv.T, first, 1.0 / (1.0 - r))
    np.add.at(inv.T, second, 1.0 / r)
    v = 1.0 / (inv - 2)
    np.testing.assert_allclose(got, v / v.sum(axis=1, keepdims=True), rtol=1e-14, atol=0)


def test_one_vs_one_price_keeps_a_class_of_weight_near_the_float_minimum():
    y = np.array([0, 1, 1, 2, 2])
    S = np.full((5, 3), 1 / 3)
    w = np.where(y == 0, 2e-308, 1.0)
    ovo = OneVsOneCalibrator(IsotonicCalibrator(), coupling="price").fit(S, y, sample_weight=w)
    p = ovo.predict_proba(S[:1])[0]
    assert p[0] > 0 and abs(p[0] / 5e-309 - 1) < 1e-6


def test_cross_venn_abers_lower_end_keeps_a_small_p0():
    rng = np.random.default_rng(0)
    s = np.round(rng.random(60), 1)
    y = (rng.random(60) < s).astype(int)
    w = np.where(y == 0, 1e20, 1.0)
    cv = CrossVennAbersCalibrator().fit(s, y, sample_weight=w, folds=np.arange(60) % 3)
    t = np.array([0.0, 0.3, 0.55, 1.0])
    low = cv.predict_interval(t)[:, 0]
    for k, q in enumerate(t):
        p0s = [ivap_from_summary(c.scores_, c.weights_, c.positive_weights_, np.array([q]),
                                 exact=True)[0][0] for c in cv.calibrators_]
        exact = -math.expm1(sum(math.log1p(-float(p)) for p in p0s) / len(p0s))
        assert low[k] == pytest.approx(exact, rel=1e-13, abs=0.0)
        assert (low[k] > 0) == (exact > 0) and not np.signbit(low[k])
    # the clipped chain's column 1 takes that lower end where it raises the first stage
    chain = ChainedCalibrator(IsotonicCalibrator(), CrossVennAbersCalibrator(), fitting="cross",
                              cv=3, random_state=0, point="clip").fit(s, y, sample_weight=w)
    p = chain.predict_proba(t)
    lows, highs = chain.predict_interval(t).T
    # a CVAP pair need not be ordered (here at t = 1): the chain clips into [min, max]
    np.testing.assert_array_equal(p[:, 1], np.clip(chain.transform(t).mean(axis=1),
                                                   np.minimum(lows, highs),
                                                   np.maximum(lows, highs)))
    assert (lows[1:] > 0).all() and (p[lows > 0, 1] > 0).all()  # main: 0.0 (log loss inf)


@pytest.mark.parametrize("interpolation", ["nearest", "linear"])
def test_isotonic_complements_stay_ordered_after_pairing(interpolation):
    s = [0.0, 0, 1, 1, 1, 1, 2, 2]
    y = [1, 0, 1, 0, 1, 0, 1, 0]
    w = [0.0005453182633412899, 0.0017148565472898097, 0.0008171832776704707,
         0.002569787568570595, 0.0012948003151147208, 0.004071744790285416,
         5.917252726410387, 18.607921762383064]
    cal = IsotonicCalibrator(interpolation=interpolation).fit(s, y, sample_weight=w)
    assert (np.diff(cal.complements_) <= 0).all() and (np.diff(cal.values_) >= 0).all()
    t = np.array([-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0])
    np.testing.assert_array_equal(_round_trip(cal).predict_proba(t), cal.predict_proba(t))


def _exact_price(r, r0, first, second, K):
    """Price's coupling of one row in Fractions (the inputs as given)."""
    inv = [Fraction(0)] * K
    zero = [False] * K
    for q in range(len(first)):
        for c, v in ((first[q], r0[q]), (second[q], r[q])):
            if v == 0:
                zero[c] = True
            else:
                inv[c] += 1 / Fraction(v)
    vals = [Fraction(0) if zero[c] else 1 / (inv[c] - (K - 2)) for c in range(K)]
    return [v / sum(vals) for v in vals]


def _cycle(K, losses):
    """Pairs of a K-cycle where class i loses to i + 1 and i + 2 with the given probabilities."""
    loss = {}
    for i in range(K):
        loss[(i, (i + 1) % K)], loss[(i, (i + 2) % K)] = losses[i]
    first, second = np.triu_indices(K, 1)
    r, r0 = [], []
    for i, j in zip(first.tolist(), second.tolist(), strict=True):
        if (i, j) in loss:
            r0.append(loss[(i, j)])
            r.append(1 - loss[(i, j)])
        else:
            r.append(loss[(j, i)])
            r0.append(1 - loss[(j, i)])
    return np.array(r), np.array(r0), first, second


def _check_price(r, r0, first, second, K):
    # relative to the value, and a few units of the smallest subnormal (results below
    # 2**-1022 are rounded to multiples of 2**-1074, a few times on the way)
    got = couple(r[:, None], first, second, K, "price", r0=r0[:, None])[0]
    exact = _exact_price(r.tolist(), r0.tolist(), first.tolist(), second.tolist(), K)
    for g, e in zip(got.tolist(), exact, strict=True):
        assert abs(Fraction(g) - e) <= Fraction(2.0**-45) * e + 3 * Fraction(2.0**-1074), (
            g, float(e))


def test_price_coupling_of_a_row_of_subnormal_values():
    # main: [0, 0, 0.5, 0.5, 0]; exact [0.176, 0.176, 0.235, 0.235, 0.176]
    tiny = [(5e-324, 5e-324), (5e-324, 5e-324), (5e-324, 1e-323), (5e-324, 1e-323),
            (5e-324, 5e-324)]
    r, r0, first, second = _cycle(5, tiny)
    _check_price(r, r0, first, second, 5)
    r, r0, first, second = _cycle(4, [(3e-323, 4e-323), (5e-323, 1e-322), (1.3e-322, 3e-323),
                                      (4e-323, 6e-323)])
    _check_price(r, r0, first, second, 4)


@settings(max_examples=150, deadline=None)
@given(st.integers(3, 6), st.data())
def test_price_coupling_against_exact_with_tiny_pairwise_probabilities(K, data):
    # Each pair as its calibrator gives it: the smaller probability exact, the larger 1 - it.
    first, second = np.triu_indices(K, 1)
    small = st.sampled_from([5e-324, 1e-323, 3e-320, 1e-310, 2e-308, 1e-300, 1e-200, 1e-20])
    pair = st.tuples(st.one_of(small, st.floats(0.01, 0.5)), st.booleans())
    pairs = data.draw(st.lists(pair, min_size=len(first), max_size=len(first)))
    v = np.array([p for p, _ in pairs])
    second_small = np.array([side for _, side in pairs])
    r = np.where(second_small, v, 1.0 - v)
    r0 = np.where(second_small, 1.0 - v, v)
    _check_price(r, r0, first, second, K)


def test_one_vs_one_look_up_caches_follow_a_refit_and_are_not_pickled():
    # attack 15 note: the caches were keyed on the calibrators list alone and pickled
    import pickle

    from venncal import VennAbersCalibrator

    rng = np.random.default_rng(5)
    S = rng.normal(size=(300, 3))
    y = rng.integers(0, 3, 300)
    ovo = OneVsOneCalibrator(VennAbersCalibrator(), score="logit").fit(S, y)
    t = rng.normal(size=(20, 3))
    before = ovo.predict_proba(t)
    assert "_tables" in ovo.__dict__ and "_q0_tables" in ovo.__dict__
    state = ovo.__getstate__()
    assert "_tables" not in state and "_q0_tables" not in state
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(ovo)).predict_proba(t), before)
    # refit one pair calibrator in place on other data: the model must use its new tables
    cal = ovo.calibrators_[0]
    cal.fit(rng.normal(size=50), rng.integers(0, 2, 50))
    fresh = pickle.loads(pickle.dumps(ovo))  # (no caches: built from the calibrators)
    np.testing.assert_array_equal(ovo.predict_proba(t), fresh.predict_proba(t))
    assert not np.array_equal(ovo.predict_proba(t), before)


def test_enir_with_subnormal_weights_saves_and_loads():
    # Found by the CI rehearsal's hypothesis run (test_persist_state): weights of 1e-310
    # scale the path's knots back into subnormals, two of which rounded to one lambda, and
    # the fitted model's own state check refused it ("lambdas_ must be strictly increasing").
    s = np.array([0.0, -2.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.5, -1.0, 0.5, 0.0, 0.0, 1.0, 1.0, -1.0])
    y = np.array([0, 1, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0])
    w = np.full(15, 1e-310)
    w[[1, 13]] = 2e-310
    w[9] = 3e-310
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = ENIRCalibrator(model="best").fit(s, y, sample_weight=w)
    assert (np.diff(cal.lambdas_) >= 0).all()
    cal._check_state()
    t = np.array([-2.0, -1.0, 0.0, 0.5, 1.0])
    np.testing.assert_array_equal(_round_trip(cal).predict_proba(t), cal.predict_proba(t))
    bad = _round_trip(cal)
    bad.lambdas_ = np.array([0.5, 0.5, 1.0])  # normal and tied: still refused
    with pytest.raises(ValueError, match="strictly increasing"):
        bad._check_state()


def _forged_p1(first):
    """A saved IVAP (format 2, no checksum) whose first p1_ entry is replaced by ``first(p1)``."""
    import json

    cal = venncal.VennAbersCalibrator().fit([0.1, 0.2, 0.9], [0, 0, 1],
                                            sample_weight=[1e20, 1e20, 1.0])
    buf = io.StringIO()
    venncal.save(cal, buf, format_version=2)
    doc = json.loads(buf.getvalue())
    data = doc["state"]["p1_"]["data"]
    data[0] = first(data[0])
    return cal, io.StringIO(json.dumps(doc))


def test_a_tiny_saved_table_entry_changed_in_a_file_is_recomputed_from_the_weights():
    # Attack 15's note: 1 - p1_ was compared with q1_ to 2**-49 absolute, so a p1_ of
    # 1e-20 doubled in a file loaded and answered 2e-20; the tables are now recomputed
    # from the weights on load (a saved table within 5e-16 of them is replaced by them).
    cal, forged = _forged_p1(lambda v: 2.0 * v)
    assert 0.0 < cal.p1_[0] < 1e-19
    loaded = venncal.load(forged)
    np.testing.assert_array_equal(loaded.p1_, cal.p1_)
    np.testing.assert_array_equal(loaded.predict_proba([0.1, 0.15]), cal.predict_proba([0.1, 0.15]))


def test_a_saved_table_that_is_not_the_weights_table_is_refused():
    _, forged = _forged_p1(lambda v: v + 1e-15)
    with pytest.raises(persist.ModelFormatError, match="p1_ must be the upper Venn-Abers table"):
        venncal.load(forged)
