"""Tests of the River adapter ``venncal.online.river`` (optional extra ``river``)."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import numpy as np
import pytest

river = pytest.importorskip(
    "river", reason='River is not installed (pip install "venncal[river]"): adapter not tested'
)
from river import base, linear_model, preprocessing, tree
from river.checks import check_estimator

from venncal.online import JumperPredictor, MeanJumper
from venncal.online.river import ProtectedRiverClassifier

_DEFAULT_DIR = Path(__file__).resolve().parents[2] / "shared" / "datasets"
DATA_DIR = Path(os.environ.get("VENNCAL_DATA") or _DEFAULT_DIR)
needs_bank = pytest.mark.skipif(
    not (DATA_DIR / "bank-marketing" / "bank-full.csv.gz").is_file(),
    reason=f"bank-marketing/bank-full.csv.gz not found under {DATA_DIR} (set VENNCAL_DATA)",
)


def bank_prefix(n: int):
    from venncal.experiments import vovk2021_bank as exp

    columns, rows = exp.bank_stream(DATA_DIR)
    X, y = exp.encode(columns, rows[:n], "ordinal-sorted")
    names = columns[:-1]
    return [dict(zip(names, row.tolist(), strict=True)) for row in X], y.tolist()


def scaled_logistic():
    return preprocessing.StandardScaler() | linear_model.LogisticRegression()


def test_river_checks():
    check_estimator(ProtectedRiverClassifier(linear_model.LogisticRegression(), clip=(0.01, 0.99)))


@needs_bank
@pytest.mark.parametrize("jump_rate", [0.01, (1.0, 0.01)])
def test_bank_prefix_equals_model_then_jumper(jump_rate):
    xs, ys = bank_prefix(4000)
    wrapped = ProtectedRiverClassifier(scaled_logistic(), jump_rate=jump_rate, clip=(0.1, 0.9))
    base = scaled_logistic()
    jumper = (
        JumperPredictor(jump_rate=jump_rate, clip=(0.1, 0.9), classes=[1, 2])
        if isinstance(jump_rate, float)
        else MeanJumper(jump_rates=jump_rate, clip=(0.1, 0.9), classes=[1, 2])
    )
    k = next(i for i, y in enumerate(ys) if y != ys[0])  # both labels known from here
    got, p_base, p_ref = [], [], []
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        got.append(wrapped.predict_proba_one(x))
        proba = base.predict_proba_one(x)
        p = proba.get(2, 1.0 - proba.get(1, 0.5))
        p_base.append(p)
        if i >= k:
            p_ref.append(jumper.predict_proba_one(p)[2])
            jumper.learn_one(p, y)
        base.learn_one(x, y)
        wrapped.learn_one(x, y)
    # steps after k: the wrapper's forecast is the reference Jumper's on the model's p
    q = np.array([d[2] for d in got[k + 1 :]])
    np.testing.assert_allclose(q, p_ref[1:], rtol=1e-12)
    assert wrapped.jumper.n_seen_ == len(ys) - k
    y = np.array(ys[k:])
    pc, qa = np.clip(p_base[k:], 0.1, 0.9), np.array(p_ref)
    loss = lambda v: -np.sum(np.log10(np.where(y == 2, v, 1 - v)))
    assert wrapped.jumper.log10_value == pytest.approx(loss(pc) - loss(qa), rel=1e-9)
    assert wrapped.jumper.log10_value > 0  # the logistic model is not calibrated online


@needs_bank
def test_hoeffding_tree_on_bank_needs_clip():
    xs, ys = bank_prefix(3000)
    model = ProtectedRiverClassifier(tree.HoeffdingTreeClassifier(), clip=(0.1, 0.9))
    for x, y in zip(xs, ys, strict=True):
        q = model.predict_proba_one(x)
        assert not q or abs(sum(q.values()) - 1.0) < 1e-12  # {} before any label
        model.learn_one(x, y)
    assert np.isfinite(model.jumper.log10_value)
    resumed = pickle.loads(pickle.dumps(model))
    assert resumed.predict_proba_one(xs[0]) == model.predict_proba_one(xs[0])


def test_booleans_need_no_classes_and_clone_is_fresh():
    model = ProtectedRiverClassifier(linear_model.LogisticRegression(), jump_rate=0.1)
    model.learn_one({"x": 1.0}, True)
    assert model.jumper.n_seen_ == 1
    assert set(model.predict_proba_one({"x": 1.0})) == {False, True}
    fresh = model.clone()
    assert fresh.jumper.n_seen_ == 0
    assert fresh.jump_rate == 0.1


def test_label_errors():
    model = ProtectedRiverClassifier(linear_model.LogisticRegression(), classes=["a", "b"])
    with pytest.raises(ValueError, match="not one of the two classes"):
        model.learn_one({"x": 1.0}, "c")
    with pytest.raises(ValueError, match="two distinct labels"):
        ProtectedRiverClassifier(linear_model.LogisticRegression(), classes=["a", "a"])


def test_mixed_label_types_and_a_nan_probability_are_said_plainly():
    """Attack 12's River notes: labels 'a' then 1 gave a bare '<' TypeError from sorting;
    a NaN probability from the model was reported as the Jumper's 'p contains NaN'."""
    class Anything(base.Classifier):
        def learn_one(self, x, y):
            pass

        def predict_proba_one(self, x):
            return {}

    model = ProtectedRiverClassifier(Anything())
    model.learn_one({"x": 1.0}, "a")
    with pytest.raises(TypeError, match="the labels 'a' and 1 cannot be ordered"):
        model.learn_one({"x": 1.0}, 1)

    class Broken(linear_model.LogisticRegression):
        def predict_proba_one(self, x):
            return {False: float("nan"), True: float("nan")}

    model = ProtectedRiverClassifier(Broken())
    with pytest.raises(ValueError, match="the model's probability of True for this x is nan"):
        model.learn_one({"x": 1.0}, False)


def test_certain_wrong_forecast_without_clip_is_an_error():
    class Certain(linear_model.LogisticRegression):
        def predict_proba_one(self, x):
            return {False: 0.0, True: 1.0}

    model = ProtectedRiverClassifier(Certain())
    with pytest.raises(ValueError, match="clip"):
        model.learn_one({"x": 1.0}, False)


class GivenProbability(base.Classifier):
    """A River 'classifier' whose probability of True is the feature ``p``."""

    def learn_one(self, x, y):
        pass

    def predict_proba_one(self, x):
        return {False: 1.0 - x["p"], True: x["p"]}


def test_issue_22_subnormal_forecast():
    # The model says 1e-310 and the positive label comes: the Jumper's 1/q
    # overflowed and every later forecast was NaN.
    p, y = [0.3, 1e-310, 0.4, 0.6], [True, True, False, True]
    model = ProtectedRiverClassifier(GivenProbability(), jump_rate=(1, 0.01), classes=[False, True])
    got = []
    for pi, yi in zip(p, y, strict=True):
        got.append(model.predict_proba_one({"p": pi})[True])
        model.learn_one({"p": pi}, yi)
    ref = MeanJumper(jump_rates=(1, 0.01))
    res = ref.run(p, y)
    assert np.isfinite(got).all() and np.isfinite(model.jumper.log10_value)
    np.testing.assert_array_equal(got, res.protected_proba)
    assert model.jumper.log10_value == res.log10_final


def test_jump_rate_is_any_real_scalar_checked_by_the_jumper():
    # the fresh attack of 2026-11-26 (H2): a numpy float32 crashed ("not iterable"), True
    # was taken as 1.0
    m = ProtectedRiverClassifier(linear_model.LogisticRegression(), jump_rate=np.float32(0.1))
    m.learn_one({"x": 1.0}, True)
    assert m.jumper.jump_rate == np.float32(0.1)
    with pytest.raises(ValueError, match="jump_rate must be a finite real number"):
        bad = ProtectedRiverClassifier(linear_model.LogisticRegression(), jump_rate=True)
        bad.learn_one({"x": 1.0}, True)


@pytest.mark.parametrize("q", [1e-17, 1e-300, 5e-324])
def test_a_negative_class_probability_1_minus_which_rounds_to_1_is_refused_plainly(q):
    # attack 33 F4: a model giving only {False: 1e-17} was shown as {False: 0.0, True: 1.0},
    # and the label False raised "p = 1 ... gave probability 0 to its label False", a
    # forecast the model never made
    class Negative(base.Classifier):
        def learn_one(self, x, y):
            pass

        def predict_proba_one(self, x):
            return {False: q}

    model = ProtectedRiverClassifier(Negative(), classes=[False, True])
    said = f"the model's probability of False for this x is {q!r}, below 2\\*\\*-53"
    with pytest.raises(ValueError, match=said):
        model.predict_proba_one({})
    before = model.jumper.log10_value
    with pytest.raises(ValueError, match=said):
        model.learn_one({}, False)
    assert model.jumper.log10_value == before
    # at 2**-53 and above, 1 - q is not 1: the Jumper learns
    model = ProtectedRiverClassifier(Negative(), classes=[False, True])
    Negative.predict_proba_one = lambda self, x: {False: 2.0**-53}
    model.learn_one({}, False)
    assert np.isfinite(model.jumper.log10_value)
