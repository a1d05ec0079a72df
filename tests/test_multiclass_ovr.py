"""One-vs-rest calibration on class scores (venncal.multiclass.OneVsRestCalibrator)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from reference import multiclass as ref

import venncal
from venncal import (
    CrossVennAbersCalibrator,
    IsotonicCalibrator,
    OneVsRestCalibrator,
    PlattCalibrator,
    VennAbersCalibrator,
)


def _softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _data(rng, n, K, *, ties=False):
    z = rng.normal(size=(n, K)) * 2
    if ties:
        z = np.round(z)
    y = np.array([rng.choice(K, p=row) for row in _softmax(z)])
    y[:K] = np.arange(K)  # every class present
    return z, y


@pytest.mark.parametrize("kind", ["proba", "logit", "margin"])
@pytest.mark.parametrize("ties", [False, True])
def test_pairs_equal_the_literal_reference(kind, ties):
    rng = np.random.default_rng(1 + ties)
    z, y = _data(rng, 30, 3, ties=ties)
    zt, _ = _data(rng, 8, 3, ties=ties)
    x, xt = (_softmax(z), _softmax(zt)) if kind == "proba" else (z, zt)
    cal = OneVsRestCalibrator(score=kind).fit(x, y)
    got = cal.predict_interval(xt)
    p0, p1 = ref.ovr_pairs(x.tolist(), y.tolist(), xt.tolist(), [0, 1, 2], kind)
    np.testing.assert_allclose(got[:, :, 0], p0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got[:, :, 1], p1, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cal.predict_proba(xt), ref.ovr_proba(p0, p1), rtol=0, atol=1e-12)


def test_weights_equal_the_literal_reference():
    rng = np.random.default_rng(3)
    z, y = _data(rng, 25, 3)
    w = rng.integers(0, 4, size=25).astype(float)
    w[:3] = 1.0
    cal = OneVsRestCalibrator(score="logit").fit(z, y, w)
    zt = rng.normal(size=(6, 3))
    p0, p1 = ref.ovr_pairs(z.tolist(), y.tolist(), zt.tolist(), [0, 1, 2], "logit", w.tolist())
    got = cal.predict_interval(zt)
    np.testing.assert_allclose(got[:, :, 0], p0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got[:, :, 1], p1, rtol=0, atol=1e-12)


def test_a_top_class_near_its_cancellation_is_ordered_as_defined():
    """Attack 46 F1: row A = [ln 2, 0, 0] scored 0 for class 0 (exact -1.16e-17), above
    B = [0, 0, -40] (-2.1e-18): class 0's IVAP interval at A was (0.5, 1), the definition's
    (1/3, 2/3), and the probabilities moved by up to 1/3."""
    a, b = [np.log(2.0), 0.0, 0.0], [0.0, 0.0, -40.0]
    cal_x = np.array([a, b, [0.0, 5.0, 0.0], [0.0, 0.0, 5.0]])
    cal_y = np.array([0, 1, 1, 2])
    cal = OneVsRestCalibrator(score="logit").fit(cal_x, cal_y)
    xt = np.array([a, b])
    p0, p1 = ref.ovr_pairs(cal_x.tolist(), cal_y.tolist(), xt.tolist(), [0, 1, 2], "logit")
    got = cal.predict_interval(xt)
    np.testing.assert_allclose(got[:, :, 0], p0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got[:, :, 1], p1, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got[0, 0], [1 / 3, 2 / 3], rtol=0, atol=1e-12)
    np.testing.assert_allclose(cal.predict_proba(xt), ref.ovr_proba(p0, p1), rtol=0, atol=1e-12)


@pytest.mark.parametrize("scale", [700.0, 1e308])
def test_extreme_logits(scale):
    rng = np.random.default_rng(4)
    z = np.clip(rng.normal(size=(20, 3)), -1.7, 1.7) * scale
    y = np.arange(20) % 3
    cal = OneVsRestCalibrator(score="logit").fit(z, y)
    zt = np.clip(rng.normal(size=(5, 3)), -1.7, 1.7) * scale
    got = cal.predict_interval(zt)
    p0, p1 = ref.ovr_pairs(z.tolist(), y.tolist(), zt.tolist(), [0, 1, 2], "logit")
    np.testing.assert_allclose(got[:, :, 0], p0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got[:, :, 1], p1, rtol=0, atol=1e-12)
    p = cal.predict_proba(zt)
    assert np.isfinite(p).all()
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-15)


def test_constant_scores():
    z = np.zeros((9, 3))
    y = np.arange(9) % 3
    cal = OneVsRestCalibrator(score="logit").fit(z, y)
    np.testing.assert_allclose(cal.predict_proba(np.zeros((2, 3))), 1 / 3, atol=1e-15)


def test_relabelling_gives_the_same_model():
    rng = np.random.default_rng(5)
    z, y = _data(rng, 40, 3)
    zt = rng.normal(size=(7, 3))
    base = OneVsRestCalibrator(score="logit").fit(z, y).predict_proba(zt)
    for labels in (np.array(["x", "y", "z"]), np.array([5, 7, 9]), np.array([-1, 0, 1])):
        cal = OneVsRestCalibrator(score="logit").fit(z, labels[y])
        assert cal.classes_.tolist() == labels.tolist()
        np.testing.assert_array_equal(cal.predict_proba(zt), base)
        assert cal.predict(zt).tolist() == labels[base.argmax(axis=1)].tolist()
    perm = [2, 0, 1]
    names = np.array(["x", "y", "z"])
    cal = OneVsRestCalibrator(score="logit", classes=names[perm]).fit(z[:, perm], names[y])
    np.testing.assert_array_equal(cal.predict_proba(zt[:, perm]), base[:, perm])


def _models():
    return [
        (VennAbersCalibrator(), {}),
        (VennAbersCalibrator(merge="brier"), {}),
        (PlattCalibrator(), {}),
        (IsotonicCalibrator(), {}),
        (CrossVennAbersCalibrator(), {"folds": True}),
    ]


@pytest.mark.parametrize(("base", "extra"), _models())
def test_fit_equals_fit_summary_and_save_load(base, extra):
    rng = np.random.default_rng(6)
    z, y = _data(rng, 60, 4)
    w = rng.integers(1, 3, size=60).astype(float)
    kw = {"folds": np.arange(60) % 3} if extra else {}
    cal = OneVsRestCalibrator(base, score="logit")
    fitted = cal.fit(z, y, w, **kw)
    zt = rng.normal(size=(9, 4))
    from sklearn.base import clone

    other = clone(cal).fit_summary(cal.summaries(z, y, w, **kw))
    np.testing.assert_array_equal(other.predict_proba(zt), fitted.predict_proba(zt))
    buffer = io.StringIO()
    venncal.save(fitted, buffer)
    loaded = venncal.load(io.StringIO(buffer.getvalue()))
    assert type(loaded) is OneVsRestCalibrator
    np.testing.assert_array_equal(loaded.predict_proba(zt), fitted.predict_proba(zt))
    for a, b in zip(loaded.calibrators_, fitted.calibrators_, strict=True):
        for name in type(b)._state:
            if isinstance(getattr(b, name), np.ndarray):
                np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert base.__dict__.keys() == clone(base).__dict__.keys()  # the base was not fitted


def test_base_is_not_mutated():
    base = VennAbersCalibrator()
    rng = np.random.default_rng(7)
    z, y = _data(rng, 20, 3)
    OneVsRestCalibrator(base, score="logit").fit(z, y)
    assert not hasattr(base, "classes_")


def test_cvap_matches_the_literal_reference():
    rng = np.random.default_rng(8)
    z, y = _data(rng, 36, 3)
    folds = np.arange(36) % 2
    cal = OneVsRestCalibrator(CrossVennAbersCalibrator(), score="logit").fit(z, y, folds=folds)
    zt = rng.normal(size=(6, 3))
    p, interval = ref.cvap_ovr(z.tolist(), y.tolist(), folds.tolist(), zt.tolist(), [0, 1, 2],
                               "logit")
    np.testing.assert_allclose(cal.predict_interval(zt), interval, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cal.predict_proba(zt), p / p.sum(axis=1, keepdims=True),
                               rtol=0, atol=1e-12)
    assert cal.folds_.tolist() == [0, 1]
    # one block of K columns per fold: the same as (n, K) when the blocks are equal
    blocks = np.stack([zt, zt], axis=1)
    np.testing.assert_array_equal(cal.predict_proba(blocks), cal.predict_proba(zt))
    assert cal.predict_proba(np.stack([zt, zt + 1], axis=1)).shape == (6, 3)


def test_all_zero_probabilities_give_uniform_rows():
    x = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0], [1.0, 0, 0]])
    cal = OneVsRestCalibrator(IsotonicCalibrator()).fit(x, [0, 1, 2, 1])
    p = cal.predict_proba(x)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert np.isfinite(p).all()


@pytest.mark.parametrize(
    ("scores", "y", "kwargs", "message"),
    [
        (np.full((3, 2), 0.5), [0, 1, 2], {}, r"shape \(n_samples, 3\)"),
        ([[0.5, 0.6], [0.5, 0.5]], [0, 1], {}, "row 0 \\(from 0\\) sums to"),
        ([[0.5, np.nan], [0.5, 0.5]], [0, 1], {}, "must be finite; row 0"),
        ([[0.5, np.inf], [0.5, 0.5]], [0, 1], {"score": "logit"}, "must be finite"),
        ([[1.5, -0.5], [0.5, 0.5]], [0, 1], {}, r"lie in \[0, 1\]"),
        ([[0.5, 0.5], [0.5, 0.5]], [1, 1], {}, "single class"),
        ([[0.2, 0.3, 0.5], [0.5, 0.3, 0.2]], [0, 1], {"classes": [0, 1, 2]},
         r"class\(es\) \[2\]"),
        ([[0.5, 0.5], [0.5, 0.5]], [0, 2], {"classes": [0, 1]}, r"label\(s\) \[2\]"),
        ([[0.5, 0.5], [0.5, 0.5]], [0, 1], {"score": "probability"}, "score"),
        ([[0.5, 0.5], [0.5, 0.5]], [0, 1], {"base": VennAbersCalibrator(classes=[0, 1])},
         "leave the base"),
    ],
)
def test_bad_input(scores, y, kwargs, message):
    with pytest.raises(ValueError, match=message):
        OneVsRestCalibrator(**kwargs).fit(scores, y)


def test_zero_weight_class_is_absent():
    x = np.array([[0.2, 0.8], [0.7, 0.3], [0.5, 0.5]])
    with pytest.raises(ValueError, match=r"class\(es\) \[1\]"):
        OneVsRestCalibrator().fit(x, [0, 1, 0], [1.0, 0.0, 1.0])


def test_folds_rules():
    x = np.array([[0.2, 0.8], [0.7, 0.3], [0.5, 0.5], [0.1, 0.9]])
    with pytest.raises(TypeError, match="needs folds"):
        OneVsRestCalibrator(CrossVennAbersCalibrator()).fit(x, [0, 1, 0, 1])
    with pytest.raises(TypeError, match="folds= is for"):
        OneVsRestCalibrator().fit(x, [0, 1, 0, 1], folds=[0, 0, 1, 1])


def test_fit_summary_errors():
    x = np.array([[0.2, 0.8], [0.7, 0.3], [0.5, 0.5], [0.1, 0.9]])
    cal = OneVsRestCalibrator()
    sums = cal.summaries(x, ["a", "b", "a", "b"])
    with pytest.raises(ValueError, match="no summary of class 'c'"):
        OneVsRestCalibrator(classes=["a", "b", "c"]).fit_summary(sums)
    with pytest.raises(TypeError, match="non-empty mapping"):
        cal.fit_summary({})
    with pytest.raises(ValueError, match="single class|at least two"):
        OneVsRestCalibrator().fit_summary({"a": sums["a"]})


@pytest.mark.parametrize("merge", ["log", "brier"])
def test_batch_lookup_equals_each_calibrator(merge):
    rng = np.random.default_rng(9)
    z, y = _data(rng, 80, 4, ties=True)
    zt = np.round(rng.normal(size=(30, 4)) * 2)
    cal = OneVsRestCalibrator(VennAbersCalibrator(merge=merge), score="margin").fit(z, y)
    q = np.column_stack([c.predict_proba(zt[:, k])[:, 1] for k, c in enumerate(cal.calibrators_)])
    np.testing.assert_array_equal(cal.predict_proba(zt), q / q.sum(axis=1, keepdims=True))
    pairs = np.stack([c.predict_interval(zt[:, k]) for k, c in enumerate(cal.calibrators_)], 1)
    np.testing.assert_array_equal(cal.predict_interval(zt), pairs)


@pytest.mark.parametrize("wrapper", [OneVsRestCalibrator, venncal.OneVsOneCalibrator])
def test_a_negated_cross_venn_abers_base_predicts_from_k_or_f_times_k_columns(wrapper):
    """Its members are NegatedScoreCalibrator objects (no calibrators_ of their own): the
    folds are counted from folds_ (predict_proba raised AttributeError)."""
    from venncal import CrossVennAbersCalibrator, NegatedScoreCalibrator
    from venncal.multiclass._outputs import table_scores

    rng = np.random.default_rng(3)
    n, K = 90, 3
    z = rng.normal(size=(n, K))
    y = rng.integers(0, K, n)
    folds = np.arange(n) % 3
    model = wrapper(NegatedScoreCalibrator(CrossVennAbersCalibrator()), score="margin")
    model.fit(-z, y, folds=folds)
    plain = wrapper(CrossVennAbersCalibrator(), score="margin").fit(z, y, folds=folds)
    np.testing.assert_array_equal(model.predict_proba(-z[:7]), plain.predict_proba(z[:7]))
    blocks = np.concatenate([-z[:7]] * 3, axis=1)
    assert table_scores(model, blocks).shape == (7, 3, K)


@pytest.mark.parametrize("wrapper", [OneVsRestCalibrator, venncal.OneVsOneCalibrator])
def test_a_negated_chain_is_refused_as_a_base_up_front(wrapper):
    """A chain fits on the rows, not from summaries: as a base it was refused, but a negated
    chain passed and fit failed with "has no fit_summary ...: call fit" (attack 42 F3)."""
    from venncal import ChainedCalibrator, NegatedScoreCalibrator, PlattCalibrator
    from venncal._engine import engine_calibrator
    from venncal.multiclass._common import _is_binary_calibrator

    chain = ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator())
    z = np.random.default_rng(0).normal(size=(30, 3))
    with pytest.raises(ValueError, match="base must be a venncal binary score calibrator"):
        wrapper(NegatedScoreCalibrator(chain), score="margin").fit(z, np.arange(30) % 3)
    assert not _is_binary_calibrator(NegatedScoreCalibrator(NegatedScoreCalibrator(chain)))
    assert _is_binary_calibrator(NegatedScoreCalibrator(PlattCalibrator()))
    # the engines (Dask, Spark) refuse it before reading the data, as a chain itself
    with pytest.raises(ValueError, match="cannot be fitted from a score summary"):
        engine_calibrator(NegatedScoreCalibrator(chain), {}, None)
