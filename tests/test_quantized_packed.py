"""The dense tree packed into one array (issue 26, deliverable 5) gives the old results bit for bit.

``QuantizedIsotonic``'s single calls go through
:func:`venncal._kernels.quantized_packed.packed_calls`, which takes the whole
dense tree as one array.  These tests compare it with the unpacked kernel
(:func:`venncal._kernels.quantized_dense.dense_calls`, the single-call kernel
before the packing) on the same trees, and the single calls with the batch
path on random interleavings of inserts, deletes and predictions, with
windows, half-lives, fractional weights and pickling.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from venncal._kernels.quantized_dense import dense_calls
from venncal._kernels.quantized_packed import packed_calls, packed_level
from venncal.online import QuantizedIsotonic

scores = st.one_of(st.sampled_from([0.0, 0.5, 1e-310, 1e308, -1e308, 0.1, 0.3, 1.0 - 2.0**-53]),
                   st.floats(-2, 2, allow_nan=False, allow_infinity=False),
                   st.integers(-3, 3).map(float))
weights = st.one_of(st.just(1.0), st.sampled_from([2.0, 3.0, 2.0**20, 0.5, 0.25, 1e-300]))
ops = st.lists(
    st.tuples(st.sampled_from(["learn", "learn", "learn", "learn", "delete", "predict",
                               "pickle"]),
              scores, st.sampled_from([0.0, 1.0, 1.0, 0.5]), weights),
    max_size=80,
)

PARAMS = [{}, {"levels": 5}, {"levels": 5, "window": 7}, {"levels": 11, "half_life": 3.5},
          {"levels": 1001}]


def _state(m) -> tuple:
    if not m.n_distinct:
        return (0,)
    g = m.groups()
    return (m.n_distinct, m.n_groups, m.thresholds_.tolist(), m.values_.tolist(),
            {k: v.tolist() for k, v in g.items()}, m.predict([-1.0, 0.2, 0.5, 3.0]).tolist())


@pytest.mark.parametrize("params", PARAMS, ids=str)
@given(steps=ops)
def test_single_calls_equal_batch_path(params, steps):
    """learn_one / insert / delete / predict_proba_one equal learn_many and predict, step by step."""
    fast, ref = QuantizedIsotonic(**params), QuantizedIsotonic(**params)
    deletes = "window" not in params and "half_life" not in params
    for op, s, y, w in steps:
        if op == "learn":
            if w == 1.0 and y in (0.0, 1.0):
                fast.learn_one(s, y)
            else:
                fast.insert(s, y, w)
            ref.learn_many(np.array([s]), np.array([y]), np.array([w]))
        elif op == "delete" and deletes:
            try:
                ref.delete(s, y, w)
            except ValueError:
                with pytest.raises(ValueError):
                    fast.delete(s, y, w)
                continue
            fast.delete(s, y, w)
        elif op == "predict":
            if not ref.n_distinct:
                with pytest.raises(ValueError):
                    fast.predict_proba_one(s)
                continue
            want = float(ref.predict(np.array([s]))[0])  # the step table, not a single call
            try:
                p = fast.predict_proba_one(s)
            except ValueError:  # targets 0.5 held: no probabilities (the batch path agrees)
                with pytest.raises(ValueError):
                    ref.predict_proba_one(s)
                assert fast.predict_one(s) == want
                continue
            assert p == {0: 1.0 - want, 1: want}
        elif op == "pickle":
            fast = pickle.loads(pickle.dumps(fast))
    assert _state(fast) == _state(ref)


def _unpacked(model) -> tuple:
    """Copies of the model's dense tree as separate arrays (the old layout), and its queue."""
    return tuple(a.copy() for a in model._tree), model._queue.copy()


@pytest.mark.slow  # compiles dense_calls from Python for this test alone (~40 s cold); the
# single calls' equality with the batch path above covers the same trees by default
@given(steps=st.lists(st.tuples(st.floats(0, 1), st.booleans(), st.integers(1, 3)),
                      min_size=1, max_size=300),
       probes=st.lists(st.floats(-0.5, 1.5), min_size=1, max_size=5))
def test_packed_kernel_equals_unpacked_kernel(steps, probes):
    """packed_calls on the packed tree equals dense_calls on copies of its arrays, bit for bit."""
    model = QuantizedIsotonic()
    model.learn_many([0.5], [1.0])
    for s, y, w in steps:  # queued: flushed every 256, the rest left in the queue
        model.insert(s, float(y), float(w))
    if model._queue[3, 0] or model._n_queued == 0:  # (a grow was pending) nothing to compare
        return
    n = model._n_queued
    (E, EK, EW, cnt, FS, D, NA, NB), queue = _unpacked(model)
    Q, P = model._fractions
    r_old = dense_calls(E, EK, EW, cnt, FS, D, NA, NB, queue, n, Q, P, model.levels_, 2,
                        0.0, 0.0, 0.0)
    r_new = packed_calls(model._packed, n, 2, 0.0, 0.0, 0.0)
    if r_old != r_old:  # the tree got full: both stop at the same row
        assert r_new != r_new and queue[3, 0] == model._queue[3, 0]
        return
    model._n_queued = 0
    assert r_new == r_old == 0.0
    for old, new in zip((E, EK, EW, cnt, FS, D, NA, NB), model._tree):
        np.testing.assert_array_equal(old, new)
    for q in probes:
        a = dense_calls(E, EK, EW, cnt, FS, D, NA, NB, queue, 0, Q, P, model.levels_, 0,
                        q, 0.0, 0.0)
        assert packed_calls(model._packed, 0, 0, q, 0.0, 0.0) == a
        assert packed_level(model._packed, 0, q) == a  # predict_proba_one's three-argument call
    s0, y0 = steps[0][0], float(steps[0][1])
    a = dense_calls(E, EK, EW, cnt, FS, D, NA, NB, queue, 0, Q, P, model.levels_, 1, s0, y0, 1.0)
    assert packed_calls(model._packed, 0, 1, s0, y0, 1.0) == a
    for old, new in zip((E, EK, EW, cnt, FS, D, NA, NB), model._tree):
        np.testing.assert_array_equal(old, new)


def test_packed_tree_is_one_array_and_survives_pickling():
    """The tree's arrays and the queue are views of one array, after growing and after pickling."""
    model = QuantizedIsotonic()
    rng = np.random.default_rng(3)
    for s in rng.random(3000).tolist():  # grows several times, mid-queue
        model.learn_one(s, float(s > 0.4))
    again = pickle.loads(pickle.dumps(model))
    for m in (model, again):
        assert all(np.shares_memory(a, m._packed) for a in m._tree if a.size)
        assert np.shares_memory(m._queue, m._packed)
    assert _state(again) == _state(model)
    for s in (0.1, 0.45, 0.9):
        assert again.predict_proba_one(s) == model.predict_proba_one(s)
        again.learn_one(s, 1)
        model.learn_one(s, 1)
    assert _state(again) == _state(model)


def test_packed_kernels_refuse_an_array_that_is_not_a_packed_tree():
    """The views are made at offsets from the header: a wrong length is an error, no stray read."""
    model = QuantizedIsotonic()
    model.learn_many([0.2, 0.7], [0.0, 1.0])
    short = model._packed[:-1].copy()
    for call in (lambda: packed_calls(short, 0, 2, 0.0, 0.0, 0.0),
                 lambda: packed_level(short, 0, 0.5)):
        with pytest.raises(ValueError, match="not a packed quantized tree"):
            call()
    assert model.predict_proba_one(0.7) == {0: 0.0, 1: 1.0}


_CRAFTED = textwrap.dedent("""
    import math
    import numpy as np
    from venncal._kernels.quantized_packed import HEADER, packed_calls, packed_level, packed_size
    from venncal.online import QuantizedIsotonic

    def crafted(head, length):
        buf = np.zeros(length)
        buf[:len(head)] = head
        return buf

    model = QuantizedIsotonic(levels=5)
    for i in range(300):
        model.learn_one(i / 300, i % 2)
    good = model._packed.copy()
    nb, B, nt, K, m = (int(x) for x in good[:5])
    late = good.copy()
    late[HEADER + nb * B * 3 + 6 * nb + nb * nt + 3 * m] = 7.0  # queue[3, 0] past n = 0
    cases = {
        "negative nb": (crafted([-1, 0, 0, 6, 0], 8), 0),  # the length sum agrees: 8
        "negative K": (crafted([1, 1, 1, -12, 0], 8), 0),  # agrees too (it hung)
        "nan": (crafted([math.nan, 0, 0, 0, 0], 8), 0),  # (it corrupted the heap)
        "wraps": (crafted([2.0**62, 4, 2, 0, 0], 12), 0),  # int64 products wrap to 12
        "fraction": (crafted([1.5, 2, 1, 2, 2], 32), 0),
        "infinite": (crafted([math.inf, 1, 1, 2, 2], 32), 0),
        "nb not a power of two": (crafted([3, 1, 0, 1, 2], packed_size(3, 1, 0, 1, 2)), 0),
        "K not nt + 1": (crafted([2, 1, 2, 1, 2], packed_size(2, 1, 2, 1, 2)), 0),
        "n past the queue": (good, m + 1),
        "n negative": (good, -1),
        "first past n": (late, 0),
        "short": (good[:5].copy(), 0),
    }
    for name, (buf, n) in cases.items():
        for call in (lambda: packed_calls(buf, n, 0, 0.5, 0.0, 0.0), lambda: packed_level(buf, n, 0.5)):
            try:
                call()
            except ValueError as e:
                assert "not a packed quantized tree" in str(e), (name, e)
            else:
                raise AssertionError(name + ": answered")
    print("refused", len(cases))
""")


def test_packed_kernels_refuse_a_crafted_header_without_reading_outside_the_array():
    """Attack 16 F1: sizes that are negative, NaN, fractional, wrapping or inconsistent are refused.

    Each of these crashed the process, corrupted its heap or hung before the
    header was checked, so they run in a child process (a crash is a failure
    here, not the end of the test run).
    """
    done = subprocess.run([sys.executable, "-c", _CRAFTED], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["refused", "12"]


@pytest.mark.parametrize("defect", ["bucket count", "inner count", "shape"])
def test_a_pickled_stream_with_an_impossible_tree_is_refused(defect):
    """The kernels index the tree by its counts: a pickle whose counts are impossible is refused."""
    model = QuantizedIsotonic(levels=5)
    for i in range(300):
        model.learn_one(i / 300, i % 2)
    state = model.__getstate__()
    E, EK, EW, cnt, FS, D, NA, NB = (a.copy() for a in state["_tree"])
    c = cnt.shape[0] // 2
    if defect == "bucket count":
        cnt[c] += 10**12
    elif defect == "inner count":
        cnt[1] += 1
    else:
        D = D[:, :1]
    state["_tree"] = (E, EK, EW, cnt, FS, D, NA, NB)
    with pytest.raises(ValueError, match="dense tree has"):
        QuantizedIsotonic.__new__(QuantizedIsotonic).__setstate__(state)
