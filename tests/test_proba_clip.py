"""``eps``: probabilities of exactly 0 and 1 (a random forest's, naive Bayes's) given to the
parametric calibrators and Platt with ``score="proba"`` (docs/parametric.md, "Probabilities of
0 and 1"): clipped to ``[eps, 1 - eps]`` the same way at fit and predict, counted in
``clipped_weight_``, never a NaN or inf out."""

from __future__ import annotations

import io
import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from venncal import BetaCalibrator, QuadraticLogisticCalibrator, persist
from venncal.baselines import PlattCalibrator
from venncal.parametric import (
    MatrixScalingCalibrator,
    StructuredMatrixScalingCalibrator,
    TemperatureCalibrator,
    VectorScalingCalibrator,
)

EPS = 1e-7
EDGES = [0.0, 1e-310, 1e-300, 1e-9, 1e-7, 0.3, 0.7, 1 - 1e-9, 1 - 2.0**-53, 1.0]


def _binary(**kw):
    return [BetaCalibrator(**kw), QuadraticLogisticCalibrator(score="proba", **kw),
            PlattCalibrator(score="proba", **kw),
            PlattCalibrator(score="proba", targets="labels", **kw)]


def _forest(seed=0, n=400, trees=20):
    """Probabilities k / trees, as a random forest's: many exact 0s and 1s."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(size=n)
    y = rng.uniform(size=n) < t
    s = np.round(np.clip(t + rng.normal(0, 0.25, n), 0, 1) * trees) / trees
    return s, y


def _clipped_logit(s, eps):
    with np.errstate(divide="ignore"):
        z = np.log(s) - np.log1p(-s)
    bound = math.log1p(-eps) - math.log(eps)
    return np.clip(z, -bound, bound)


@pytest.mark.parametrize("cal", _binary(), ids=lambda c: type(c).__name__)
def test_binary_fits_forest_probabilities_and_counts_the_clipped(cal):
    s, y = _forest()
    cal.fit(s, y)
    assert cal.clipped_weight_ == float(np.count_nonzero((s == 0) | (s == 1))) > 0
    p = cal.predict_proba(EDGES)
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()
    # constant below eps and above 1 - eps: 0 is eps, 1 is 1 - eps
    np.testing.assert_array_equal(p[:5], np.repeat(p[4:5], 5, axis=0))
    np.testing.assert_array_equal(p[-3:], np.repeat(p[-1:], 3, axis=0))
    w = np.linspace(0.5, 2.0, s.shape[0])
    weighted = type(cal)(**cal.get_params()).fit(s, y, sample_weight=w)
    assert weighted.clipped_weight_ == pytest.approx(float(w[(s == 0) | (s == 1)].sum()))


@pytest.mark.parametrize("eps", [1e-12, EPS, 0.01])
def test_clipping_is_the_fit_on_the_clipped_logits(eps):
    s, y = _forest(1)
    z = _clipped_logit(s, eps)
    for cal, ref in [(BetaCalibrator(eps=eps), BetaCalibrator(score="logit")),
                     (QuadraticLogisticCalibrator(score="proba", eps=eps),
                      QuadraticLogisticCalibrator()),
                     (PlattCalibrator(score="proba", eps=eps), PlattCalibrator())]:
        got = cal.fit(s, y).predict_proba(s)
        np.testing.assert_allclose(got, ref.fit(z, y).predict_proba(z), rtol=1e-7, atol=1e-12)


def test_interior_probabilities_give_the_same_fit_as_before():
    rng = np.random.default_rng(2)
    s = rng.uniform(0.01, 0.99, 500)
    y = rng.uniform(size=500) < s
    for clip, plain in zip(_binary(), _binary(eps=0.0)):
        clip.fit(s, y)
        plain.fit(s, y)
        assert clip.clipped_weight_ == 0.0
        np.testing.assert_array_equal(clip.predict_proba(s), plain.predict_proba(s))


@pytest.mark.parametrize("cal", _binary(eps=0.0), ids=lambda c: type(c).__name__)
def test_eps_zero_refuses_zero_and_one_when_fitting(cal):
    s, y = _forest()
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        cal.fit(s, y)


@pytest.mark.parametrize("cal", _binary(), ids=lambda c: type(c).__name__)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, -0.1, 1.5])
def test_binary_refuses_non_probabilities_at_fit_and_predict(cal, bad):
    s, y = _forest()
    with pytest.raises(ValueError):
        type(cal)(**cal.get_params()).fit(np.r_[s, bad], np.r_[y, True])
    cal.fit(s, y)
    with pytest.raises(ValueError):
        cal.predict_proba([0.5, bad])


@pytest.mark.parametrize("eps", [-1e-3, 0.5, 1.0, np.nan, "1e-7", True])
def test_eps_outside_its_range_is_refused(eps):
    s, y = _forest()
    for cal in [*_binary(eps=eps), TemperatureCalibrator(score="proba", eps=eps)]:
        with pytest.raises((ValueError, TypeError), match="eps"):
            cal.fit(s if cal.__class__ is not TemperatureCalibrator
                    else np.c_[1 - s, s], y)


@given(st.lists(st.sampled_from(EDGES) | st.floats(0.0, 1.0), min_size=1, max_size=30),
       st.sampled_from([0.0, 1e-310, 1e-12, EPS, 0.1]))
def test_binary_predictions_are_finite_and_monotone_at_the_edges(extra, eps):
    s, y = _forest(3, n=200)
    q = np.sort(np.r_[EDGES, extra])
    for cal in _binary(eps=eps):
        try:
            cal.fit(s, y)
        except ValueError as exc:  # eps = 0: refused, never a silent answer
            assert eps == 0.0 and "strictly between 0 and 1" in str(exc)
            continue
        p = cal.predict_proba(q)[:, 1]
        assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()
        if not isinstance(cal, QuadraticLogisticCalibrator):  # the quadratic may turn
            assert (np.diff(p) >= 0).all()


@given(st.lists(st.sampled_from(EDGES), min_size=4, max_size=40), st.randoms())
def test_binary_fits_on_edge_probabilities_answer_or_refuse(s, rnd):
    s = np.array(s)
    y = np.array([rnd.random() < 0.5 for _ in s])
    y[:2] = [True, False]
    for cal in _binary():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                cal.fit(s, y)
            except ValueError as exc:  # separable after clipping, e.g.: said, not silent
                assert str(exc)
                continue
        p = cal.predict_proba(EDGES)
        assert np.isfinite(p).all()
        np.testing.assert_allclose(p.sum(axis=1), 1.0)


# ------------------------------------------------------------------ K classes

def _class_rows(seed=0, n=300, K=3):
    """Probability rows with zeros, some of them on the label (digits under a forest)."""
    rng = np.random.default_rng(seed)
    p = rng.dirichlet([0.3] * K, size=n)
    p = np.round(p * 20) / 20
    p[p.sum(axis=1) == 0] = 1.0 / K
    p /= p.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(K, p=r) for r in p])
    p[:5] = [0.6, 0.4] + [0.0] * (K - 2)
    y[:5] = K - 1  # the label at probability 0
    return p, y


MULTI = [TemperatureCalibrator, VectorScalingCalibrator, MatrixScalingCalibrator,
         StructuredMatrixScalingCalibrator]


@pytest.mark.parametrize("cls", MULTI, ids=lambda c: c.__name__)
def test_class_probabilities_with_zeros_fit_and_predict_finite(cls):
    p, y = _class_rows()
    cal = cls(score="proba").fit(p, y)
    assert cal.clipped_weight_ == float(np.count_nonzero((p < EPS).any(axis=1)))
    q = cal.predict_proba(np.r_[p, [[1.0, 0.0, 0.0], [1e-310, 1 - 1e-310, 0.0]]])
    assert np.isfinite(q).all() and (q > 0).all()
    np.testing.assert_allclose(q.sum(axis=1), 1.0)
    # the same as the fit on the clipped logarithms, given as logits
    ref = cls(score="logit").fit(np.log(np.maximum(p, EPS)), y)
    np.testing.assert_allclose(q[:-2], ref.predict_proba(np.log(np.maximum(p, EPS))),
                               rtol=1e-6, atol=1e-9)


def test_eps_zero_keeps_the_refusals_of_before():
    p, y = _class_rows()
    with pytest.raises(ValueError, match="probability 0: the log loss is infinite"):
        TemperatureCalibrator(score="proba", eps=0.0).fit(p, y)
    with pytest.raises(ValueError, match="has a probability 0"):
        VectorScalingCalibrator(score="proba", eps=0.0).fit(p, y)
    ok = p[np.arange(y.shape[0]), y] > 0
    cal = TemperatureCalibrator(score="proba", eps=0.0).fit(p[ok], y[ok])
    assert cal.clipped_weight_ == 0.0
    assert (cal.predict_proba(p[ok])[p[ok] == 0] == 0).all()


@pytest.mark.parametrize("cls", MULTI, ids=lambda c: c.__name__)
@pytest.mark.parametrize("row", [[0.5, 0.5, np.nan], [0.5, 0.6, -0.1], [0.5, 0.2, 0.2],
                                 [np.inf, 0.0, 0.0]])
def test_class_rows_that_are_not_probabilities_are_refused(cls, row):
    p, y = _class_rows()
    with pytest.raises(ValueError, match="row 7"):
        cls(score="proba").fit(np.r_[p[:7], [row], p[8:]], y)


# ------------------------------------------------------------------ saved models

def _saved(cal) -> dict:
    out = io.StringIO()
    persist.save(cal, out, format_version=2)  # no checksum: the tests edit the document
    return json.loads(out.getvalue())


def _load(doc: dict):
    return persist.load(io.StringIO(json.dumps(doc)))


@pytest.mark.parametrize("cal", [*_binary(), TemperatureCalibrator(score="proba"),
                                 VectorScalingCalibrator(score="proba")],
                         ids=lambda c: type(c).__name__)
def test_models_saved_before_eps_load_with_its_default(cal):
    if cal.__class__ in MULTI:
        p, y = _class_rows()
        p = np.clip(p, 0.01, 1)
        p /= p.sum(axis=1, keepdims=True)
    else:
        p, y = _forest()
        p = np.clip(p, 0.01, 0.99)
    cal.fit(p, y)
    doc = _saved(cal)
    assert "eps" not in doc["params"]  # the default is left out: old files re-save the same
    saved = "clipped_weight_" in doc["state"]  # not for Platt (its files are frozen)
    assert saved == (not isinstance(cal, PlattCalibrator))
    doc["state"].pop("clipped_weight_", None)  # as written before eps existed
    old = _load(doc)
    assert old.eps == EPS and getattr(old, "clipped_weight_", 0.0) == 0.0
    np.testing.assert_array_equal(old.predict_proba(p), cal.predict_proba(p))
    other = type(cal)(**{**cal.get_params(), "eps": 1e-12}).fit(p, y)
    again = persist.load(io.StringIO(json.dumps(_saved(other))))
    assert again.eps == 1e-12
    np.testing.assert_array_equal(again.predict_proba(p), other.predict_proba(p))
    if saved:
        assert again.clipped_weight_ == other.clipped_weight_


@pytest.mark.parametrize(("params", "value"), [({}, -1.0), ({"eps": 0.0}, 3.0), ({"score": "logit"}, 1.0)])
def test_saved_clipped_weight_is_checked(params, value):
    s, y = _forest()
    s = np.clip(s, 0.01, 0.99)
    doc = _saved(BetaCalibrator(**params).fit(s, y))
    doc["state"]["clipped_weight_"] = value
    with pytest.raises(ValueError, match="clipped_weight_"):
        _load(doc)


# ------------------------------------------------------------------ compare

def test_compare_ranks_the_parametric_calibrators_on_forest_probabilities():
    from venncal import compare

    s, y = _forest(4, n=300)
    res = compare(s, y, score="proba", seed=0, methods=["beta", "quadratic-logistic", "platt"])
    for m in ("beta", "quadratic-logistic", "platt"):
        assert res.failures(m) == {}
        assert np.isfinite(res.mean(m)["log_loss"])


def test_command_line_fit_reaches_eps(tmp_path, capsys):
    import pandas as pd

    from venncal.cli import main

    s, y = _forest(5, n=200)
    pd.DataFrame({"s": s, "y": y.astype(int)}).to_csv(tmp_path / "t.csv", index=False)
    cols = ["--score-col", "s", "--label-col", "y", "--param", "score=proba"]
    for method, eps in [("beta", "1e-12"), ("platt", "0.001")]:
        out = tmp_path / f"{method}.json"
        code = main(["fit", str(tmp_path / "t.csv"), *cols, "--method", method,
                     "--param", f"eps={eps}", "-o", str(out)])
        assert code == 0, capsys.readouterr().err
        model = persist.load(out)
        assert model.eps == float(eps)
        if method == "beta":  # Platt's files do not keep it
            assert model.clipped_weight_ > 0


@given(st.lists(st.tuples(st.sampled_from(EDGES), st.booleans(),
                          st.sampled_from([1e-310, 1e-300, 1.0, 2.0**53 - 1, 1e308])),
                min_size=2, max_size=12))
def test_edge_weights_on_clipped_probabilities_answer_or_refuse(rows):
    s = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows])
    for cal in _binary(classes=[False, True]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                cal.fit(s, y, sample_weight=w)
            except ValueError as exc:  # one class, separable, weights: said, not silent
                assert str(exc)
                continue
        assert math.isfinite(cal.clipped_weight_) and cal.clipped_weight_ >= 0
        p = cal.predict_proba(EDGES)
        assert np.isfinite(p).all() and ((p >= 0) & (p <= 1)).all()
