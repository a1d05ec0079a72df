"""One-vs-one calibration and the couplings (venncal.multiclass.OneVsOneCalibrator)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from reference import multiclass as ref
from sklearn.base import clone

import venncal
from venncal import (
    CrossVennAbersCalibrator,
    IsotonicCalibrator,
    OneVsOneCalibrator,
    PlattCalibrator,
    VennAbersCalibrator,
)
from venncal.multiclass import couple


def _softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _data(rng, n, K, *, ties=False):
    z = rng.normal(size=(n, K)) * 2
    if ties:
        z = np.round(z)
    y = np.array([rng.choice(K, p=row) for row in _softmax(z)])
    y[: 2 * K] = np.arange(2 * K) % K
    return z, y


@pytest.mark.parametrize("kind", ["proba", "logit", "margin"])
@pytest.mark.parametrize("ties", [False, True])
def test_pairs_equal_the_literal_reference(kind, ties):
    rng = np.random.default_rng(11 + ties)
    z, y = _data(rng, 30, 3, ties=ties)
    zt, _ = _data(rng, 8, 3, ties=ties)
    x, xt = (_softmax(z), _softmax(zt)) if kind == "proba" else (z, zt)
    cal = OneVsOneCalibrator(score=kind).fit(x, y)
    got = cal.predict_interval(xt)
    p0, p1 = ref.ovo_pairs(x.tolist(), y.tolist(), xt.tolist(), [0, 1, 2], kind)
    np.testing.assert_allclose(got[:, :, 0], p0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got[:, :, 1], p1, rtol=0, atol=1e-12)
    r = np.column_stack([ref.log_minimax(p0[:, q], p1[:, q]) for q in range(3)])
    want = np.array([ref.couple_row(row, 3, "price") for row in r])
    np.testing.assert_allclose(cal.predict_proba(xt), want, rtol=0, atol=1e-12)


def test_weights_and_zero_probabilities_equal_the_literal_reference():
    rng = np.random.default_rng(13)
    z, y = _data(rng, 30, 4)
    p = _softmax(z)
    p[rng.random(p.shape) < 0.2] = 0.0  # zeros: ratios 0, inf and 0/0
    p[5] = [1.0, 0.0, 0.0, 0.0]
    p /= p.sum(axis=1, keepdims=True)
    w = rng.integers(0, 3, size=30).astype(float)
    w[:8] = 1.0
    pt = p[::3].copy()
    cal = OneVsOneCalibrator().fit(p, y, w)
    p0, p1 = ref.ovo_pairs(p.tolist(), y.tolist(), pt.tolist(), [0, 1, 2, 3], "proba", w.tolist())
    got = cal.predict_interval(pt)
    np.testing.assert_allclose(got[:, :, 0], p0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got[:, :, 1], p1, rtol=0, atol=1e-12)


@pytest.mark.parametrize("scale", [700.0, 1e308])
def test_extreme_logits(scale):
    rng = np.random.default_rng(14)
    z = np.clip(rng.normal(size=(24, 3)), -1.7, 1.7) * scale
    y = np.arange(24) % 3
    zt = np.clip(rng.normal(size=(5, 3)), -1.7, 1.7) * scale
    cal = OneVsOneCalibrator(score="logit").fit(z, y)
    p0, p1 = ref.ovo_pairs(z.tolist(), y.tolist(), zt.tolist(), [0, 1, 2], "logit")
    got = cal.predict_interval(zt)
    np.testing.assert_allclose(got[:, :, 0], p0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got[:, :, 1], p1, rtol=0, atol=1e-12)
    for coupling in ("normalize", "price", "wu-lin-weng"):
        p = cal.set_params(coupling=coupling).predict_proba(zt)
        assert np.isfinite(p).all() and (p >= 0).all()
        np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", ["normalize", "price", "wu-lin-weng"])
def test_couplings_equal_their_formulas(method):
    rng = np.random.default_rng(15)
    K = 4
    first, second = np.triu_indices(K, 1)
    r = rng.uniform(0.02, 0.98, size=(20, len(first)))
    got = couple(r.T, first, second, K, method)
    want = np.array([ref.couple_row(row, K, method) for row in r])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", ["normalize", "price", "wu-lin-weng"])
def test_couplings_recover_consistent_pairwise_probabilities(method):
    rng = np.random.default_rng(16)
    K = 5
    first, second = np.triu_indices(K, 1)
    p = rng.dirichlet(np.ones(K), size=10)
    r = p[:, second] / (p[:, first] + p[:, second])
    got = couple(r.T, first, second, K, method)
    if method == "normalize":  # not exact for consistent r; still a distribution
        np.testing.assert_allclose(got.sum(axis=1), 1.0)
    else:
        np.testing.assert_allclose(got, p, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("method", ["normalize", "price", "wu-lin-weng"])
def test_couplings_with_zeros_and_ones(method):
    first, second = np.triu_indices(3, 1)
    r = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.5]])
    got = couple(r.T, first, second, 3, method)
    assert np.isfinite(got).all() and (got >= 0).all()
    np.testing.assert_allclose(got.sum(axis=1), 1.0)
    assert got[0].argmax() == 0 and got[1].argmax() == 2


def test_relabelling_gives_the_same_model():
    rng = np.random.default_rng(17)
    z, y = _data(rng, 45, 3)
    zt = rng.normal(size=(7, 3))
    base = OneVsOneCalibrator(score="logit").fit(z, y)
    want = base.predict_proba(zt)
    for labels in (np.array(["x", "y", "z"]), np.array([5, 7, 9]), np.array([-1, 0, 1])):
        cal = OneVsOneCalibrator(score="logit").fit(z, labels[y])
        np.testing.assert_array_equal(cal.predict_proba(zt), want)
    # permuted classes: pairs change orientation; IVAP of the mirrored problem is 1 - (p1, p0)
    perm = [2, 0, 1]
    names = np.array(["x", "y", "z"])
    for kind, x, xt in (("logit", z, zt), ("proba", _softmax(z), _softmax(zt))):
        ours = OneVsOneCalibrator(score=kind).fit(x, names[y])
        cal = OneVsOneCalibrator(score=kind, classes=names[perm]).fit(x[:, perm], names[y])
        np.testing.assert_allclose(cal.predict_proba(xt[:, perm]), ours.predict_proba(xt)[:, perm],
                                   rtol=0, atol=1e-15)


@pytest.mark.parametrize(
    "base",
    [VennAbersCalibrator(), PlattCalibrator(), IsotonicCalibrator(), CrossVennAbersCalibrator()],
)
@pytest.mark.parametrize("coupling", ["price", "wu-lin-weng"])
def test_fit_equals_fit_summary_and_save_load(base, coupling):
    rng = np.random.default_rng(18)
    z, y = _data(rng, 60, 4)
    w = rng.integers(1, 3, size=60).astype(float)
    kw = {"folds": np.arange(60) % 2} if isinstance(base, CrossVennAbersCalibrator) else {}
    cal = OneVsOneCalibrator(base, score="logit", coupling=coupling)
    fitted = clone(cal).fit(z, y, w, **kw)
    zt = rng.normal(size=(9, 4))
    other = clone(cal).fit_summary(cal.summaries(z, y, w, **kw))
    np.testing.assert_array_equal(other.predict_proba(zt), fitted.predict_proba(zt))
    buffer = io.StringIO()
    venncal.save(fitted, buffer)
    loaded = venncal.load(io.StringIO(buffer.getvalue()))
    np.testing.assert_array_equal(loaded.predict_proba(zt), fitted.predict_proba(zt))
    assert loaded.pairs_.tolist() == fitted.pairs_.tolist()
    if hasattr(fitted, "predict_interval"):
        np.testing.assert_array_equal(loaded.predict_interval(zt), fitted.predict_interval(zt))


def test_summaries_are_keyed_by_pairs_of_labels():
    x = np.array([[0.2, 0.3, 0.5], [0.5, 0.3, 0.2], [0.3, 0.4, 0.3], [0.1, 0.1, 0.8]])
    sums = OneVsOneCalibrator().summaries(x, ["a", "b", "c", "a"])
    assert list(sums) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert sums[("a", "c")].total_weight == 3.0
    assert sums[("a", "c")].positive_weight == 1.0


def test_bad_input():
    x = np.array([[0.2, 0.3, 0.5], [0.5, 0.3, 0.2], [0.3, 0.4, 0.3]])
    with pytest.raises(ValueError, match="coupling"):
        OneVsOneCalibrator(coupling="votes").fit(x, [0, 1, 2])
    with pytest.raises(ValueError, match=r"class\(es\) \[3\]"):
        OneVsOneCalibrator(classes=[0, 1, 2, 3]).fit(np.full((3, 4), 0.25), [0, 1, 2])
    with pytest.raises(ValueError, match="pair"):
        OneVsOneCalibrator(CrossVennAbersCalibrator()).fit(x, [0, 1, 2], folds=[0, 0, 1])
    with pytest.raises(ValueError, match="key is a pair"):
        OneVsOneCalibrator().fit_summary({"a": venncal.ScoreSummary.from_arrays([0.1], [1])})


@pytest.mark.parametrize("base", [venncal.BetaCalibrator(), PlattCalibrator(score="proba")],
                         ids=["beta", "platt-proba"])
def test_a_base_reading_probabilities_is_refused_in_the_calibrators_words(base):
    # the pair scores are log-ratios: a base expecting probabilities used to fail
    # inside itself, naming "probabilities" the user never gave (issue 22, F2)
    p = np.random.default_rng(1).dirichlet(np.ones(3), 60)
    y = np.random.default_rng(2).integers(0, 3, 60)
    with pytest.raises(ValueError, match=r"ln\(p_j / p_i\) / 2.*score='logit'"):
        OneVsOneCalibrator(base).fit(p, y)
    fitted = OneVsOneCalibrator(clone(base).set_params(score="logit")).fit(p, y)
    assert np.allclose(fitted.predict_proba(p).sum(axis=1), 1.0)
