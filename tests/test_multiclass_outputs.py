"""The table columns of a multiclass calibrator (the CLI's and the engines' one scorer)."""

import numpy as np
import pytest

from venncal import (
    CrossVennAbersCalibrator,
    OneVsOneCalibrator,
    OneVsRestCalibrator,
    PlattCalibrator,
    VennAbersCalibrator,
    _engine,
)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(300, 3))
    y = np.array([5, 7, 9])[rng.integers(0, 3, 300)]
    return z, y


def test_names_and_values_of_one_vs_rest(data):
    z, y = data
    cal = OneVsRestCalibrator(VennAbersCalibrator(), score="logit").fit(z, y)
    assert _engine.output_names(cal, "q") == ("q_5", "q_7", "q_9")
    names = _engine.output_names(cal, ("p", "lo", "hi"))
    assert names == ("p_5", "p_7", "p_9", "lo_5", "hi_5", "lo_7", "hi_7", "lo_9", "hi_9")
    cols, missing = _engine.score_rows(cal, z, len(names), "error")
    assert missing is None
    np.testing.assert_array_equal(np.column_stack(cols[:3]), cal.predict_proba(z))
    interval = cal.predict_interval(z)
    np.testing.assert_array_equal(np.column_stack(cols[3::2]), interval[:, :, 0])
    np.testing.assert_array_equal(np.column_stack(cols[4::2]), interval[:, :, 1])


def test_one_vs_one_names_each_pair_and_platt_has_no_interval(data):
    z, y = data
    cal = OneVsOneCalibrator(VennAbersCalibrator(), score="logit").fit(z, y.astype(str))
    names = _engine.output_names(cal, ("p", "p0", "p1"))
    assert names[3:5] == ("p0_7_vs_5", "p1_7_vs_5") and len(names) == 3 + 2 * 3
    cols, _ = _engine.score_rows(cal, z, len(names), "error")
    np.testing.assert_array_equal(cols[3], cal.predict_interval(z)[:, 0, 0])
    platt = OneVsRestCalibrator(PlattCalibrator(), score="logit").fit(z, y)
    assert _engine.output_names(platt, ("p", "p0", "p1")) == ("p_5", "p_7", "p_9")


def test_missing_scores_propagate_per_row(data):
    z, y = data
    cal = OneVsRestCalibrator(VennAbersCalibrator(), score="logit").fit(z, y)
    z = z[:5].copy()
    z[1, 2] = np.nan
    cols, missing = _engine.score_rows(cal, z, 3, "propagate")
    assert missing.tolist() == [False, True, False, False, False]
    assert np.isnan(cols[0][1]) and not np.isnan(cols[0][[0, 2, 3, 4]]).any()
    np.testing.assert_array_equal(cols[1][[0, 2]], cal.predict_proba(z[[0, 2]])[:, 1])


def test_cvap_takes_folds_times_classes_columns(data):
    z, y = data
    folds = np.arange(len(y)) % 2
    cal = OneVsRestCalibrator(CrossVennAbersCalibrator(), score="logit").fit(z, y, folds=folds)
    wide = np.hstack([z, z + 0.1])
    cols, _ = _engine.score_rows(cal, wide, 3, "error")
    blocks = wide.reshape(len(y), 2, 3)
    np.testing.assert_array_equal(np.column_stack(cols), cal.predict_proba(blocks))
    with pytest.raises(ValueError, match=r"takes 3 or 6 \(2 folds x 3 classes\) score columns"):
        _engine.score_columns(cal, z[:, :2], 3)


def test_bad_prefixes(data):
    z, y = data
    cal = OneVsRestCalibrator(VennAbersCalibrator(), score="logit").fit(z, y)
    with pytest.raises(ValueError, match="one prefix"):
        _engine.output_names(cal, ("p", "p0"))
