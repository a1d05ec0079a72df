"""``1 - p0`` of the Venn-Abers tables computed from the weights, not from a rounded ``p0``.

Issue 22: with a class of weight past ``2**53`` the lower probability ``p0``
rounds to 1 (or near it), so ``1 - p0`` lost its relative precision: CVAP's
``GM(1 - p0)`` became 0 and its ``p`` exactly 1 (weights 1e17: 1.0 where the
definition gives ``1 - 4.5e-9``), and ``predict_proba[:, 0]`` of IVAP and CVAP
was 0.  The tables now carry ``q0_ = 1 - p0_`` as its own quotient of sums.
References: the definition in exact rationals (``tests/reference/naive.py``)
and geometric means taken in 60-digit decimal arithmetic.
"""

from __future__ import annotations

import io
import json
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from reference.naive import assert_within_ulps, ivap_from_summary

import venncal
from venncal import CrossVennAbersCalibrator, VennAbersCalibrator
from venncal._kernels import exact_ivap_tables_full, ivap_tables_full
from venncal.persist import ModelFormatError

F64 = np.float64
BIG = [2.0**53 + 2, 1e17, 2.0**60, 1e22, 1e300]


def f64(values):
    return np.ascontiguousarray(values, dtype=F64)


def _decimal(x: Fraction) -> Decimal:
    return Decimal(x.numerator) / Decimal(x.denominator)


def exact_merge(p0s, p1s, merge):
    """``(p, 1 - p)`` of K exact pairs (Fractions), correctly rounded to float (60 digits)."""
    with localcontext() as ctx:
        ctx.prec = 60
        K = len(p0s)
        if merge == "brier":
            p = sum(b + a * a / 2 - b * b / 2 for a, b in zip(p0s, p1s, strict=True)) / K
            return float(p), float(1 - p)
        if K == 1:
            p = p1s[0] / (1 - p0s[0] + p1s[0])
            return float(p), float(1 - p)
        gm1 = (sum(_decimal(b).ln() for b in p1s) / K).exp()
        gm0 = (sum(_decimal(1 - a).ln() for a in p0s) / K).exp()
        return float(gm1 / (gm0 + gm1)), float(gm0 / (gm0 + gm1))


def near_one_summary(big):
    """A summary whose top score has positive weight ``big``: ``p0`` there is ``1 - O(1/big)``."""
    return f64([0.1, 0.5, 0.9]), f64([3.0, 2.0, big]), f64([1.0, 1.0, big])


# -- the tables ----------------------------------------------------------------


def check_complement(w, a, ulps):
    F0, F1, Q0, Q1 = ivap_tables_full(w, a)
    s = np.arange(w.shape[0], dtype=F64)
    e0, e1 = ivap_from_summary(s, w, a, s, exact=True)
    assert_within_ulps(Q0, [1 - v for v in e0], ulps)
    assert_within_ulps(Q1, [1 - v for v in e1], ulps)
    assert (np.diff(Q1) <= 0).all() and (Q1 <= Q0).all()
    # F0 and F1 are what ivap_tables always gave
    F0_old, F1_old = venncal._kernels.ivap_tables(w, a)
    assert_array_equal(F0, F0_old)
    assert_array_equal(F1, F1_old)
    return F0, Q0


@pytest.mark.parametrize("big", BIG)
def test_complement_of_p0_near_one_is_exact(big):
    # p0 rounds to 1 (or within an ulp of it); q0 is the correctly rounded 1 - p0.
    _, w, a = near_one_summary(big)
    integral = big < 2.0**52
    F0, Q0 = check_complement(w, a, 0 if integral else 2)
    assert F0[-1] == 1.0 or 1.0 - F0[-1] != Q0[-1]  # where 1 - p0 lost it
    assert 0.0 < Q0[-1] < 1e-15


@given(
    st.lists(st.sampled_from([1.0, 3.0, 0.5, 2.0**53 - 1, 1e17, 1e-300, 1e300]),
             min_size=1, max_size=6),
    st.lists(st.sampled_from([0.0, 0.25, 1.0]), min_size=6, max_size=6),
)
def test_complement_matches_the_definition(weights, fractions):
    w = f64(weights)
    a = f64([wi * fi for wi, fi in zip(weights, fractions, strict=False)])
    integral = all(v == int(v) for v in (*w.tolist(), *a.tolist())) and w.sum() < 2**52
    check_complement(w, a, 0 if integral else 2)


def test_exact_fallback_gives_the_complement():
    w = f64([1e-300, 1e300, 1e-300, 1e300])
    a = f64([0.0, 0.0, 1e-300, 1e300])
    got = exact_ivap_tables_full(w, a)
    for g, ref in zip(got, ivap_tables_full(w, a), strict=True):
        assert_array_equal(g, ref)
    check_complement(w, a, 0)


# -- IVAP and CVAP predictions --------------------------------------------------


@pytest.mark.parametrize("merge", ["log", "brier"])
@pytest.mark.parametrize("big", BIG)
def test_ivap_column_0_keeps_its_relative_precision(big, merge):
    s, w, a = near_one_summary(big)
    cal = VennAbersCalibrator(merge=merge).fit(
        np.repeat(s, 2), np.tile([0, 1], 3),
        sample_weight=np.column_stack((w - a, a)).ravel(),
    )
    tests = f64([0.9, 0.95])
    proba = cal.predict_proba(tests)
    e0, e1 = ivap_from_summary(s, w, a, tests, exact=True)
    for i in range(tests.shape[0]):
        p, q = exact_merge([e0[i]], [e1[i]], merge)
        assert proba[i, 0] > 0.0  # was exactly 0: 1 - p with p rounded to 1
        assert abs(proba[i, 0] - q) <= 4 * np.spacing(q)
        assert abs(proba[i, 1] - p) <= 2 * np.spacing(p)


def cvap_with_one_heavy_fold(big, merge="log"):
    rng = np.random.default_rng(5)
    s0, w0, a0 = near_one_summary(big)
    s1 = np.round(rng.random(20), 2)
    y1 = (rng.random(20) < s1).astype(float)
    y1[:2] = [0, 1]
    scores = np.concatenate((s0, s0, s1))
    labels = np.concatenate((np.ones(3), np.zeros(3), y1))
    weights = np.concatenate((a0, w0 - a0, np.ones(20)))
    folds = np.repeat([0, 1], [6, 20])
    keep = weights > 0
    cal = CrossVennAbersCalibrator(merge=merge).fit(
        scores[keep], labels[keep], sample_weight=weights[keep], folds=folds[keep]
    )
    return cal, (s0, w0, a0), (s1, y1)


def heavy_fold_columns(big, merge, tests):
    """CVAP's ``predict_proba(tests)`` and the exact ``(p, 1 - p)`` of each test (Fractions)."""
    cal, (s0, w0, a0), (s1, y1) = cvap_with_one_heavy_fold(big, merge)
    e00, e01 = ivap_from_summary(s0, w0, a0, tests, exact=True)
    sums = venncal.ScoreSummary.from_arrays(s1, y1)
    e10, e11 = ivap_from_summary(sums.scores, sums.weights, sums.positive_weights, tests,
                                 exact=True, b=sums.negative_weights)
    exact = [exact_merge([e00[i], e10[i]], [e01[i], e11[i]], merge) for i in range(len(tests))]
    return cal.predict_proba(tests), exact


@pytest.mark.parametrize("big", BIG)
def test_cvap_log_merge_with_a_fold_whose_p0_rounds_to_one(big):
    # The stop note's example: weights 1e17 gave p = 1.0 where the definition gives 1 - 4.5e-9.
    tests = f64([0.9, 0.95, 0.5])
    proba, exact = heavy_fold_columns(big, "log", tests)
    for i, (p, q) in enumerate(exact):
        # exp of a mean of logs: the rounding of a log near log(q) is amplified by exp
        tolerance = (abs(np.log(q)) + 4) * 2.0**-52
        assert abs(proba[i, 1] - p) <= tolerance * min(p, q) + 2 * np.spacing(p)
        assert abs(proba[i, 0] - q) <= tolerance * q
        assert (proba[i, 1] < 1.0) == (p < 1.0)  # was exactly 1.0 at 0.9 and 0.95


@pytest.mark.parametrize("big", BIG)
def test_cvap_brier_column_0(big):
    proba, exact = heavy_fold_columns(big, "brier", f64([0.9, 0.95]))
    for i, (p, q) in enumerate(exact):
        assert abs(proba[i, 1] - p) <= 4 * np.spacing(p)
        assert abs(proba[i, 0] - q) <= 8 * np.spacing(q)


def old_interval(p0, p1):
    """The interval before the complement; its lower end ``1 - GM(1 - p0)`` as ``-expm1``.

    (``1.0 - exp(.)`` until attack 14 F5: it rounded a lower end of 5.9e-21 to 0.)
    """
    if p0.shape[0] == 1:
        return np.column_stack((p0[0], p1[0]))
    with np.errstate(divide="ignore"):
        gm1 = np.exp(np.mean(np.log(p1), axis=0))
        low = -np.expm1(np.mean(np.log1p(-p0), axis=0)) + 0.0
    return np.column_stack((low, gm1))


def old_cvap(p0, p1, merge):
    """The merge before the complement (``merge_folds`` without ``q0``), as it was computed."""
    if p0.shape[0] == 1:
        gm1, gm0 = p1[0], 1.0 - p0[0]
    else:
        with np.errstate(divide="ignore"):
            gm1 = np.exp(np.mean(np.log(p1), axis=0))
            gm0 = np.exp(np.mean(np.log1p(-p0), axis=0))
    if merge == "log":
        return gm1 / (gm0 + gm1)
    return np.mean(p1 + 0.5 * p0 * p0 - 0.5 * p1 * p1, axis=0)


@pytest.mark.parametrize("merge", ["log", "brier"])
@pytest.mark.parametrize("K", [1, 3])
@pytest.mark.parametrize("seed", range(4))
def test_ordinary_data_bit_for_bit_as_before(seed, K, merge):
    # Column 1 and the interval: unchanged wherever no fold's p0 is within 2**-10 of 1,
    # so everywhere for K = 1; column 0: 1 - p where p <= 1/2.
    rng = np.random.default_rng(seed)
    n = 300
    s = rng.random(n)
    y = (rng.random(n) < s).astype(int)
    w = rng.integers(1, 4, n).astype(F64) if seed % 2 else None
    folds = rng.integers(0, K, n)
    cal = CrossVennAbersCalibrator(merge=merge).fit(s, y, sample_weight=w, folds=folds)
    tests = np.column_stack([rng.random(200) for _ in range(K)])
    proba = cal.predict_proba(tests)
    triples = [c._triple(tests[:, k]) for k, c in enumerate(cal.calibrators_)]
    p0, p1, q0 = (np.stack([t[i] for t in triples]) for i in range(3))
    old = old_cvap(p0, p1, merge)
    kept = (p0 <= 1 - 2.0**-10).all(axis=0)
    assert kept.mean() > 0.9
    assert_array_equal(proba[kept, 1], old[kept])
    assert_array_equal(cal.predict_interval(tests)[kept], old_interval(p0, p1)[kept])
    small = proba[:, 1] <= 0.5
    assert_array_equal(proba[small, 0], 1.0 - proba[small, 1])
    np.testing.assert_allclose(proba[:, 1], old, rtol=8e-16, atol=0)
    if K == 1:  # IVAP's p: as before everywhere
        assert_array_equal(proba[:, 1], old)
        single = VennAbersCalibrator(merge=merge).fit(s, y, sample_weight=w)
        assert_array_equal(single.predict_proba(tests[:, 0])[:, 1], old)
        assert_array_equal(single.predict_proba(tests[:, 0]), proba)


def test_merge_folds_takes_the_complement():
    p0 = f64([[1.0], [0.5]])
    p1 = f64([[1.0], [0.6]])
    p_old, _ = venncal.merge_folds(p0, p1)
    p_new, interval = venncal.merge_folds(p0, p1, q0=f64([[1e-17], [0.5]]))
    assert p_old[0] == 1.0
    assert p_new[0] == pytest.approx(1 - (1e-17 * 0.5) ** 0.5 / (0.6**0.5 + (1e-17 * 0.5) ** 0.5),
                                      rel=1e-15, abs=0.0)
    assert interval[0, 0] < 1.0
    with pytest.raises(ValueError, match="q0 must have the shape"):
        venncal.merge_folds(p0, p1, q0=f64([1e-17, 0.5]))


# -- the model format -------------------------------------------------------------


def saved(cal, version=None):
    out = io.StringIO()
    if version is None:
        venncal.persist.save(cal, out)
    else:
        venncal.persist.save(cal, out, format_version=version)
    return out.getvalue()


@pytest.mark.parametrize("version", [1, 2, 3])
def test_q0_is_not_saved_and_is_derived_on_load(version):
    cal, *_ = cvap_with_one_heavy_fold(1e17)
    text = saved(cal, version)
    assert "q0_" not in text
    copy = venncal.load(io.StringIO(text))
    for a, b in zip(copy.calibrators_, cal.calibrators_, strict=True):
        assert_array_equal(a.q0_, b.q0_)
    tests = f64([0.0, 0.1, 0.5, 0.9, 0.95, 1.0])
    assert_array_equal(copy.predict_proba(tests), cal.predict_proba(tests))


def test_p0_inconsistent_with_the_weights_is_refused():
    # q0_ comes from the weights on load, so an edited p0_ no longer loads silently.
    cal = VennAbersCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    doc = json.loads(saved(cal, 2))
    doc["state"]["p0_"]["data"][1] = 0.3
    with pytest.raises(ModelFormatError, match="p0_ must be the lower Venn-Abers table"):
        venncal.load(io.StringIO(json.dumps(doc)))


def test_invalid_weights_are_refused_before_deriving():
    cal = VennAbersCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    doc = json.loads(saved(cal, 2))
    doc["state"]["weights_"]["data"][0] = -1.0
    with pytest.raises(ModelFormatError, match="inconsistent state: weights must satisfy"):
        venncal.load(io.StringIO(json.dumps(doc)))


@pytest.mark.parametrize("cross", [False, True])
def test_a_subclass_overriding_predict_p_is_predicted_by_it(cross):
    # ScoreCalibrator's contract: a subclass that overrides _predict_p predicts
    # otherwise (the engines score it by its own predict); the complement path of
    # predict_proba must not bypass it
    from venncal import CrossVennAbersCalibrator, VennAbersCalibrator

    rng = np.random.default_rng(17)
    s = rng.normal(size=200)
    y = (rng.random(200) < 1 / (1 + np.exp(-2 * s))).astype(int)
    parent = CrossVennAbersCalibrator if cross else VennAbersCalibrator

    class Pessimist(parent):
        def _predict_p(self, q):
            return np.zeros(len(q[0]) if cross else q.shape[0])

    kw = {"folds": np.arange(200) % 2} if cross else {}
    q = np.linspace(-2, 2, 9)
    got = Pessimist().fit(s, y, **kw).predict_proba(q)
    assert np.array_equal(got, np.column_stack((np.ones(9), np.zeros(9))))
    plain = parent().fit(s, y, **kw).predict_proba(q)
    assert (plain[:, 1] > 0).all()
