"""Single calls of the online objects (queued steps) equal the batch path bit for bit.

``learn_one``/``insert`` queue their step and the queue is applied before
anything reads the state; these tests interleave single calls, predictions,
deletes, pickling and reads of every public attribute, and compare each value
with an object fed the same steps through ``learn_many`` (and, at the end,
with one ``learn_many``/``run`` of the whole stream).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from venncal.online import (
    JumperMartingale,
    JumperPredictor,
    MeanJumper,
    QuantizedIsotonic,
    cox,
    cox2,
    cubic,
    quadratic,
)

EDGE_P = [0.0, 1.0, 1e-310, 5e-324, 1.0 - 2.0**-53, 0.5, 0.1, 0.9, 0.25]
p_values = st.one_of(st.sampled_from(EDGE_P), st.floats(0.0, 1.0))


def _same(a, b) -> None:
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def _jumper_state(m) -> tuple:
    return (m.n_seen_, m.log10_value, m.rate_log10_values.tolist(), m.weights_.tolist(),
            m.alarm(0.5), m.alarm(0.01), str(m.value), None if m.classes_ is None
            else m.classes_.tolist())


JUMPERS = [
    lambda: JumperMartingale(),
    lambda: JumperPredictor(cubic(), jump_rate=0.05, clip=(0.1, 0.9)),
    lambda: MeanJumper(quadratic([-1.0, 0.0, 0.5]), classes=("no", "yes")),
    lambda: JumperMartingale(cox([0.5, 1.0, 2.0]), jump_rate=0.2),
    # unions of the paper's families are queued too (issue 26, deliverable 5)
    lambda: JumperPredictor(quadratic() + cubic() + cox(), jump_rate=0.02),
    lambda: MeanJumper(quadratic([-0.5, 0.5]) + cox2([(0.5, 1.0)]), classes=("no", "yes")),
    # forgetting, through the compiled single calls and through the union's queue
    lambda: JumperMartingale(cubic(), jump_rate=0.05, half_life=5.0),
    lambda: MeanJumper(quadratic() + cox(), jump_rates=(1.0, 0.01), half_life=30.0),
]

events = st.lists(
    st.tuples(st.sampled_from(["learn", "learn", "learn", "predict", "read", "pickle"]),
              p_values, st.booleans()),
    max_size=60,
)


@pytest.mark.parametrize("make", JUMPERS)
@given(ops=events)
def test_jumper_single_calls_equal_batch(make, ops):
    fast, ref = make(), make()
    labels = (False, True) if make().classes is None else ("no", "yes")
    steps_p, steps_y = [], []
    for op, p, positive in ops:
        y = labels[positive]
        if op == "learn":
            try:
                ref.learn_many([p], [y])
            except ValueError:
                with pytest.raises(ValueError):
                    fast.learn_one(p, y)
                continue
            fast.learn_one(p, y)
            steps_p.append(p)
            steps_y.append(y)
        elif op == "predict":
            row = ref.predict_proba_many([p])[0]
            got = fast.predict_proba_one(p)
            assert list(got.values()) == [float(row[0]), float(row[1])]
        elif op == "read":
            assert _jumper_state(fast) == _jumper_state(ref)
        else:
            fast = pickle.loads(pickle.dumps(fast))
    assert _jumper_state(fast) == _jumper_state(ref)
    if steps_p:  # one run of the whole stream: the same values and records
        whole = make()
        res = whole.run(np.array(steps_p), np.array(steps_y))
        assert _jumper_state(whole) == _jumper_state(fast)
        assert res.log10_final == fast.log10_value


def test_jumper_queue_boundaries_and_records():
    """More steps than the queue holds, a growing martingale (records at every step), then reads."""
    rng = np.random.default_rng(3)
    p = np.full(2000, 0.2)
    y = rng.random(2000) < 0.5
    fast, whole = JumperMartingale(), JumperMartingale()
    res = whole.run(p, y)
    for a, b in zip(p.tolist(), y.tolist()):
        fast.learn_one(a, b)
    assert fast.log10_value == res.log10_final
    assert fast.alarm(0.01) == res.alarm(0.01) == whole.alarm(0.01)
    assert _jumper_state(fast) == _jumper_state(whole)


def test_jumper_fast_path_keeps_errors():
    mart = JumperMartingale(classes=[0, 1])
    mart.learn_one(0.3, 1)
    with pytest.raises(ValueError, match="step 2"):
        mart.learn_one(0.0, 1)
    with pytest.raises(ValueError):
        mart.learn_one(float("nan"), 1)
    with pytest.raises(ValueError):
        mart.learn_one(0.3, 7)
    with pytest.raises(ValueError):
        mart.predict_proba_one(1.5)
    assert mart.n_seen_ == 1
    mart.learn_one(0.3, 1, sample_weight=0)
    assert mart.n_seen_ == 1


@pytest.mark.parametrize("cls", [JumperMartingale, JumperPredictor, MeanJumper])
@pytest.mark.parametrize("weight", [None, "1", "0", "abc", b"1"])
def test_jumper_learn_one_refuses_a_weight_that_is_no_number(cls, weight):
    """None read as NaN ("must be finite"), "1" as 1 (accepted); both are no weight 0 or 1."""
    obj = cls()
    obj.learn_one(0.3, 1)
    with pytest.raises(ValueError, match=r"must be 0 \(drop the row\) or 1 .*got " + repr(weight)[:2]):
        obj.learn_one(0.4, 0, sample_weight=weight)
    assert obj.n_seen_ == 1
    obj.learn_one(0.4, 0, sample_weight=np.True_)  # attack 46 F5: refused by the check above
    obj.learn_one(0.4, 0, sample_weight=np.float32(0.0))
    assert obj.n_seen_ == 2


# -- the quantized stream ------------------------------------------------------------

scores = st.one_of(st.sampled_from([0.0, 0.5, 1e-310, 1e308, -1e308, 0.1, 0.3]),
                   st.floats(-5, 5, allow_nan=False, allow_infinity=False),
                   st.integers(-3, 3))
weights = st.one_of(st.just(1.0), st.sampled_from([2.0, 3, 2.0**52, 0.5, 1e-300, 0.0]))
q_events = st.lists(
    st.tuples(st.sampled_from(["insert", "insert", "insert", "delete", "predict", "read",
                               "pickle"]),
              scores, st.sampled_from([0, 1, 1.0, 0.0, True, 0.5]), weights),
    max_size=60,
)


def _quantized_state(m) -> tuple:
    g = m.groups()
    return (m.n_distinct, m.n_groups, m.thresholds_.tolist(), m.values_.tolist(),
            {k: v.tolist() for k, v in g.items()},
            m.predict([-1.0, 0.2, 0.5, 3.0]).tolist() if m.n_distinct else None)


@pytest.mark.parametrize("levels", [101, 5, 1001])
@given(ops=q_events)
def test_quantized_single_calls_equal_batch(levels, ops):
    fast, ref = QuantizedIsotonic(levels), QuantizedIsotonic(levels)
    for op, s, y, w in ops:
        if op == "insert":
            if w != 0:  # (learn_many refuses weights that sum to 0; insert does nothing)
                ref.learn_many([s], [y], [w])
            fast.insert(s, y, w) if w != 1.0 else fast.learn_one(s, y)
        elif op == "delete":
            try:
                ref.delete(s, y, w)
            except ValueError:
                with pytest.raises(ValueError):
                    fast.delete(s, y, w)
                continue
            fast.delete(s, y, w)
        elif op == "predict":
            try:
                want = ref.predict_proba_one(s)
            except ValueError:
                with pytest.raises(ValueError):
                    fast.predict_proba_one(s)
                continue
            assert fast.predict_proba_one(s) == want
            assert fast.predict_one(s) == ref.predict_one(s)
        elif op == "read":
            assert _quantized_state(fast) == _quantized_state(ref)
        else:
            fast = pickle.loads(pickle.dumps(fast))
    assert _quantized_state(fast) == _quantized_state(ref)


def test_quantized_queue_growth_equals_learn_many():
    """Thousands of single inserts (the tree grows mid-queue) and deletes equal learn_many."""
    rng = np.random.default_rng(7)
    s = np.round(rng.random(5000), 3)
    y = (rng.random(5000) < s).astype(float)
    fast, whole = QuantizedIsotonic(), QuantizedIsotonic()
    whole.learn_many(s, y)
    for a, b in zip(s.tolist(), y.tolist()):
        fast.insert(a, b)
    assert _quantized_state(fast) == _quantized_state(whole)
    for a, b in zip(s[:100].tolist(), y[:100].tolist()):
        fast.delete(a, b)
        whole.delete(a, b)
        assert fast.predict_proba_one(a) == whole.predict_proba_one(a)
    assert _quantized_state(fast) == _quantized_state(whole)
    assert pickle.dumps(fast) == pickle.dumps(whole)


def test_quantized_queue_labels_are_reset_and_weights_counted(monkeypatch):
    """The queue's label row is 0.0 after each flush (learn_one writes only a 1), and the weight
    bound counts what is queued: labels 1 then 0 in the same slots, learn_many after learn_one,
    and whole weights queued up to the bound (then the tree of groups) all equal learn_many."""
    import venncal.online._quantized_calls as qc
    import venncal.online.quantized as oq

    fast, whole = QuantizedIsotonic(), QuantizedIsotonic()
    for label in (1, 0, True, 0.0, 1.0):  # each fills the queue's 256 slots, then flushes
        s = [0.001 * i + 0.0005 * label for i in range(qc.QUEUE)]
        for a in s:
            fast.learn_one(a, label)
        whole.learn_many(s, [float(label)] * len(s))
        assert not fast._queue[1].any() and fast._n_queued == 0
        assert _quantized_state(fast) == _quantized_state(whole)
    fast.learn_one(0.25, 1)
    fast.learn_many([0.75], [0])
    whole.learn_many([0.25, 0.75], [1, 0])
    assert _quantized_state(fast) == _quantized_state(whole)
    monkeypatch.setattr(oq, "WEIGHT_BOUND", 40)
    monkeypatch.setattr(qc, "_WEIGHT_BOUND", 40.0)
    fast, whole = QuantizedIsotonic(), QuantizedIsotonic()
    for i in range(12):  # weights of 3: the thirteenth would pass 40, the tree's and the queue's
        fast.insert(0.05 * i, i % 2, 3.0)
        whole.learn_many([0.05 * i], [i % 2], [3.0])
        assert fast._dense == whole._dense
    assert fast._dense and fast._n_queued == 12
    fast.insert(0.9, 1, 5.0)  # 41: the tree of groups, the queue applied first
    whole.learn_many([0.9], [1], [5.0])
    assert not fast._dense and not whole._dense
    assert _quantized_state(fast) == _quantized_state(whole)


def test_quantized_bound_error_at_the_call():
    model = QuantizedIsotonic()
    model.insert(0.5, 1)
    with pytest.raises(ValueError, match="2\\*\\*1000"):
        model.insert(0.4, 1, 2.0**1001)
    assert model.groups()["weight"].tolist() == [1.0]


@pytest.mark.parametrize("make", JUMPERS)
def test_jumper_pickle_of_the_layout_without_rate_rows_continues_exactly(make):
    """A memory pickled before the rates' scratch rows (``2 R`` numbers at its end) still loads.

    The rows are appended on loading; the state, the queue and the last
    forecast's column keep their places, so the stream continues bit for bit.
    """
    rng = np.random.default_rng(7)
    p = rng.uniform(0.02, 0.98, 300).tolist() + [1e-310, 1.0 - 2.0**-53, 0.5, 0.5]
    labels = (False, True) if make().classes is None else ("no", "yes")
    y = [labels[v] for v in (rng.random(len(p)) < 0.5).tolist()]
    model, ref = make(), make()
    for a, b in zip(p[:150], y[:150]):
        for m in (model, ref):
            m.predict_proba_one(a)
            m.learn_one(a, b)
    state = model.__getstate__()
    R = model._rates.shape[0]
    state["_mem"] = state["_mem"][:-2 * R].copy()  # the old layout: no rate rows
    revived = object.__new__(type(model))
    revived.__setstate__(state)
    for a, b in zip(p[150:], y[150:]):
        assert revived.predict_proba_one(a) == ref.predict_proba_one(a)
        revived.learn_one(a, b)
        ref.learn_one(a, b)
    assert _jumper_state(revived) == _jumper_state(ref)
