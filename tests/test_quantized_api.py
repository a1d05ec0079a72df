"""The online vocabulary of the quantized streams, probabilities, and streams pickled before.

One vocabulary for weights in the online API: ``sample_weight`` in
``learn_one``, ``insert``, ``delete`` and ``learn_many``; ``weight=`` still
works for one release, with a DeprecationWarning.
"""

from __future__ import annotations

import base64
import pickle
import re
import zlib

import numpy as np
import pytest

from venncal.online.quantized import OrderedQuantizedIsotonic, QuantizedIsotonic

STREAMS = [QuantizedIsotonic, OrderedQuantizedIsotonic]


@pytest.mark.parametrize("cls", STREAMS)
def test_sample_weight_everywhere_and_weight_deprecated(cls):
    a, b, c = cls(5), cls(5), cls(5)
    a.learn_one(0.1, 0, sample_weight=2.0)
    a.insert(0.3, 1, sample_weight=0.5)
    a.learn_many([0.5, 0.7], [1, 1], sample_weight=[1.0, 3.0])
    with pytest.warns(DeprecationWarning, match=r"learn_one\(weight=...\) is deprecated"):
        b.learn_one(0.1, 0, weight=2.0)
    with pytest.warns(DeprecationWarning, match=r"insert\(weight=...\) is deprecated"):
        b.insert(0.3, 1, weight=0.5)
    b.learn_many([0.5, 0.7], [1, 1], [1.0, 3.0])
    for row in [(0.1, 0, 2.0), (0.3, 1, 0.5), (0.5, 1, 1.0), (0.7, 1, 3.0)]:
        c.learn_one(*row)  # positional, as before
    for other in (b, c):
        for key, v in a.groups().items():
            np.testing.assert_array_equal(v, other.groups()[key])
    assert a.learn_one(0.9, 1) is None  # River style
    with pytest.raises(ValueError, match="sample_weight must be"):
        a.learn_one(0.95, 1, sample_weight=-1.0)
    with pytest.raises(ValueError, match="sample_weight"):
        a.insert(0.95, 1, sample_weight=np.nan)


def test_delete_takes_sample_weight_and_weight_deprecated():
    model = QuantizedIsotonic(5)
    model.learn_many([0.1, 0.2, 0.2], [0, 1, 1], sample_weight=[1.0, 0.25, 0.5])
    model.delete(0.2, 1, sample_weight=0.25)
    with pytest.warns(DeprecationWarning, match=r"delete\(weight=...\) is deprecated"):
        model.delete(0.2, 1, weight=0.5)
    assert model.n_distinct == 1
    with pytest.raises(ValueError, match=r"sample_weight=1.0\): less weight of \(score, y\) is held"):
        model.delete(0.2, 1)


@pytest.mark.parametrize("cls", STREAMS)
def test_predict_proba_for_label_streams(cls):
    model = cls(5)
    with pytest.raises(ValueError, match="no observations"):
        model.predict_proba_one(0.5)
    model.learn_many([0.1, 0.2, 0.5, 0.7], [0, 1, 1, 1])
    p = model.predict([0.0, 0.15, 0.6, 1.0])
    np.testing.assert_array_equal(model.predict_proba_many([0.0, 0.15, 0.6, 1.0]),
                                  np.column_stack((1 - p, p)))
    assert model.predict_proba_one(0.15) == {0: 1 - p[1], 1: p[1]}
    assert list(model.classes_) == [0, 1]
    assert sum(model.predict_proba_one(0.6).values()) == 1.0


@pytest.mark.parametrize("cls", STREAMS)
def test_predict_proba_refuses_other_targets_and_levels(cls):
    model = cls(5)
    model.learn_many([0.1, 0.2], [0, 0.5])
    with pytest.raises(ValueError, match="targets 0 and 1"):
        model.predict_proba_one(0.1)
    with pytest.raises(ValueError, match="targets 0 and 1"):
        model.predict_proba_many([0.1])
    assert model.predict_one(0.2) in model.levels_  # predictions of the level still work
    wide = cls([-1.0, 2.0])
    wide.learn_one(0.1, 1)
    with pytest.raises(ValueError, match=r"levels in \[0, 1\]"):
        wide.predict_proba_one(0.1)


def test_predict_proba_after_the_other_targets_are_deleted():
    model = QuantizedIsotonic(5)
    model.learn_many([0.1, 0.2], [0, 0.5])
    model.delete(0.2, 0.5)
    model.insert(0.3, 1)
    assert model.predict_proba_one(0.3) == {0: 0.0, 1: 1.0}


# Streams pickled by venncal before the exact weights (2c914e0): a tree of groups
# holding targets 0, 1/2, 1; a dense tree with a window of 4; an ordered stream.
OLD_PICKLES = (
    "eNrtnM2P20QUwCeJk412+QioonvYQ8SXFlRFhSyoByRbCVIphgB7QBxAJh+ztUXqBNtptUioy2FLI82twwFOXPkTuFXitBJISEgIJA6LKBWoFcp/ABPPjLPjjPeDdqkq3u+wL2O/efPh2Xjynp+3jM9+b6CY9+gqWb6Ifb/b7tcGft/zce3DUduPvI9wj5JH3pKfz4WDaOB7XXqNPvMJ/ZhVK/XxRdwPqV0kC/yjQ8lj/ujCcLPmdAcBrl0Y9SOvHQTtTUoecALcHfhhFIy6ETNCirEmJQt+j6tcozbaps1ch35K1+mqnbOL29RdIsVetDnE0yr5jTN0fJWfLZDcS7TVar36NyP+Y6OIdsbNVaTwvcnlrpB/CDkxKVMnC0447HtRSN1F98Fp++7DsnWDFU6Om1Wuf13U+0nIG0Le5nZKThjhYUhbpHTJ83uDS+zTorMRtLuRx0Z9oPmqlSWn5g+qPRGdKYtaJ4RciWtfoax7PeyHmI7ZgDuj7gc4onaVPMQG3w5CnByyiOEMOrre5uz8lbjFyhefT9lJplXfvxzvX3mvFutH0Qk8/7zGPrIL3D6Kp3Mp1mNz2o6wRjvPCidI3tuzHNxl3WKooBSx9aITBRjT1XnDW7YRd6OBWE0+0q9NdY5npGdCXXDI4ud/Tl0bZMnyd99OuZ2yL2XFQgAAAAAAAAAAAAAAHDt6z8YWK6yPG8hAKCcUpcynygAA/O++IISrtIHKUnHed6iSnLcyjgMAAAAAcN9vEUoizNi8nr7fy5ijGnucBbFlzFGNPc5iijLmqMYeZ7FFGXNUY493fXzxb6TmaZT6YVQQ0jiStTy3lsRyjX21Da5dTWsb/6qtu6mditlf1l/ryeVDrpl7ds2Pd80ctEYOZe31d/mlaew+mr36CvD1BAAAAAAAAAAAAAAAANwHTD1gER113ALPzHJL9pK7MO9hW+L+x3dkPdX/uGOu1af8kPIj7orjv5nnN6bcFOf/NNP5K7EnbmW+3UXe7pu83ldmbK7+TeLb5nZ/FPZ+EfZ/FeUbSeIWr3fLjNU3/uLtPdFyn7QN96nsZnn1NUuVFUt//GA9vftSbS2dkCXLK6L8uJBPC/mspeo/J2RdJHC59avuml11X7At90Vd9hR/5MA9p+0b2k5OMrWXNZ5pmX31fl2sAXWFTcSc35zzLatxiHmfc/p4PHl2tidd+moVH//bmkwtS3S5gUrpTKxZa+poZk9TZI0mq9f7Z2oBAAAA93IHpL/trWfeE/e/Zd5ZFFkf6U1H7bMivXl7kd+Nvzye2XpNbC5eEVLmmltCnhHyeSFPCSkjzstJOTsqfnIuKl4+knbFSna1ObL8RtDDAe5lv4yAbXmLui1vkRs/0jsBdFvYo7wLgG1JSd45S+/8sY9JKpV8J3O7pY5n1/wv/uFIwTnbpId/+MM4jE3DiQZDahdI2Rliv6d/WYC8GlnbuL1Xc9TBtX8ACYW/sw=="
)


def test_streams_pickled_before_the_exact_weights_load_and_go_on():
    old = pickle.loads(zlib.decompress(base64.b64decode(OLD_PICKLES)))
    expected = [([0.1, 0.2, 0.4, 0.9], [0.0, 0.5, 0.75, 1.0]),
                ([0.2, 0.3, 0.7, 0.9], [0.5, 0.5, 1.0, 1.0]),
                ([0.1, 0.2, 0.5, 0.7], [0.0, 0.5, 1.0, 1.0])]
    for model, (t, v) in zip(old, expected, strict=True):
        assert model.thresholds_.tolist() == t
        assert model.values_.tolist() == v
    groups, window, ordered = old
    fresh = QuantizedIsotonic(5)
    fresh.learn_many([0.1, 0.4, 0.2, 0.9, 0.4], [0, 1, 0.5, 1, 0], [1, 2, 0.5, 1, 1])
    groups.delete(0.4, 1, 2.0)
    fresh.delete(0.4, 1, 2.0)
    np.testing.assert_array_equal(groups.values_, fresh.values_)
    window.learn_many([0.5, 0.6], [0, 0])  # the ring came along: the window goes on
    again = QuantizedIsotonic(11, window=4)
    again.learn_many([0.1, 0.4, 0.2, 0.9, 0.3, 0.7, 0.5, 0.6], [0, 1, 1, 1, 0, 1, 0, 0])
    np.testing.assert_array_equal(window.thresholds_, again.thresholds_)
    np.testing.assert_array_equal(window.values_, again.values_)
    ordered.learn_one(0.8, 0)
    check = OrderedQuantizedIsotonic(5)
    check.learn_many([0.1, 0.2, 0.2, 0.5, 0.7, 0.8], [0, 1, 0, 1, 1, 0])
    np.testing.assert_array_equal(ordered.values_, check.values_)
    for model in old:
        back = pickle.loads(pickle.dumps(model))
        np.testing.assert_array_equal(back.values_, model.values_)


def test_a_window_past_numpys_largest_array_is_a_clear_error():
    """The window's ring is allocated when the object is made: a window no array can hold
    (2**70) is refused naming window and the size, not numpy's 'Maximum allowed dimension
    exceeded' (attack 12)."""
    from venncal.online import QuantizedIsotonic

    with pytest.raises(MemoryError, match=r"window=1180591620717411303424 needs a ring"):
        QuantizedIsotonic(window=2**70)


@pytest.mark.parametrize("w", [2**54, 2**999, 10**400, -(10**400), 2**53 + 1])
def test_learn_one_takes_a_whole_number_weight_as_learn_many_does(w):
    # attack 38 F6: learn_one refused 2**54 ("must be a finite non-negative number") that
    # learn_many takes, and raised a bare OverflowError for 10**400
    one, many = QuantizedIsotonic(levels=5), QuantizedIsotonic(levels=5)
    try:
        many.learn_many([0.5], [1], [w])
    except ValueError as exc:
        with pytest.raises(ValueError, match=re.escape(str(exc)[:40])):
            one.learn_one(0.5, 1, w)
        assert one.n_distinct == 0
        return
    one.learn_one(0.5, 1, w)
    assert one.groups()["weight"].tolist() == many.groups()["weight"].tolist() == [float(w)]
