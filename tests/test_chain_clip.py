"""``ChainedCalibrator(point="clip")``: the first stage's probability clipped into Venn-Abers' interval."""

from __future__ import annotations

import numpy as np
import pytest

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
    np.testing.assert_array_equal(got[:, 0], 1.0 - got[:, 1])
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
