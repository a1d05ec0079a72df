"""One contract test over every online object of venncal, in the pattern of River's checks.

Every class in :data:`ONLINE_OBJECTS` declares the parameters to test it with
(``_unit_test_params``, River's hook) and a stream it accepts
(``_unit_test_stream``); each generic check below then runs on every
(object, parameters) pair.  An online calibrator joins by one line in
:data:`ONLINE_OBJECTS` once it follows
:class:`venncal.online._base.OnlineCalibrator`: ``learn_one(x, y,
sample_weight=1.0)`` returning None, ``learn_many(x, y, sample_weight=None)``,
``predict_proba_one(x) -> {class: p}``, ``predict_proba_many(x) -> (n, 2)``,
``reset()``, ``clone()``, ``get_params()``, a ``__repr__`` of its parameters.

The stream of ``_unit_test_stream`` has ``N + TAIL`` steps: the checks learn
from its first ``N`` (or a prefix) and compare two objects by their
predictions now and after both learn its last ``TAIL`` steps, so a stream
whose scores must arrive in order stays in order.  An object that cannot
predict before its first observation may raise ``ValueError`` there; two
fresh objects then agree by raising the same error.
"""

from __future__ import annotations

import copy
import inspect
import pickle

import numpy as np
import pytest

from venncal.online import (
    JumperMartingale,
    JumperPredictor,
    MeanJumper,
    OrderedQuantizedIsotonic,
    QuantizedIsotonic,
)
from venncal.online._base import OnlineCalibrator

#: The online objects under the contract (the quantized isotonic streams join here).
ONLINE_OBJECTS = [JumperMartingale, JumperPredictor, MeanJumper, QuantizedIsotonic,
                  OrderedQuantizedIsotonic]

N = 240  # steps of the test stream
TAIL = 20  # and the steps after it, to compare two objects by how they continue
CUT = 97  # where a stream is split (mid-stream)
PROBE = np.r_[np.linspace(0.0, 1.0, 11), 1e-310, 1 - 2.0**-53]


def _cases():
    for cls in ONLINE_OBJECTS:
        for i, params in enumerate(cls._unit_test_params()):
            yield pytest.param(cls, params, id=f"{cls.__name__}-{i}")


def coded(params, y01):
    """The labels of the stream in the object's coding (``classes`` if it has one)."""
    classes = params.get("classes")
    return y01 if classes is None else np.asarray(classes)[y01]


def stream(cls, params, seed=0, tail=False):
    """The first ``N`` steps of the object's test stream (its last ``TAIL`` with ``tail``)."""
    x, y01 = cls._unit_test_stream(N + TAIL, seed)
    x, y = x, coded(params, y01)
    return (x[N:], y[N:]) if tail else (x[:N], y[:N])


def probe_rows(obj):
    return obj.predict_proba_many(PROBE)


def predictions(obj):
    """The probe's rows, or the error of an object that cannot predict yet."""
    try:
        return probe_rows(obj)
    except ValueError as exc:
        return f"{type(exc).__name__}: {exc}"


def assert_same_predictions(a, b):
    pa, pb = predictions(a), predictions(b)
    if isinstance(pa, str) or isinstance(pb, str):
        assert pa == pb
    else:
        np.testing.assert_array_equal(pa, pb)


def assert_same_state(a, b, cls, params):
    """``a`` and ``b`` predict alike now and after learning the same further steps (on copies)."""
    assert_same_predictions(a, b)
    a, b = copy.deepcopy(a), copy.deepcopy(b)
    x, y = stream(cls, params, tail=True)
    a.learn_many(x, y)
    b.learn_many(x, y)
    np.testing.assert_array_equal(probe_rows(a), probe_rows(b))


pytestmark = pytest.mark.parametrize(("cls", "params"), list(_cases()))


def test_follows_the_base(cls, params):
    assert issubclass(cls, OnlineCalibrator)
    obj = cls(**params)
    names = [n for n in inspect.signature(cls.__init__).parameters if n != "self"]
    assert list(obj.get_params()) == names
    for name, value in params.items():
        assert obj.get_params()[name] is value
    assert repr(obj).startswith(f"{cls.__name__}(") and repr(obj) == repr(cls(**params))
    signature = inspect.signature(obj.learn_one).parameters
    assert signature["sample_weight"].default == 1.0
    assert inspect.signature(obj.learn_many).parameters["sample_weight"].default is None


def test_learn_many_equals_learn_one_repeated(cls, params):
    x, y = stream(cls, params)
    one, many = cls(**params), cls(**params)
    for xi, yi in zip(x.tolist(), y.tolist(), strict=True):
        assert one.learn_one(xi, yi) is None
    for a, b in [(0, 1), (1, CUT), (CUT, CUT + 1), (CUT + 1, N)]:
        assert many.learn_many(x[a:b], y[a:b]) is None
    assert_same_state(one, many, cls, params)


def test_zero_weights_drop_rows_and_unit_weights_change_nothing(cls, params):
    x, y = stream(cls, params)
    w = (np.arange(N) % 5 != 2).astype(float)
    weighted, kept, ones, one_by_one = (cls(**params) for _ in range(4))
    weighted.learn_many(x, y, sample_weight=w)
    kept.learn_many(x[w > 0], y[w > 0])
    ones.learn_many(x, y, sample_weight=np.ones(N))
    for xi, yi, wi in zip(x.tolist(), y.tolist(), w.tolist(), strict=True):
        one_by_one.learn_one(xi, yi, sample_weight=wi)
    assert_same_state(weighted, kept, cls, params)
    assert_same_state(one_by_one, kept, cls, params)
    plain = cls(**params)
    plain.learn_many(x, y)
    assert_same_state(ones, plain, cls, params)


def test_predict_proba_many_equals_predict_proba_one_and_learns_nothing(cls, params):
    x, y = stream(cls, params)
    obj = cls(**params)
    obj.learn_many(x[:CUT], y[:CUT])
    before = copy.deepcopy(obj)
    rows = probe_rows(obj)
    assert rows.shape == (PROBE.shape[0], 2)
    keys = list(obj.classes_) if obj.classes_ is not None else [0, 1]
    for xi, row in zip(PROBE.tolist(), rows, strict=True):
        proba = obj.predict_proba_one(xi)
        assert list(proba) == keys
        assert [proba[k] for k in keys] == row.tolist()
    assert_same_state(obj, before, cls, params)  # (a cache of the prediction may be kept)


def test_probabilities_lie_in_0_1_and_sum_to_1(cls, params):
    x, y = stream(cls, params)
    obj = cls(**params)
    for a in range(0, N, 60):
        obj.learn_many(x[a : a + 60], y[a : a + 60])
        rows = probe_rows(obj)
        assert ((rows >= 0.0) & (rows <= 1.0)).all()
        assert np.abs(rows.sum(axis=1) - 1.0).max() <= 2.0**-52


def test_pickle_and_deepcopy_mid_stream_resume_exactly(cls, params):
    x, y = stream(cls, params)
    whole = cls(**params)
    whole.learn_many(x, y)
    obj = cls(**params)
    obj.learn_many(x[:CUT], y[:CUT])
    obj.learn_one(x[CUT], y[CUT])
    for resumed in (pickle.loads(pickle.dumps(obj)), copy.deepcopy(obj)):
        resumed.learn_many(x[CUT + 1 :], y[CUT + 1 :])
        assert_same_state(resumed, whole, cls, params)


def test_reset_gives_a_fresh_object(cls, params):
    x, y = stream(cls, params)
    obj = cls(**params)
    obj.learn_many(x[:CUT], y[:CUT])
    obj.reset()
    fresh = cls(**params)
    assert_same_predictions(obj, fresh)
    obj.learn_many(x, y)
    fresh.learn_many(x, y)
    assert_same_state(obj, fresh, cls, params)


def test_clone_has_the_parameters_and_no_state(cls, params):
    x, y = stream(cls, params)
    obj = cls(**params)
    obj.learn_many(x[:CUT], y[:CUT])
    twin = obj.clone()
    assert type(twin) is cls and twin is not obj
    assert twin.get_params() == obj.get_params()
    assert repr(twin) == repr(obj)
    assert_same_state(twin, cls(**params), cls, params)


def test_any_label_coding(cls, params):
    if "classes" not in inspect.signature(cls.__init__).parameters:
        pytest.skip(f"{cls.__name__} takes no classes")
    x, y01 = cls._unit_test_stream(N, 0)
    base = {k: v for k, v in params.items() if k != "classes"}
    reference = None
    for classes in [(0, 1), (False, True), ("no", "yes"), (-1, 1), (1.5, 2.5), ("b", "a")]:
        obj = cls(**base, classes=classes)
        labels = np.asarray(classes)[y01]
        obj.learn_many(x[:CUT], labels[:CUT])
        for xi, yi in zip(x[CUT:].tolist(), labels[CUT:].tolist(), strict=True):
            obj.learn_one(xi, yi)
        rows = probe_rows(obj)
        reference = rows if reference is None else reference
        np.testing.assert_array_equal(rows, reference)
        assert list(obj.predict_proba_one(0.5)) == list(classes)


def test_bad_input_raises_and_changes_nothing(cls, params):
    x, y = stream(cls, params)
    obj = cls(**params)
    obj.learn_many(x[:CUT], y[:CUT])
    untouched = copy.deepcopy(obj)
    x0, y0 = float(x[0]), y[0]
    unknown = "maybe" if not isinstance(y0, str) else 12345
    bad_calls = [
        lambda: obj.learn_one(float("nan"), y0),
        lambda: obj.learn_one(float("inf"), y0),
        lambda: obj.learn_one(x0, unknown),
        lambda: obj.learn_one(x0, y0, sample_weight=-1.0),
        lambda: obj.learn_one(x0, y0, sample_weight=float("nan")),
        lambda: obj.learn_many([x0, float("nan")], [y0, y0]),
        lambda: obj.learn_many([x0, x0], [y0]),
        lambda: obj.learn_many([x0, x0], [y0, unknown]),
        lambda: obj.learn_many([x0, x0], [y0, y0], sample_weight=[1.0, -1.0]),
        lambda: obj.learn_many([x0, x0], [y0, y0], sample_weight=[1.0]),
        lambda: obj.learn_many([[x0, x0]], [y0]),
        lambda: obj.predict_proba_one(float("nan")),
        lambda: obj.predict_proba_many([x0, float("nan")]),
    ]
    for call in bad_calls:
        with pytest.raises((ValueError, TypeError)):
            call()
    assert_same_state(obj, untouched, cls, params)
