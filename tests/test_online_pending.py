"""Delayed labels (venncal.online.pending.Pending): the bet is the forecast made at prediction time."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from venncal.online import JumperMartingale, MeanJumper, QuantizedIsotonic, cox, quadratic
from venncal.online.pending import Pending

E = (-1.0, -0.5, 0.0, 0.5, 1.0)


def literal(events, J=0.01):
    """Algorithm 1 with delayed labels, literally: forecasts stored, factors from them.

    ``events`` are ``("predict", key, p)`` and ``("learn", key, y)``; returns
    ``log10 S`` after each learn.  Weights are a plain list; the forecast of
    ``p`` is ``sum w_e f_e(p)`` after mixing, ``f_e(p) = p + e p (1 - p)``.
    """
    K = len(E)
    w = [1.0 / K] * K
    stored = {}
    log_s = 0.0
    out = []
    for kind, key, v in events:
        mixed = [(1 - J) * wk + J / K for wk in w]
        if kind == "predict":
            stored[key] = (v, sum(m * (v + e * v * (1 - v)) for m, e in zip(mixed, E)) / sum(mixed))
            continue
        p, forecast = stored.pop(key)
        b = p if v else 1 - p
        log_s += math.log((forecast if v else 1 - forecast) / b)
        ratios = [((p + e * p * (1 - p)) if v else (1 - p - e * p * (1 - p))) / b for e in E]
        g = sum(m * r for m, r in zip(mixed, ratios))
        w = [m * r / g for m, r in zip(mixed, ratios)]
        out.append(log_s / math.log(10))
    return out


@given(st.lists(st.tuples(st.floats(0.05, 0.95), st.booleans(), st.integers(0, 5)),
                min_size=1, max_size=40))
def test_out_of_order_labels_match_the_literal_reference(stream):
    """Each label arrives after up to 5 later forecasts; log10 S equals the literal Algorithm 1."""
    waiting = Pending(JumperMartingale(quadratic(E), jump_rate=0.01, classes=[0, 1]))
    events, due = [], []
    for i, (p, y, delay) in enumerate(stream):
        events.append(("predict", i, p))
        waiting.predict_proba_one(p, key=i)
        due.append((i + delay, i, int(y)))
        for item in sorted(d for d in due if d[0] <= i):
            due.remove(item)
            events.append(("learn", item[1], item[2]))
            waiting.learn_one(item[1], item[2])
    for item in sorted(due):
        events.append(("learn", item[1], item[2]))
        waiting.learn_one(item[1], item[2])
    want = literal(events)
    assert waiting.model.n_seen_ == len(stream) and len(waiting) == 0
    assert math.isclose(waiting.model.log10_value, want[-1], rel_tol=1e-9, abs_tol=1e-12)


def test_in_order_labels_give_the_usual_jumper():
    rng = np.random.default_rng(5)
    p = rng.uniform(0.05, 0.95, 300)
    y = (rng.random(300) < p ** 2).astype(int)
    for make in (lambda: JumperMartingale(classes=[0, 1]), lambda: MeanJumper(classes=[0, 1]),
                 lambda: MeanJumper(classes=[0, 1], half_life=25.0),  # forgetting, as learn_one
                 lambda: JumperMartingale(quadratic() + cox(), classes=[0, 1], half_life=5.0)):
        waiting, usual = Pending(make()), make()
        res = usual.run(p, y)
        for i in range(300):
            got = waiting.predict_proba_one(float(p[i]), key=i)[1]
            assert math.isclose(got, res.protected_proba[i], rel_tol=1e-12)
            waiting.learn_one(i, int(y[i]))
        assert math.isclose(waiting.model.log10_value, res.log10_final, rel_tol=1e-9)
        assert waiting.model.alarm(0.01) == res.alarm(0.01)


def test_keys_and_memory_errors():
    waiting = Pending(QuantizedIsotonic(levels=5), max_pending=2)
    waiting.model.learn_one(0.5, 1)
    waiting.predict_proba_one(0.2, key="a")
    with pytest.raises(ValueError, match="already waiting"):
        waiting.predict_proba_one(0.3, key="a")
    waiting.predict_proba_one(0.3, key="b")
    with pytest.raises(ValueError, match="max_pending"):
        waiting.predict_proba_one(0.4, key="c")
    with pytest.raises(ValueError, match="no forecast is waiting for key 'c'"):
        waiting.learn_one("c", 1)
    waiting.learn_one("a", 0)  # the quantized stream learns (0.2, 0) now
    assert waiting.model.n_distinct == 2 and "a" not in waiting
    waiting.forget("b")
    assert len(waiting) == 0
    with pytest.raises(ValueError):
        waiting.forget("b")
    with pytest.raises(ValueError, match="max_pending"):
        Pending(QuantizedIsotonic(), max_pending=0)
    with pytest.raises(TypeError):
        Pending(object())


def test_a_refused_label_keeps_its_forecast():
    waiting = Pending(JumperMartingale(classes=[0, 1]))
    waiting.predict_proba_one(0.0, key=1)
    with pytest.raises(ValueError, match="probability 0"):
        waiting.learn_one(1, 1)  # p = 0 and a positive label: the martingale is undefined
    assert 1 in waiting and waiting.model.n_seen_ == 0
    waiting.learn_one(1, 0)
    assert waiting.model.n_seen_ == 1


def test_a_refused_label_is_named_by_its_key():
    """The refusal named 'p[0]' (an internal array) and a step, never the key; an array key
    raised numpy's 'truth value ... is ambiguous' (attack 22 F4)."""
    waiting = Pending(MeanJumper(classes=[0, 1]))
    waiting.predict_proba_one(0.0, key="loan-7")
    with pytest.raises(ValueError, match=r"^the label 1 of key 'loan-7' was refused \(still "
                                         r"waiting\): p = 0 \(step 1 of the stream\) gave "
                                         r"probability 0 to its label 1"):
        waiting.learn_one("loan-7", 1)
    with pytest.raises(ValueError, match=r"^the label 2 of key 'loan-7' was refused \(still "
                                         r"waiting\): y holds label\(s\) \[2\] that are not in "
                                         r"classes=\[0, 1\]$"):
        waiting.learn_one("loan-7", 2)
    assert "loan-7" in waiting
    for call in (lambda: waiting.predict_proba_one(0.3, key=np.array([1, 2])),
                 lambda: waiting.learn_one(np.array([1]), 1), lambda: waiting.forget([1])):
        with pytest.raises(TypeError, match="key must be hashable"):
            call()


EDGE_P = (0.5, 0.3, 1 - 2.0**-53, 1 - 2.0**-50, 5e-324, 1e-310, 1e-300, 0.0, 1.0, 0.999)


@pytest.mark.parametrize("make", [
    lambda: JumperMartingale(quadratic(), jump_rate=1e-4, classes=[0, 1]),
    lambda: MeanJumper(classes=[0, 1]),
    lambda: MeanJumper(classes=[0, 1], half_life=7.0),
    lambda: JumperMartingale(quadratic() + cox(), classes=[0, 1], half_life=5.0),
])
def test_in_order_labels_at_the_edges_are_learn_one(make):
    """A forecast within 2**-53 of 1 or subnormal keeps its bet (attack 21 F1).

    The bet was ``1 - p'`` of the rounded forecast: at ``p = 1 - 2**-53`` with ``y = 0``
    (``p' = 1.0``) or ``p = 5e-324`` with ``y = 1`` (``p' = 0.0``), ``log10 S`` became
    ``-inf`` for good, where ``learn_one`` (the family's likelihood ratios) stays finite.
    """
    rng = np.random.default_rng(11)
    waiting, usual = Pending(make()), make()
    for i in range(400):
        p = float(EDGE_P[rng.integers(len(EDGE_P))]) if rng.random() < 0.3 else float(
            rng.uniform(0.05, 0.95))
        y = int(rng.random() < 0.5)
        if i < 150:
            y = 0 if p > 0.9 else 1 if p < 0.1 else y  # surprises: the edges' hard cases
        if p in (0.0, 1.0):
            y = int(p)  # a sure forecast's label (the other is refused)
        got, want = waiting.predict_proba_one(p, key=i), usual.predict_proba_one(p)
        assert math.isclose(got[1], want[1], rel_tol=1e-12, abs_tol=1e-300)
        waiting.learn_one(i, y)
        usual.learn_one(p, y)
        assert math.isclose(waiting.model.log10_value, usual.log10_value, rel_tol=1e-12,
                            abs_tol=1e-12), i  # rounding: the buffered path's sums differ
    assert math.isfinite(usual.log10_value)


@pytest.mark.parametrize("key", [float("nan"), (float("nan"),), np.float32("nan"), ("a", (1, math.nan))])
def test_a_key_holding_a_nan_is_refused(key):
    """(nan,) was accepted, though no later tuple equals it: its slot was held for good; a
    numpy NaN was shown as np.float32(nan) (attack 23 F10)."""
    waiting = Pending(MeanJumper(classes=[0, 1]))
    with pytest.raises(ValueError, match=r"key must equal itself to be found again; got \(?"
                                         r"['a, (1]*nan"):
        waiting.predict_proba_one(0.3, key=key)
    assert len(waiting) == 0
