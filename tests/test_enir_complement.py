"""ENIR's class-0 column keeps its relative precision (``complements_``; issue 22).

The averaged smoothed complement is compared with its exact rational value
(``reference/enir_naive.py``) on random, tied, constant and extreme inputs:
relative error at most ``RTOL = 1e-12`` (the float code adds non-negative
terms only: a few units of ``2**-53`` per model and per group sum).
"""

import base64
import io
import json
import zlib
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from reference.enir_naive import exact_complements

import venncal
from venncal.enir import ENIRCalibrator

RTOL = 1e-12
GOLDEN = Path(__file__).resolve().parent / "data" / "models"


def assert_exact(cal, s, y, w=None):
    """``complements_`` within RTOL (relative) of the exact value, and column 0 of predict_proba."""
    exact = exact_complements(cal, s, y, w)
    got = cal.complements_
    assert got.shape == cal.values_.shape
    for i, (c, e) in enumerate(zip(got.tolist(), exact, strict=True)):
        assert abs(Fraction(c) - e) <= RTOL * e, (i, c, float(e))
    assert (got > 0).all() and (got <= 1 - 2.0**-53).all()
    assert_array_equal(cal.predict_proba(cal.thresholds_)[:, 0], got)
    assert (np.abs(cal.values_ + got - 1) <= 1e-12).all()


def labelled(rng, n):
    s = np.round(rng.uniform(size=n), 2)  # ties
    y = (rng.uniform(size=n) < np.clip(s + 0.25 * np.sin(9 * s), 0.02, 0.98)).astype(int)
    return s, y


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("params", [{}, {"model": "best"}, {"bin_prior": "base_rate"},
                                    {"prior_strength": 0.25}])
def test_random_tied_data(seed, params):
    rng = np.random.default_rng(seed)
    s, y = labelled(rng, 120)
    w = rng.integers(0, 4, 120).astype(float) if seed % 2 else None
    assert_exact(ENIRCalibrator(**params).fit(s, y, sample_weight=w), s, y, w)


def test_real_weights_and_scores_outside_unit_interval():
    rng = np.random.default_rng(10)
    s, y = labelled(rng, 80)
    w = rng.uniform(0.01, 3.0, 80)
    assert_exact(ENIRCalibrator().fit(s, y, sample_weight=w), s, y, w)
    s = 10 * s - 3  # base-rate prior
    assert_exact(ENIRCalibrator().fit(s, y, sample_weight=w), s, y, w)


@pytest.mark.parametrize(
    ("scores", "y"),
    [
        ([0.5], [1]),
        ([0.5, 0.5, 0.5], [1, 0, 1]),  # one score
        ([0.1, 0.2, 0.3], [1, 1, 1]),  # one class
        ([0.1, 0.2, 0.3], [0, 0, 0]),
        ([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1]),  # separable
        ([0.4, 0.3, 0.2, 0.1], [0, 0, 1, 1]),  # reversed
    ],
)
def test_constant_and_one_class(scores, y):
    cal = ENIRCalibrator(classes=[0, 1]).fit(scores, y)
    assert_exact(cal, scores, y)


def test_regression_heavy_positive_score():
    # Weights 1e20:1 at a score: the complement is ~1.1e-20, which 1 - p (p clipped to
    # 1 - 2**-53) gave as 2**-53: a relative error of 1e4 (main before issue 22's fix).
    s = np.array([0.1, 0.5, 0.9, 0.9])
    y = np.array([0, 1, 1, 0])
    w = np.array([1.0, 1.0, 1e20, 1.0])
    cal = ENIRCalibrator().fit(s, y, sample_weight=w)
    p0 = cal.predict_proba([0.9, 2.0])[:, 0]
    assert (p0 < 1e-19).all() and (p0 > 1e-21).all()  # main: 2**-53 (1.1e-16)
    assert cal.predict_proba([0.9])[0, 1] == 1 - 2.0**-53  # p keeps its documented clip
    assert_exact(cal, s, y, w)


def test_score_prior_of_a_light_bin_after_heavy_ones():
    # The running sums of w * s lost a bin of weight 1 after 2e20 of weight: its prior
    # rate was noise (p was 0.5000005 instead of 0.95).  Now the bin's own sum.
    s = np.array([0.3, 0.5, 0.5, 0.9])
    y = np.array([0, 0, 1, 1])
    w = np.array([1.0, 1e20, 1e20, 1.0])
    cal = ENIRCalibrator().fit(s, y, sample_weight=w)
    light = ENIRCalibrator().fit(s, y, sample_weight=np.ones(4))
    assert cal.predict_proba([0.9])[0, 1] == pytest.approx(0.95, rel=1e-15)
    assert light.predict_proba([0.9])[0, 1] == pytest.approx(0.95, rel=1e-15)
    assert_exact(cal, s, y, w)


@pytest.mark.filterwarnings("ignore::venncal.WeightScaleWarning")
@pytest.mark.parametrize("scale", [1e-310, 1e-200, 1e200, 1e300])
def test_extreme_weight_scales(scale):
    rng = np.random.default_rng(12)
    s, y = labelled(rng, 60)
    w = scale * rng.integers(1, 4, 60)
    cal = ENIRCalibrator().fit(s, y, sample_weight=w)
    assert_exact(cal, s, y, w)


def test_scores_next_to_one():
    # p near 1 - 2**-53: scores at the largest doubles below 1, all positive there
    top = 1.0 - 2.0**-53
    s = np.array([0.2, 0.6, top - 2.0**-52, top, top])
    y = np.array([0, 1, 1, 1, 1])
    for w in (None, np.array([1.0, 1.0, 1e15, 1e16, 1e16])):
        cal = ENIRCalibrator().fit(s, y, sample_weight=w)
        assert_exact(cal, s, y, w)
    assert cal.complements_[-1] < 1e-16


# (hypothesis over edge weights, both tables against exact: test_enir_precision.py)


# ------------------------------------------------------------ saved models


def test_saved_model_keeps_complements(tmp_path):
    s = np.array([0.1, 0.5, 0.9, 0.9])
    y = np.array([0, 1, 1, 0])
    cal = ENIRCalibrator().fit(s, y, sample_weight=np.array([1.0, 1.0, 1e20, 1.0]))
    venncal.save(cal, tmp_path / "m.json")
    back = venncal.load(tmp_path / "m.json")
    assert back.complements_.tobytes() == cal.complements_.tobytes()
    q = np.linspace(-1, 2, 50)
    assert back.predict_proba(q).tobytes() == cal.predict_proba(q).tobytes()


@pytest.mark.parametrize("name", ["enir", "enir-big", "enir-best"])
@pytest.mark.parametrize("version", [1, 2])
def test_old_models_predict_as_before(name, version):
    path = GOLDEN / f"{name}.v{version}.json"
    assert "complements_" not in json.loads(path.read_text("utf-8"))["state"]
    model = venncal.load(path)
    assert_array_equal(model.complements_, 1.0 - model.values_)
    q = np.concatenate([model.thresholds_, np.linspace(-1, 2, 101)])
    p = model.predict_proba(q)
    assert_array_equal(p[:, 0], 1.0 - p[:, 1])
    out = io.StringIO()  # saved again without it: the file as it was
    venncal.persist.save(model, out, format_version=version)
    assert "complements_" not in json.loads(out.getvalue())["state"]


def _resaved(cal, change):
    """The model's version-2 file with ``change`` applied to its ``complements_`` array."""
    out = io.StringIO()
    venncal.persist.save(cal, out, format_version=2)
    doc = json.loads(out.getvalue())
    item = doc["state"]["complements_"]
    if item["encoding"] == "base64":
        raw = base64.b64decode(item["data"])
        if item.pop("compression", None) == "zlib":
            raw = zlib.decompress(raw)
        arr = np.frombuffer(raw, "<f8").tolist()
    else:
        arr = list(item["data"])
    # (where values_ <= 1/2, complements_ is 1 - values_; fit keeps the other entries)
    arr = change(arr, int(np.flatnonzero(cal.complements_ != 1.0 - cal.values_)[0]))
    item.update(shape=[len(arr)], encoding="base64",
                data=base64.b64encode(np.array(arr, "<f8").tobytes()).decode("ascii"))
    return io.StringIO(json.dumps(doc))


def _put(v):
    """Put ``v`` at the first threshold where ``complements_`` is not ``1 - values_``."""
    return lambda a, i: a[:i] + [v] + a[i + 1:]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_put(0.5), "sum to 1"),
        (lambda a, i: a[:-1], "length"),
        (_put(0.0), "positive"),
        (_put(-1e-30), r"\[0, 1\]"),
        (_put(2.0), r"\[0, 1\]"),
    ],
)
def test_corrupted_complements_are_refused(change, message):
    rng = np.random.default_rng(13)
    s, y = labelled(rng, 100)
    cal = ENIRCalibrator().fit(s, y)
    i = int(np.flatnonzero(cal.complements_ != 1.0 - cal.values_)[0])  # (saved, then)
    assert abs(cal.values_[i] - 0.5) > 0.01  # 0.5 is a corruption
    with pytest.raises(ValueError, match=message):
        venncal.load(_resaved(cal, change))
