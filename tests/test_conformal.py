"""Conformal test martingales over score streams (venncal.online.conformal).

Against the literal twins of tests/reference/conformal.py: the p-values bit for bit
(the counts are exact integers), the martingales to 1e-9 relative in log10 S.
"""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference import conformal as ref
from scipy import stats

from venncal._kernels.conformal import jumper_bet, uniforms
from venncal.online import ConformalMartingale, ConformalResult
from venncal.online.conformal import BETTING, conformal_pvalues, monitor_scores, summary_lines

KINDS = ("high", "low", "two-sided")
EDGE = [0.0, -0.0, 1e-310, -1e-310, 5e-324, 1.0, 1 - 2.0**-53, 2.0**53, 2.0**53 - 1, -3.5,
        1e300, -1e300, 2.0**1021, -(2.0**1021)]


def _split_runs(cm, s, cuts):
    """p-values and log10 S of ``s`` fed through run / learn_many / learn_one at ``cuts``."""
    pv, path = [], []
    bounds = [0, *sorted(cuts), len(s)]
    for k, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
        if a == b:
            continue
        if k % 3 == 2:
            for z in s[a:b]:
                before = cm.n_seen_
                cm.learn_one(z)
                assert cm.n_seen_ == before + 1
                path.append(cm.log10_value)
                pv.append(None)
        else:
            res = cm.run(s[a:b])
            assert res.start == a
            pv.extend(res.pvalues.tolist())
            path.extend(res.log10_martingale.tolist())
    return pv, path


@given(
    scores=st.lists(st.one_of(st.sampled_from(EDGE), st.integers(-3, 3).map(float),
                              st.floats(-1e6, 1e6)), min_size=1, max_size=30),
    kind=st.sampled_from(KINDS),
    seed=st.integers(0, 2**64 - 1),
    cuts=st.lists(st.integers(0, 30), max_size=4),
)
def test_pvalues_are_the_definition(scores, kind, seed, cuts):
    expected = ref.pvalues_naive(scores, kind, seed)
    assert ref.pvalues_sorted(scores, kind, seed) == expected
    assert conformal_pvalues(scores, nonconformity=kind, seed=seed).tolist() == expected
    # Any split of the stream (Fenwick batches, treap batches, single scores): same p-values,
    # same martingale, bit for bit.
    whole = ConformalMartingale(nonconformity=kind, seed=seed).run(scores)
    cm = ConformalMartingale(nonconformity=kind, seed=seed)
    pv, path = _split_runs(cm, np.array(scores), [c for c in cuts if c <= len(scores)])
    assert [p for p in pv if p is not None] == [
        p for p, q in zip(whole.pvalues.tolist(), pv) if q is not None]
    assert path == whole.log10_martingale.tolist()


def test_treap_path_on_long_streams():
    # Single scores after a long batch go through the treap; batches through the Fenwick tree.
    rng = np.random.default_rng(5)
    for kind in KINDS:
        s = np.round(rng.normal(size=3000), 2)  # many ties
        whole = ConformalMartingale(nonconformity=kind, seed=9).run(s)
        cm = ConformalMartingale(nonconformity=kind, seed=9)
        cm.learn_many(s[:2000])
        small = cm.run(s[2000:2100])  # a batch smaller than a quarter of the bag: the treap
        for z in s[2100:2500]:
            cm.learn_one(z)
        rest = cm.run(s[2500:])
        np.testing.assert_array_equal(small.pvalues, whole.pvalues[2000:2100])
        np.testing.assert_array_equal(rest.pvalues, whole.pvalues[2500:])
        assert rest.log10_martingale[-1] == whole.log10_final
        assert ref.pvalues_sorted(list(s), kind, 9) == whole.pvalues.tolist()


def test_uniforms_twin():
    out = np.empty(1000)
    uniforms(np.uint64(2**64 - 1), 10**12, out)
    assert out.tolist() == ref.uniforms(2**64 - 1, 10**12, 1000)
    assert 0.0 <= out.min() and out.max() < 1.0


@pytest.mark.parametrize("betting", list(BETTING))
@pytest.mark.parametrize("jump_rate", [0.01, 1.0])
def test_martingale_matches_reference(betting, jump_rate):
    rng = np.random.default_rng(11)
    s = np.r_[rng.normal(size=3000), rng.normal(0.7, 1.0, 3000)]
    res = ConformalMartingale(betting, jump_rate, seed=2).run(s)
    eps, multiples = BETTING[betting]
    path, factors = ref.martingale(res.pvalues.tolist(), eps,
                                   [min(1.0, m * jump_rate) for m in multiples])
    np.testing.assert_allclose(res.log10_martingale, path, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res.log10_factors, factors, rtol=1e-9, atol=1e-13)
    # the factors are the path's increments (to rounding), taken from the kernel
    np.testing.assert_allclose(np.cumsum(res.log10_factors), res.log10_martingale, atol=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("betting", list(BETTING))
def test_martingale_matches_reference_1e5_steps(betting):
    rng = np.random.default_rng(12)
    s = np.r_[rng.normal(size=50_000), rng.normal(0.3, 1.0, 50_000)]
    for kind in KINDS:
        res = ConformalMartingale(betting, seed=4, nonconformity=kind).run(s)
        assert res.pvalues.tolist() == ref.pvalues_sorted(s.tolist(), kind, 4)
    eps, multiples = BETTING[betting]
    path, factors = ref.martingale(res.pvalues.tolist(), eps, [m * 0.01 for m in multiples])
    assert abs(path[-1]) > 10
    np.testing.assert_allclose(res.log10_martingale, path, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res.log10_factors, factors, rtol=1e-9, atol=1e-13)


@pytest.mark.parametrize("betting", list(BETTING))
def test_validity_under_exchangeability(betting):
    # 2,000 i.i.d. streams of 1,000 scores: the frequency of S ever reaching 1/alpha is <= alpha.
    alpha = 0.01
    rng = np.random.default_rng(2026)
    hits = 0
    for k in range(2000):
        s = rng.integers(0, 50, 1000).astype(float) if k % 2 else rng.normal(size=1000)
        res = ConformalMartingale(betting, nonconformity=KINDS[k % 3], seed=k).run(s)
        hits += res.alarm(alpha) is not None
    assert hits / 2000 <= alpha, hits


@pytest.mark.parametrize("kind", KINDS)
def test_pvalues_uniform(kind):
    # KS test at level 0.001 on 10^5 p-values of an i.i.d. stream with many ties.
    rng = np.random.default_rng(7)
    for s in (rng.integers(0, 10, 100_000).astype(float), rng.exponential(size=100_000)):
        p = conformal_pvalues(s, nonconformity=kind, seed=3)
        assert stats.kstest(p, "uniform").pvalue > 0.001
        # and the betting factors average 1 (f_eps has mean 1 under uniform p)
        assert abs(p.mean() - 0.5) < 0.005


def test_log_space_over_long_bets():
    # p-values of 1e-3 for 10^5 steps: log10 S between the fixed-share bounds, no overflow.
    n = 100_000
    for eps, rates in (((-1.0, 0.0, 1.0), (0.01,)),
                       ((-1.0, -0.5, 0.0, 0.5, 1.0), (0.1, 0.01, 0.001))):
        e, r = np.array(eps), np.array(rates)
        w = np.full((r.shape[0], e.shape[0]), 1 / e.shape[0])
        hi, lo = np.zeros(r.shape[0]), np.zeros(r.shape[0])
        out, fac = np.empty(n), np.empty(n)
        jumper_bet(np.full(n, 1e-3), e, r, w, hi, lo, out, fac)
        best = math.log10(1.499)  # f_{-1}(1e-3)
        assert np.all(np.isfinite(out)) and out[-1] <= n * best
        J = rates[-1]
        stay = math.log10(1 - J + J / e.shape[0])
        assert out[-1] >= n * (best + stay) - math.log10(e.shape[0] * r.shape[0])
        assert out[-1] > 17_000


@pytest.mark.slow
def test_ten_million_steps_past_1e10000():
    n = 10**7
    w = np.full((1, 3), 1 / 3)
    hi, lo = np.zeros(1), np.zeros(1)
    out, fac = np.empty(n), np.empty(n)
    jumper_bet(np.full(n, 1e-3), np.array([-1.0, 0.0, 1.0]), np.array([0.01]), w, hi, lo, out, fac)
    assert np.all(np.isfinite(out)) and np.all(np.diff(out) > 0) and out[-1] > 1.7e6
    np.testing.assert_allclose(out[-1], math.fsum(fac), rtol=1e-12)
    # and the object on a score stream that keeps rising: every p-value is U_n / n
    cm = ConformalMartingale(seed=1)
    res = cm.run(np.arange(n, dtype=float))
    assert np.all(res.pvalues < 1.0 / np.arange(1, n + 1) + 1e-300)
    assert np.all(np.isfinite(res.log10_martingale)) and cm.log10_value > 10_000


def test_sees_a_shift():
    rng = np.random.default_rng(0)
    for kind, after in (("high", rng.normal(0.5, 1.0, 2000)), ("low", rng.normal(-0.5, 1.0, 2000)),
                        ("two-sided", rng.normal(0.0, 2.0, 2000))):
        s = np.r_[rng.normal(size=2000), after]
        for betting in BETTING:
            res = ConformalMartingale(betting, nonconformity=kind).run(s)
            assert res.log10_martingale[:2000].max() < 2
            assert res.alarm(0.01) is not None and res.log10_final > 5, (kind, betting)


def test_state_pickles_and_clones():
    rng = np.random.default_rng(1)
    s = rng.normal(size=500)
    cm = ConformalMartingale("composite", 0.05, nonconformity="two-sided", seed=8)
    cm.learn_many(s[:300])
    for copied in (pickle.loads(pickle.dumps(cm)), copy.deepcopy(cm)):
        a, b = copied.run(s[300:]), cm.clone()
        assert a.log10_final == ConformalMartingale(**cm.get_params()).run(s).log10_final
        assert b.n_seen_ == 0 and repr(b) == repr(cm)
    assert repr(cm) == ("ConformalMartingale(betting='composite', jump_rate=0.05, "
                        "nonconformity='two-sided', seed=8)")
    cm.reset()
    assert cm.n_seen_ == 0 and cm.log10_value == 0.0 and cm.alarm(0.5) is None


def test_alarm_and_result():
    res = ConformalResult(np.array([0.5, 2.5]), np.array([0.1, 0.2]), np.array([0.5, 2.0]), 10)
    assert res.alarm(0.01) == 12 and res.alarm(0.001) is None and res.log10_final == 2.5
    s = np.r_[np.zeros(10), np.arange(1.0, 200.0)]
    cm = ConformalMartingale(seed=0)
    res = cm.run(s)
    assert cm.alarm(0.01) == res.alarm(0.01)
    rr, summary = monitor_scores(s, betting="simple-jumper", nonconformity="high")
    assert summary["alarm"] == res.alarm(0.01) and summary["rows"] == 209
    assert summary_lines(summary)[3].startswith("alarm (S >= 1/0.01): step ")


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"betting": "jumper"}, "betting"),
    ({"jump_rate": 0.0}, "jump_rate"),
    ({"jump_rate": float("nan")}, "jump_rate"),
    ({"nonconformity": "median"}, "nonconformity"),
    ({"seed": -1}, "seed"),
    ({"seed": 2**64}, "seed"),
    ({"seed": True}, "seed"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        ConformalMartingale(**kwargs)


def test_bad_scores_leave_the_object_as_it_was():
    cm = ConformalMartingale(nonconformity="two-sided")
    cm.learn_many([1.0, 2.0])
    for bad, match in (([1.0, float("nan")], "finite"), ([[1.0]], "1-D"),
                       ([2.0**1022], "2\\*\\*1022"), (["a"], "scores")):
        with pytest.raises((ValueError, TypeError), match=match):
            cm.run(bad)
    with pytest.raises(ValueError, match="score"):
        cm.learn_one(float("inf"))
    with pytest.raises(ValueError, match="empty"):
        cm.run([])
    with pytest.raises(ValueError, match="empty"):  # as the Jumper's (attack 25 F3)
        cm.learn_many([])
    assert cm.n_seen_ == 2
    assert ConformalMartingale(nonconformity="high").run([1e308, -1e308]).pvalues.shape == (2,)


def test_bad_scores_are_named_by_index_or_by_row():
    # Python counts from index 0; a table read by the command line from row 1 (row_base)
    from venncal.online.conformal import monitor_scores

    s = [0.0] * 8 + [1.7e308]
    with pytest.raises(ValueError, match=r"got 1\.7e\+308 at index 8$"):
        ConformalMartingale(nonconformity="two-sided").run(s)
    with pytest.raises(ValueError, match=r"got 1\.7e\+308 in row 9$"):
        monitor_scores(s, nonconformity="two-sided", row_base=1)
    with pytest.raises(ValueError, match=r"the first in row 3 \(nan\)$"):
        monitor_scores([0.0, 1.0, float("nan")], row_base=1)
    with pytest.raises(ValueError, match=r"^score must be .* got 1\.7e\+308$"):
        ConformalMartingale(nonconformity="two-sided").learn_one(1.7e308)


@pytest.mark.slow
def test_sees_a_shift_on_adult():
    # A logistic model's scores on Adult's test file; then an older population (age >= 50).
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from venncal.datasets import load_adult

    X, y, names = load_adult("train")
    Xt, _, _ = load_adult("test")
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X, y)
    scores = model.predict_proba(Xt)[:, 1]
    old = np.flatnonzero(Xt[:, names.index("age")] >= 50)
    rng = np.random.default_rng(100)
    s = np.r_[scores[rng.choice(scores.size, 5000, replace=False)], scores[rng.permutation(old)]]
    for betting in BETTING:
        res = ConformalMartingale(betting, nonconformity="high").run(s)
        assert res.log10_martingale[:5000].max() < 2
        assert 5000 < res.alarm(0.01) < 6000
        assert res.log10_final > 10


@pytest.mark.parametrize("kind", KINDS)
def test_constant_stream_gives_the_uniforms(kind):
    # Every score ties with every other: p_n = (0 + U_n n) / n = U_n (to one rounding).
    n = 5000
    u = np.empty(n)
    uniforms(np.uint64(6), 1, u)
    cm = ConformalMartingale(nonconformity=kind, seed=6)
    res = cm.run(np.full(n // 2, 2.0**53 - 1))
    for _ in range(n // 2):
        cm.learn_one(2.0**53 - 1)
    np.testing.assert_allclose(res.pvalues, u[: n // 2], rtol=2**-51, atol=0)
    assert cm.n_seen_ == n and cm.alarm(0.01) is None  # no evidence: S decays under the null
