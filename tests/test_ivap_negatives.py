"""IVAP from each score's own negative weight, not ``w - a`` (attack 14 F2, issue 22).

A negative row of weight 1 tied with 4e20 of positive weight vanishes from the
summary's total weight (``4e20 + 1`` rounds to ``4e20``), so ``w - a`` is 0:
the tables were those of another data set, ``1 - p0`` was off by 2x and the
clipped chain's column 0 by up to 3e27x.  The summary keeps each class's own
sum (``negative_weights``); the tables are now built from ``(a, b)``.
References: the definition in exact rationals (``tests/reference/naive.py``)
on the true class weights.
"""

from __future__ import annotations

import copy
import io
import json
import math
import pickle
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from reference.naive import ivap_from_summary
from test_multiclass_batch import _fit_both, _loop_predictions, _same_calibrators

import venncal
from venncal import (
    ChainedCalibrator,
    CrossVennAbersCalibrator,
    OneVsOneCalibrator,
    OneVsRestCalibrator,
    PlattCalibrator,
    ScoreSummary,
    VennAbersCalibrator,
)
from venncal._kernels import ivap_tables_full
from venncal._kernels.ivap import _DD, _DD_CAREFUL, _EXACT, _mode, _tables
from venncal._kernels.multiclass_tables import ivap_tables_list
from venncal.persist import ModelFormatError

F64 = np.float64
NONE = np.zeros(0)
REPRO_S = np.array([-3.0, -2, -1, 0, 0, 1, 2, 3])
REPRO_Y = np.array([0, 0, 0, 0, 1, 1, 1, 1])


def bits(x):
    return np.ascontiguousarray(x, dtype=F64).view(np.uint64)


def same_bits(x, y):
    return np.array_equal(bits(x), bits(y))


def ulps_off(got, exact) -> Fraction:
    """|got - exact| in ulps of the correctly rounded exact value (0 -> absolute 0)."""
    e = Fraction(exact)
    r = float(e)
    if got == r:
        return Fraction(0)
    if r == 0.0:
        return Fraction(0) if got == 0.0 else Fraction(10**9)
    return abs(Fraction(got) - e) / Fraction(math.ulp(r))


def class_sums(s, y, w):
    """The exact positive and negative weight at each distinct score (Fractions)."""
    out = {}
    for sj, yj, wj in zip(s.tolist(), y.tolist(), w.tolist(), strict=True):
        pos, neg = out.get(sj, (Fraction(0), Fraction(0)))
        out[sj] = (pos + Fraction(wj), neg) if yj else (pos, neg + Fraction(wj))
    keys = sorted(out)
    return np.array(keys), [out[k][0] for k in keys], [out[k][1] for k in keys]


def exact_pairs(s, A, B, q):
    """The exact ``(p0, p1)`` of the IVAP with positive weights ``A``, negative ``B`` at ``s``."""
    W = [x + y for x, y in zip(A, B, strict=True)]
    return ivap_from_summary(s, W, A, q, exact=True, b=B)


def assert_tables_exact(p0, p1, q0, q1, e0, e1, ulps):
    for got, exact in ((p0, e0), (p1, e1), (q0, [1 - v for v in e0]), (q1, [1 - v for v in e1])):
        for g, e in zip(np.asarray(got).tolist(), exact, strict=True):
            assert ulps_off(g, e) <= ulps, (g, float(e))


# -- the repro ---------------------------------------------------------------------------


@pytest.mark.parametrize("heavy_label", [0, 1])
def test_repro_tables_and_column_0_are_those_of_the_true_class_weights(heavy_label):
    y = REPRO_Y if heavy_label == 1 else 1 - REPRO_Y
    w = np.where(y == 1 - heavy_label, 1.0, 1e20)
    cal = VennAbersCalibrator().fit(REPRO_S, y, sample_weight=w)
    s, A, B = class_sums(REPRO_S, y, w)
    assert_array_equal(cal.scores_, s)
    # the light class at 0 is lost from w - a (4e20 + 1 rounds), kept by negative_weights_
    assert cal.negative_weights_ is not None
    assert [Fraction(v) for v in cal.negative_weights_.tolist()] == B
    e0, e1 = exact_pairs(s, A, B, s)
    assert_tables_exact(cal.p0_, cal.p1_, cal.q0_, cal.q1_, e0, e1, 2)
    q = np.concatenate([s, [-9.0, 9.0, -0.5, 0.5]])
    e0, e1 = exact_pairs(s, A, B, q)
    got = cal.predict_proba(q)
    for g, a0, a1 in zip(got.tolist(), e0, e1, strict=True):
        p = a1 / (1 - a0 + a1)  # the log-loss minimax, exactly
        assert ulps_off(g[0], 1 - p) <= 4, (g, float(1 - p))
        assert ulps_off(g[1], p) <= 4, (g, float(p))


def test_repro_column_0_at_the_tie():
    w = np.where(REPRO_Y == 1, 1e20, 1.0)
    got = VennAbersCalibrator().fit(REPRO_S, REPRO_Y, sample_weight=w).predict_proba([0.0])[0, 0]
    (e0,), (e1,) = exact_pairs(*class_sums(REPRO_S, REPRO_Y, w), [0.0])
    exact = (1 - e0) / (1 - e0 + e1)
    assert float(exact) == 2e-20
    assert ulps_off(got, exact) <= 2  # was 1e-20, half of it


def test_clipped_chain_column_0():
    w = np.where(REPRO_Y == 1, 1e20, 1.0)
    chain = ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator(), point="clip")
    chain.fit(REPRO_S, REPRO_Y, sample_weight=w)
    t = np.array([0.0, 1.0, 3.0])
    got = chain.predict_proba(t)[:, 0]
    # the attack's exact values (Fractions on the raw rows): 2/(4e20 + 2), then 1/(4e20 + 2)
    np.testing.assert_allclose(got, [5e-21, 2.5e-21, 2.5e-21], rtol=1e-14)
    then = chain.then_
    assert then.negative_weights_ is not None
    first, first_c = chain.transform(t), chain.first_.predict_proba(t)[:, 0]
    A = [Fraction(v) for v in then.positive_weights_.tolist()]
    B = [Fraction(v) for v in then.negative_weights_.tolist()]
    p0, p1 = exact_pairs(then.scores_, A, B, first)
    for i, g in enumerate(got.tolist()):
        # column 0 is 1 - (the first stage's p clipped to [p0, p1])
        f = 1 - Fraction(first_c[i]) if first[i] > 0.5 else Fraction(first[i])
        exact = 1 - min(max(f, p0[i]), p1[i])
        assert ulps_off(g, exact) <= 2, (g, float(exact))


def test_one_vs_one_pair_column_0():
    y = np.array([0, 1, 1, 2, 2])
    S = np.full((5, 3), 1 / 3)
    w = np.where(y == 1, 1e20, 1.0)
    ovo = OneVsOneCalibrator(VennAbersCalibrator()).fit(S, y, sample_weight=w)
    pair = ovo.calibrators_[0]  # classes 0 and 1: 1 and 2e20
    assert pair.negative_weights_ is not None  # 1 + 2e20 rounds to 2e20
    s0 = pair.scores_[:1]
    A, B = Fraction(pair.positive_weights_[0]), Fraction(pair.negative_weights_[0])
    assert sorted([A, B]) == [1, 2 * 10**20]
    e0, e1 = exact_pairs(s0, [A], [B], s0)
    p = e1[0] / (1 - e0[0] + e1[0])
    got = pair.predict_proba(s0)[0]
    assert ulps_off(got[0], 1 - p) <= 4 and ulps_off(got[1], p) <= 4, (got, float(1 - p))


# -- every arithmetic, against the definition and with/without b -------------------------

LIGHT_HEAVY = [1.0, 3.0, 0.1, 1e-300, 1e20, 2.0**53 + 2, 1e300, 2.0**30]


def tables_in(mode, w, a, b):
    """``ivap_tables_full`` forced into ``mode`` (any arithmetic at least as careful as _mode's)."""
    return _tables(w, a, True, b if b.shape[0] else None, mode=mode)


def modes_for(w, a, b):
    first = _mode(w, a, b)
    return [_EXACT] if first == _EXACT else [*range(first, _DD_CAREFUL + 1), _EXACT]


@st.composite
def tied_rows(draw):
    k = draw(st.integers(1, 5))
    rows = draw(st.lists(st.tuples(st.integers(0, k - 1), st.integers(0, 1),
                                   st.sampled_from(LIGHT_HEAVY)), min_size=1, max_size=12))
    s = np.array([float(r[0]) for r in rows])
    y = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows])
    return s, y, w


def _summary_or_none(rows):
    """The summary of the drawn rows, or None where a tied sum passes float64 (refused)."""
    try:
        return ScoreSummary.from_arrays(*rows)
    except ValueError:
        return None


@given(tied_rows())
def test_every_mode_gives_the_tables_of_the_class_sums(rows):
    s, y, w = rows
    summary = _summary_or_none(rows)
    if summary is None:
        return
    W, a, b = summary.weights, summary.positive_weights, summary.negative_weights
    e0, e1 = exact_pairs(summary.scores, [Fraction(v) for v in a.tolist()],
                         [Fraction(v) for v in b.tolist()], summary.scores)
    for mode in modes_for(W, a, b):
        tables = tables_in(mode, W, a, b)
        assert_tables_exact(*tables, e0, e1, 2 if mode in (_DD, _DD_CAREFUL) else 0)
    # the public function and the calibrator take that path
    assert all(same_bits(g, v) for g, v in zip(ivap_tables_full(W, a, b),
                                              tables_in(_mode(W, a, b), W, a, b), strict=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", venncal.WeightScaleWarning)  # light weights: intended
        cal = VennAbersCalibrator(classes=[0, 1]).fit(s, y, sample_weight=w)
    assert all(same_bits(g, v) for g, v in zip((cal.p0_, cal.p1_, cal.q0_, cal.q1_),
                                              ivap_tables_full(W, a, b), strict=True))


@given(tied_rows())
def test_b_equal_to_w_minus_a_gives_the_same_bits_in_every_mode(rows):
    summary = _summary_or_none(rows)
    if summary is None:
        return
    W, a = summary.weights, summary.positive_weights
    d, err = venncal._kernels.summary.negatives(W, a)
    if err.any():
        return  # w - a is not a double: no b equals it
    assert _mode(W, a, d) == _mode(W, a, NONE) or _mode(W, a, NONE) == _DD_CAREFUL
    for mode in modes_for(W, a, NONE):
        without, with_b = tables_in(mode, W, a, NONE), tables_in(mode, W, a, d)
        assert all(same_bits(g, v) for g, v in zip(with_b, without, strict=True)), mode
    assert all(same_bits(g, v) for g, v in zip(ivap_tables_full(W, a, d), ivap_tables_full(W, a),
                                              strict=True))


def test_b_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError, match="shape"):
        ivap_tables_full(np.ones(3), np.zeros(3), np.ones(2))


def test_ivap_tables_list_takes_the_negative_weights():
    w = [np.array([4e20, 1.0]), np.array([2.0]), np.array([1e300, 1e-300])]
    a = [np.array([4e20, 0.0]), np.array([1.0]), np.array([1e300, 0.0])]
    b = [np.array([1.0, 1.0]), np.array([1.0]), np.array([1e-300, 1e-300])]
    for got, wu, au, bu in zip(ivap_tables_list(w, a, b), w, a, b, strict=True):
        assert all(same_bits(g, v) for g, v in zip(got, ivap_tables_full(wu, au, bu), strict=True))
    for got, wu, au in zip(ivap_tables_list(w, a), w, a, strict=True):
        assert all(same_bits(g, v) for g, v in zip(got, ivap_tables_full(wu, au), strict=True))


# -- the fitted attribute, persistence ---------------------------------------------------


def _repro_model():
    w = np.where(REPRO_Y == 1, 1e20, 1.0)
    return VennAbersCalibrator().fit(REPRO_S, REPRO_Y, sample_weight=w)


def _round_trip(cal):
    buf = io.StringIO()
    venncal.save(cal, buf)
    text = buf.getvalue()
    buf.seek(0)
    return venncal.load(buf), text


def _same_model(got, want):
    for name in ("scores_", "weights_", "positive_weights_", "p0_", "p1_", "q0_", "q1_"):
        assert same_bits(getattr(got, name), getattr(want, name)), name
    if want.negative_weights_ is None:
        assert got.negative_weights_ is None
    else:
        assert same_bits(got.negative_weights_, want.negative_weights_)
    q = np.concatenate([want.scores_, [-9.0, 9.0, 0.5]])
    assert same_bits(got.predict_proba(q), want.predict_proba(q))
    assert same_bits(got.predict_interval(q), want.predict_interval(q))


def test_negative_weights_is_none_unless_w_minus_a_lost_a_class():
    cal = VennAbersCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    assert cal.negative_weights_ is None
    assert _repro_model().negative_weights_ is not None


def test_save_load_with_negative_weights_is_bit_for_bit():
    cal = _repro_model()
    loaded, text = _round_trip(cal)
    assert "negative_weights_" in json.loads(text)["state"]
    _same_model(loaded, cal)
    _same_model(pickle.loads(pickle.dumps(cal)), cal)
    _same_model(copy.deepcopy(cal), cal)


def test_a_model_without_negative_weights_saves_as_before():
    cal = VennAbersCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], sample_weight=[1, 2, 3, 4])
    loaded, text = _round_trip(cal)
    assert "negative_weights_" not in json.loads(text)["state"]
    _same_model(loaded, cal)


@pytest.mark.parametrize("name", ["ivap.v1.json", "ivap.v2.json", "ivap-small.v2.json",
                                  "ivap-weighted-str.v2.json", "negated-ivap.v2.json",
                                  "cvap.v2.json"])
def test_old_files_load_and_predict_as_before(name):
    from pathlib import Path

    path = Path(__file__).parent / "data" / "models" / name
    model = venncal.load(path)
    cvap = isinstance(model, CrossVennAbersCalibrator)
    cals = model.calibrators_ if cvap else [m for m in vars(model).values()
                                            if isinstance(m, VennAbersCalibrator)
                                            and hasattr(m, "p0_")]
    if isinstance(model, VennAbersCalibrator):
        cals = [model]
    assert cals
    for cal in cals:
        assert cal.negative_weights_ is None
        # the tables of w - a, computed as before b existed (b of length 0)
        q0, q1 = ivap_tables_full(cal.weights_, cal.positive_weights_)[2:]
        assert same_bits(cal.q0_, q0) and same_bits(cal.q1_, q1)
    again, text = _round_trip(model)
    assert "negative_weights_" not in text
    q = np.linspace(-3, 3, 13)
    if cvap:
        q = np.tile(q[:, None], (1, len(cals)))
    try:
        want = model.predict_proba(q)
    except (ValueError, TypeError):
        return  # not a score-level model; the state checks above are the point
    assert same_bits(again.predict_proba(q), want)


def test_unpickling_a_model_from_before_negative_weights():
    cal = VennAbersCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    old = copy.copy(cal)
    del old.__dict__["negative_weights_"]
    back = pickle.loads(pickle.dumps(old))
    assert back.negative_weights_ is None
    _same_model(back, cal)


def _document(cal):
    buf = io.StringIO()
    venncal.save(cal, buf)
    return json.loads(buf.getvalue())


@pytest.mark.parametrize("bad", ["negative", "too_big", "not_the_sum", "nan", "short", "int"])
def test_corrupted_negative_weights_are_refused(bad):
    cal = _repro_model()
    b = cal.negative_weights_.copy()
    if bad == "negative":
        b[0] = -1.0
    elif bad == "too_big":
        b[0] = cal.weights_[0] * 2
    elif bad == "not_the_sum":
        b[0] = 0.5  # score -3: weights_ 1, positive_weights_ 0
    elif bad == "nan":
        b[0] = np.nan
    elif bad == "short":
        b = b[:-1]
    else:
        b = b.astype(np.int64)
    cal.negative_weights_ = b
    buf = io.StringIO()
    venncal.save(cal, buf)
    buf.seek(0)
    with pytest.raises(ModelFormatError, match="negative_weights_|weights_"):
        venncal.load(buf)


# -- multiclass and CVAP -----------------------------------------------------------------


@pytest.mark.parametrize("make", [
    lambda: OneVsOneCalibrator(score="margin"),
    lambda: OneVsOneCalibrator(VennAbersCalibrator(merge="brier"), score="margin",
                               coupling="normalize"),
    lambda: OneVsRestCalibrator(score="margin"),
])
@pytest.mark.parametrize("heavy", [1e20, 2.0**53 + 2, 1e300])
def test_multiclass_batch_equals_the_loop_with_a_light_class_tied(make, heavy):
    rng = np.random.default_rng(3)
    n, K = 40, 3
    x = np.round(rng.normal(size=(n, K)))
    y = np.arange(n) % K
    w = np.where(y == 1, heavy, rng.choice([1.0, 0.1, 3.0], size=n))
    cal = make()
    fitted, cals = _fit_both(cal, x, y, w)
    assert any(c.negative_weights_ is not None for c in cals)
    _same_calibrators(fitted.calibrators_, cals)
    proba, interval = _loop_predictions(fitted, cals, x)
    assert same_bits(fitted.predict_proba(x), proba)
    assert same_bits(fitted.predict_interval(x), interval)
    loaded, _ = _round_trip(fitted)
    assert same_bits(loaded.predict_proba(x), proba)


def test_cvap_folds_use_the_negative_weights():
    w = np.where(REPRO_Y == 1, 1e20, 1.0)
    folds = np.array([0, 1] * 4)
    cvap = CrossVennAbersCalibrator().fit(np.concatenate([REPRO_S, REPRO_S]),
                                          np.concatenate([REPRO_Y, REPRO_Y]),
                                          sample_weight=np.concatenate([w, w]),
                                          folds=np.concatenate([folds, 1 - folds]))
    for cal in cvap.calibrators_:
        single = VennAbersCalibrator().fit(REPRO_S, REPRO_Y, sample_weight=w)
        _same_model(cal, single)
    loaded, _ = _round_trip(cvap)
    for got, want in zip(loaded.calibrators_, cvap.calibrators_, strict=True):
        _same_model(got, want)


@pytest.mark.parametrize("method", ["ivap", "cvap"])
def test_dask_fit_with_a_light_class_tied_equals_the_local_fit(method):
    # the engines merge per-label summaries, which keep each class's own sums
    dd = pytest.importorskip("dask.dataframe")
    import dask
    import pandas as pd

    import venncal.dask as vd

    rng = np.random.default_rng(0)
    n = 60
    s = rng.integers(0, 6, n).astype(float)
    y = rng.integers(0, 2, n)
    w = np.where(y == 1, rng.choice([1e20, 2.0**53 + 2, 1e300], n), rng.choice([1.0, 0.1], n))
    pdf = pd.DataFrame({"s": s, "y": y, "w": w, "fold": np.arange(n) % 2})
    cuts = [(0, 17), (17, 40), (40, n)]
    df = dd.from_map(lambda r: pdf.iloc[r[0]:r[1]], cuts, meta=pdf.iloc[:0])
    by = "fold" if method == "cvap" else None
    with dask.config.set(scheduler="synchronous"):
        got = vd.fit(df, method, score_col="s", label_col="y", weight_col="w", by=by)
    if method == "cvap":
        want = CrossVennAbersCalibrator().fit(s, y, sample_weight=w, folds=pdf.fold.to_numpy())
        pairs = list(zip(got.calibrators_, want.calibrators_, strict=True))
    else:
        want = VennAbersCalibrator().fit(s, y, sample_weight=w)
        pairs = [(got, want)]
    assert any(b.negative_weights_ is not None for _, b in pairs)
    for g, v in pairs:
        _same_model(g, v)
